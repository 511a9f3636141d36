// Package runner is the workshop's terminal program: the list of the
// chapters' exercises with their state, a progress bar over the course, a
// check that re-runs when an exercise file is saved, the lesson's tests
// before the full suite, hints in stages and two languages, reset, the
// reference as a diff on request, the visualizer on the learner's lock and
// the replays of failing runs. Update is pure: everything it does to the
// world goes through Env, as commands.
package runner

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// Env is what the runner does to the world. Each method returns a command
// (run by Bubble Tea, off the Update path) or a value the model shows.
type Env interface {
	// Run runs one tier of chapter ch and reports a RunDone.
	Run(ch string, tier course.Tier) tea.Cmd
	// Watch waits for the next save of an exercise file and reports a Saved.
	Watch() tea.Cmd
	// Reset puts the skeleton back, keeping the learner's file as a
	// backup, and reports a ResetDone.
	Reset(ch string) tea.Cmd
	// Diff reports a DiffReady: the reference against the learner's file.
	Diff(ch string) tea.Cmd
	// Visual is the visualizer on chapter ch's learner's lock.
	Visual(ch string) *exec.Cmd
	// Replay plays a recording of a failing run.
	Replay(file string) *exec.Cmd
	// Save keeps the state (marshalled, so that no command shares the
	// model's maps) in the clone.
	Save(state []byte) tea.Cmd
}

// Messages from the world.
type (
	// RunDone: a tier of a chapter's tests finished.
	RunDone struct {
		Chapter string
		Result  course.Result
		Replays []string // recordings the failing run left
	}
	// Saved: an exercise file of chapter Chapter was written.
	Saved struct{ Chapter string }
	// ResetDone: the skeleton is back; Backup is where the learner's is.
	ResetDone struct {
		Chapter, Backup string
		Err             error
	}
	// DiffReady: the reference against the learner's file.
	DiffReady struct {
		Chapter, Text string
		Err           error
	}
	// ExecDone: the visualizer or a replay ended.
	ExecDone struct{ Err error }
)

// Screen is what the model shows.
type Screen int

const (
	List Screen = iota
	Diff
	Done
)

// Model is the runner's state.
type Model struct {
	env       Env
	table     *hint.Table
	exercises []course.Exercise
	state     *course.State
	untouched map[string]bool // the file is the skeleton as shipped

	cursor  int
	running map[string]course.Tier // chapters with a run in progress, and its tier
	replays map[string][]string
	hints   map[string]int // hints shown for the chapter's current mistake
	lang    string
	screen  Screen
	diff    string
	note    string // one line of news under the list
	confirm bool   // the reset key was pressed once
	watch   bool

	spin     spinner.Model
	barWidth int
	width    int
	height   int
	quitting bool
}

// New returns the runner's model.
func New(env Env, table *hint.Table, exercises []course.Exercise, state *course.State, untouched map[string]bool, lang string) Model {
	if state == nil {
		state = &course.State{Chapters: map[string]*course.ChapterState{}}
	}
	if state.Lang != "" && lang == "" {
		lang = state.Lang
	}
	if lang == "" {
		lang = "en"
	}
	hints := map[string]int{}
	for ch, cs := range state.Chapters {
		hints[ch] = cs.Hints
	}
	return Model{env: env, table: table, exercises: exercises, state: state, untouched: untouched,
		running: map[string]course.Tier{}, replays: map[string][]string{}, hints: hints, lang: lang,
		watch: true, spin: spinner.New(spinner.WithSpinner(spinner.Line)), barWidth: 40, width: 80, height: 24}
}

// Init starts watching the exercise files.
func (m Model) Init() tea.Cmd {
	if m.env == nil {
		return nil
	}
	return m.env.Watch()
}

// selected is the chapter under the cursor.
func (m Model) selected() string { return m.exercises[m.cursor].Chapter }

// Passed counts the chapters whose last run passed the full suite.
func (m Model) Passed() int {
	n := 0
	for _, e := range m.exercises {
		if cs := m.state.Chapters[e.Chapter]; cs != nil && cs.Kind == course.Pass && cs.Tier == course.Full {
			n++
		}
	}
	return n
}

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
		if len(m.running) == 0 {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case Saved:
		var cmds []tea.Cmd
		if m.env != nil {
			cmds = append(cmds, m.env.Watch())
		}
		m.untouched[msg.Chapter] = false
		if m.watch {
			if !strings.Contains(m.note, "skeleton again") {
				m.note = fmt.Sprintf("%s saved: checking it again", msg.Chapter)
			}
			cmds = append(cmds, m.start(msg.Chapter, course.Lesson))
		}
		return m, tea.Batch(cmds...)
	case RunDone:
		return m.done(msg)
	case ResetDone:
		if msg.Err != nil {
			m.note = "reset failed: " + msg.Err.Error()
			return m, nil
		}
		delete(m.state.Chapters, msg.Chapter)
		m.untouched[msg.Chapter] = true
		m.note = fmt.Sprintf("%s is the skeleton again; yours is kept in %s", msg.Chapter, msg.Backup)
		return m, m.save()
	case DiffReady:
		if msg.Err != nil {
			m.note = "diff: " + msg.Err.Error()
			return m, nil
		}
		m.screen, m.diff = Diff, msg.Text
		return m, nil
	case ExecDone:
		if msg.Err != nil {
			m.note = "ended: " + msg.Err.Error()
		}
		return m, nil
	}
	return m, nil
}

// start runs a tier of ch (nothing if one is running already).
func (m *Model) start(ch string, tier course.Tier) tea.Cmd {
	if _, busy := m.running[ch]; busy || m.env == nil {
		return nil
	}
	m.running[ch] = tier
	return tea.Batch(m.env.Run(ch, tier), m.spin.Tick)
}

