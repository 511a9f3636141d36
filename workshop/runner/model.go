// Package runner is the workshop's terminal program: the list of the
// chapters' exercises with their state, a progress bar over the course, a
// check that re-runs when an exercise file is saved, the lesson's tests
// before the full suite, hints in stages and two languages, reset, the
// reference as a diff on request, the visualizer on the learner's lock and
// the replays of failing runs. Update is pure: everything it does to the
// world goes through Env, as commands.
//
// Where to look: model.go is the Model and Update, which hands each message
// on; env.go is what the runner asks of the world and what the world
// reports back; keys.go is what each key does (hints.go for h, visual.go
// for v and p, diff.go for d and the diff's own keys); checks.go is a
// check's life: a save, a start, a verdict kept with the hash of the file
// it judged; note.go is the line of news under the list; view.go draws the
// list, in the words of words.go.
package runner

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// Screen is what the model shows.
type Screen int

const (
	List Screen = iota
	Diff
	Done
	Output // the last check's whole output (o)
)

// Model is the runner's state.
type Model struct {
	env       Env
	table     *hint.Table
	exercises []course.Exercise
	state     *course.State
	disk      map[string]Disk // by chapter: a verdict holds while its hash is the disk's

	cursor  int
	running map[string]run // chapters with a run in progress
	lastID  int
	replays map[string]RunDone // the last run's recordings, by chapter
	outputs map[string]string  // the last check's whole output, by chapter (this session's)
	hints   map[string]int     // hints shown for the chapter's current mistake
	lang    string
	screen  Screen
	diff    []string // the diff's or the output's lines
	top     int      // the first of them on screen
	note    note     // the news under the list
	confirm string   // the key pressed once of a key that asks first (R, d)
	watch   bool
	now     time.Time // of the last spinner tick
	class   ClassNews // where the runner stands in the class it joined (Kind 0: none)
	arena   arenaSeen // the learner's lock in the class's arena (arena.go)

	spin     spinner.Model
	barWidth int
	width    int
	height   int
	quitting bool
}

// New returns the runner's model. lang is the language to show (the caller
// has chosen it: -lang, else the one saved in state, else LANG).
func New(env Env, table *hint.Table, exercises []course.Exercise, state *course.State, disk map[string]Disk, lang string) Model {
	if state == nil {
		state = &course.State{Chapters: map[string]*course.ChapterState{}}
	}
	if lang == "" {
		lang = "en"
	}
	hints := map[string]int{}
	for ch, cs := range state.Chapters {
		hints[ch] = cs.Hints
	}
	if disk == nil {
		disk = map[string]Disk{}
	}
	return Model{env: env, table: table, exercises: exercises, state: state, disk: disk,
		running: map[string]run{}, replays: map[string]RunDone{}, outputs: map[string]string{}, hints: hints, lang: lang,
		watch: true, spin: spinner.New(spinner.WithSpinner(spinner.Line)), barWidth: 40, width: 80, height: 24}
}

// Init starts watching the exercise files, and the checks' progress.
func (m Model) Init() tea.Cmd {
	if m.env == nil {
		return nil
	}
	cmds := []tea.Cmd{m.env.Watch(), m.env.Progress()}
	if m.class.Kind != 0 {
		cmds = append(cmds, m.env.Class())
	}
	return tea.Batch(cmds...)
}

// selected is the chapter under the cursor.
func (m Model) selected() string { return m.exercises[m.cursor].Chapter }

// Update handles one message. It never touches the world itself.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.barWidth = max(10, min(40, msg.Width-40))
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	case spinner.TickMsg:
		return m.ticked(msg)
	case Saved:
		return m.saved(msg)
	case RunDone:
		return m.done(msg)
	case Built:
		return m.built(msg)
	case ZKLost:
		m.note = news("", fmt.Sprintf(m.say().ZKLost, msg.Err))
		if m.env == nil {
			return m, nil
		}
		return m, m.env.Progress()
	case ClassNews:
		return m.classNews(msg)
	case ArenaNews:
		return m.arenaNews(msg)
	case ResetDone:
		if msg.Err != nil {
			m.note = news(msg.Chapter, fmt.Sprintf(m.say().ResetFailed, msg.Err))
			return m, nil
		}
		delete(m.state.Chapters, msg.Chapter)
		m.note = news(msg.Chapter, fmt.Sprintf(m.say().ResetDone, msg.Chapter), fmt.Sprintf(m.say().ResetKept, msg.Backup))
		return m, m.save()
	case DiffReady:
		return m.diffReady(msg)
	case ExecDone:
		// The replay or the visualizer is over: so is what was said
		// about it.
		m.note = note{}
		if msg.Err != nil {
			m.note = news("", fmt.Sprintf(m.say().Ended, msg.Err))
		}
		return m, nil
	}
	return m, nil
}

// save keeps the state, with the language, in the clone.
func (m Model) save() tea.Cmd {
	if m.env == nil {
		return nil
	}
	m.state.Lang = m.lang
	b, err := json.MarshalIndent(m.state, "", " ")
	if err != nil {
		return nil
	}
	return m.env.Save(b)
}