func (m Model) done(msg RunDone) (tea.Model, tea.Cmd) {
	delete(m.running, msg.Chapter)
	r := msg.Result
	if r.Tier == course.Record {
		// A run made only for its recordings: the verdict stands as it was.
		m.replays[msg.Chapter] = msg.Replays
		if len(msg.Replays) == 0 || m.env == nil {
			m.note = fmt.Sprintf("%s: no lesson test recorded this mistake (the rule's table tests need no server, so they record nothing)", msg.Chapter)
			return m, nil
		}
		m.note = fmt.Sprintf("%s: replaying %s", msg.Chapter, filepath.Base(msg.Replays[0]))
		return m, tea.ExecProcess(m.env.Replay(msg.Replays[0]), func(err error) tea.Msg { return ExecDone{err} })
	}
	prev := m.state.Chapters[msg.Chapter]
	cs := m.state.Record(msg.Chapter, r)
	if prev == nil || prev.Mistake != cs.Mistake || prev.Todo != cs.Todo {
		m.hints[msg.Chapter] = 0
	}
	cs.Hints = m.hints[msg.Chapter]
	m.replays[msg.Chapter] = msg.Replays
	cmds := []tea.Cmd{m.save()}
	switch {
	case r.Kind == course.Pass && r.Tier == course.Lesson:
		// The lesson holds: the full suite, in the background.
		m.note = fmt.Sprintf("%s: the lesson's tests pass in %s; the full suite runs now", msg.Chapter, secs(r))
		cmds = append(cmds, m.start(msg.Chapter, course.Full))
	case r.Kind == course.Pass:
		m.note = fmt.Sprintf("%s passes every test of the chapter (%s)", msg.Chapter, secs(r))
		if m.Passed() == len(m.exercises) {
			m.screen = Done
		}
	case r.Kind == course.Mistake:
		m.note = fmt.Sprintf("%s: %s — h for a hint", msg.Chapter, r.Mistake.Name.In(m.lang))
	case r.Kind == course.Todo:
		m.note = fmt.Sprintf("%s: step %d still to write", msg.Chapter, r.Step)
	default:
		m.note = fmt.Sprintf("%s: %s", msg.Chapter, r.Kind)
	}
	if len(msg.Replays) > 0 {
		m.note += " · p replays it"
	}
	return m, tea.Batch(cmds...)
}

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

func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	key := k.String()
	if key != "x" {
		m.confirm = false
	}
	if m.screen != List {
		switch key {
		case "q", "ctrl+c":
			m.quitting = true
			return m, tea.Quit
		case "esc", "enter", "d", "backspace":
			m.screen = List
		}
		return m, nil
	}
	ch := m.selected()
	switch key {
	case "q", "ctrl+c":
		m.quitting = true
		return m, tea.Quit
	case "up", "k":
		m.cursor = max(0, m.cursor-1)
	case "down", "j":
		m.cursor = min(len(m.exercises)-1, m.cursor+1)
	case "enter", "r":
		m.note = fmt.Sprintf("%s: the lesson's tests first", ch)
		return m, m.start(ch, course.Lesson)
	case "f":
		m.note = fmt.Sprintf("%s: the full suite", ch)
		return m, m.start(ch, course.Full)
	case "h":
		cs := m.state.Chapters[ch]
		stages := 0
		if cs != nil && cs.Mistake != "" && m.table.Find(ch, cs.Mistake) != nil {
			stages = m.table.Find(ch, cs.Mistake).Stages()
		} else if cs != nil && cs.Kind == course.Todo && m.table.StepOf(ch, cs.Todo) != nil {
			stages = m.table.StepOf(ch, cs.Todo).Stages()
		}
		if stages > 0 {
			m.hints[ch] = min(m.hints[ch]+1, stages)
			cs.Hints = m.hints[ch]
			return m, m.save()
		}
		m.note = "no hint for this: run the check (enter); hints come with a step to write or a named mistake"
	case "l":
		if m.lang == "zh" {
			m.lang = "en"
		} else {
			m.lang = "zh"
		}
		return m, m.save()
	case "w":
		m.watch = !m.watch
		m.note = map[bool]string{true: "watching: a save re-runs the check", false: "not watching: enter runs the check"}[m.watch]
	case "x":
		if !m.confirm {
			m.confirm = true
			m.note = fmt.Sprintf("x again to reset %s to the skeleton (your file is kept as a backup)", ch)
			return m, nil
		}
		m.confirm = false
		if m.env != nil {
			return m, m.env.Reset(ch)
		}
	case "d":
		if m.env != nil {
			return m, m.env.Diff(ch)
		}
	case "v":
		if m.env != nil {
			return m, tea.ExecProcess(m.env.Visual(ch), func(err error) tea.Msg { return ExecDone{err} })
		}
	case "p":
		if len(m.replays[ch]) == 0 {
			cs := m.state.Chapters[ch]
			if cs == nil || cs.Kind == course.Pass || cs.Kind == course.Todo {
				m.note = "no replay: a failing lesson test leaves one"
				return m, nil
			}
			// The failure came from a test that records nothing: run the
			// lesson's tests to their end for the ones that do.
			m.note = fmt.Sprintf("%s: recording your lock in the lesson's tests…", ch)
			return m, m.start(ch, course.Record)
		}
		if m.env != nil {
			return m, tea.ExecProcess(m.env.Replay(m.replays[ch][0]), func(err error) tea.Msg { return ExecDone{err} })
		}
	}
	return m, nil
}

func secs(r course.Result) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1fs", r.Elapsed.Seconds()), "")
}
