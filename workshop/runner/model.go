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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// Env is what the runner does to the world. Each method returns a command
// (run by Bubble Tea, off the Update path) or a value the model shows.
type Env interface {
	// Run runs a check and reports a RunDone with its ID. A run of the
	// same chapter still going is stopped first, all of it (its process
	// group, its ZooKeeper, its overlay): one chapter, one run at a time.
	Run(c Check) tea.Cmd
	// Watch waits for the next save of an exercise file and reports a
	// Saved, with the hash of what is on disk now.
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

// Check is one run of a chapter's tests the model asks for.
type Check struct {
	Chapter string
	Tier    course.Tier
	ID      int // the model's number for it: a RunDone of another ID is stale
	// For Tier Record: the test the check named, and what it said. The
	// run records that test (and, if it records nothing, the lesson's).
	Test, Message string
}

// Messages from the world.
type (
	// RunDone: a check finished.
	RunDone struct {
		Chapter string
		ID      int
		Result  course.Result
		Replays []string // recordings the failing run left, the named test's first
		// Named: Replays[0] is the recording of the test the check
		// named (a Record run); else of another lesson test.
		Named bool
	}
	// Saved: an exercise file of chapter Chapter was written; Hash is
	// what its files hash to now, Untouched whether they are the skeleton.
	Saved struct {
		Chapter, Hash string
		Untouched     bool
	}
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

// Disk is what an exercise's files are on disk.
type Disk struct {
	Hash      string // course.Hash
	Untouched bool   // the skeleton as shipped
}

// run is a check in progress.
type run struct {
	Check
	since time.Time // the first spinner tick after it started
}

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
	hints   map[string]int     // hints shown for the chapter's current mistake
	lang    string
	screen  Screen
	diff    []string // the diff's lines
	top     int      // the first diff line on screen
	note    note     // the news under the list
	confirm bool     // the reset key was pressed once
	watch   bool
	now     time.Time // of the last spinner tick

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
		running: map[string]run{}, replays: map[string]RunDone{}, hints: hints, lang: lang,
		watch: true, spin: spinner.New(spinner.WithSpinner(spinner.Line)), barWidth: 40, width: 80, height: 24}
}

// verdict is chapter ch's last verdict if it is about the files on disk,
// else nil: a verdict about another version of the file says nothing.
func (m Model) verdict(ch string) *course.ChapterState {
	if cs := m.state.Chapters[ch]; cs.Holds(m.disk[ch].Hash) {
		return cs
	}
	return nil
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
		if m.passes(e.Chapter) {
			n++
		}
	}
	return n
}

// passes: chapter ch's files on disk pass its full suite.
func (m Model) passes(ch string) bool {
	cs := m.verdict(ch)
	return cs != nil && cs.Kind == course.Pass && cs.Tier == course.Full
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
		m.now = msg.Time
		for ch, r := range m.running {
			if r.since.IsZero() {
				r.since = msg.Time
				m.running[ch] = r
			}
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case Saved:
		return m.saved(msg)
	case RunDone:
		return m.done(msg)
	case ResetDone:
		if msg.Err != nil {
			m.note = news(msg.Chapter, fmt.Sprintf(m.say().ResetFailed, msg.Err))
			return m, nil
		}
		delete(m.state.Chapters, msg.Chapter)
		m.note = news(msg.Chapter, fmt.Sprintf(m.say().ResetDone, msg.Chapter), fmt.Sprintf(m.say().ResetKept, msg.Backup))
		return m, m.save()
	case DiffReady:
		if msg.Err != nil {
			m.note = news(msg.Chapter, fmt.Sprintf(m.say().DiffFailed, msg.Err))
			return m, nil
		}
		m.screen, m.diff, m.top = Diff, strings.Split(strings.TrimRight(msg.Text, "\n"), "\n"), 0
		return m, nil
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

// saved: an exercise file changed on disk. Whatever was said about the old
// version no longer holds; a check of the old version still running is
// stopped (the env stops it when it starts the new one) and its verdict,
// should it come, is dropped.
func (m Model) saved(msg Saved) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	if m.env != nil {
		cmds = append(cmds, m.env.Watch())
	}
	ch := msg.Chapter
	m.disk[ch] = Disk{Hash: msg.Hash, Untouched: msg.Untouched}
	_, busy := m.running[ch]
	switch {
	case m.watch && busy:
		m.note = news(ch, fmt.Sprintf(m.say().SavedDuring, ch))
		cmds = append(cmds, m.start(ch, course.Lesson))
	case m.watch && m.note.chapter == ch && m.note.text == fmt.Sprintf(m.say().ResetDone, ch):
		// The reset's own write: keep saying where the backup is.
		cmds = append(cmds, m.start(ch, course.Lesson))
	case m.watch:
		m.note = news(ch, fmt.Sprintf(m.say().Saved, ch))
		cmds = append(cmds, m.start(ch, course.Lesson))
	case busy:
		// Not watching: the running check goes on, but its verdict will
		// be about the old version, so it will not count.
		m.note = news(ch, fmt.Sprintf(m.say().ChangedDuring, ch), m.say().EnterChecks)
	}
	return m, tea.Batch(cmds...)
}

// start runs a tier of ch; a run of ch still going is stopped for it.
func (m *Model) start(ch string, tier course.Tier) tea.Cmd {
	m.lastID++
	c := Check{Chapter: ch, Tier: tier, ID: m.lastID}
	if tier == course.Record {
		if cs := m.state.Chapters[ch]; cs != nil {
			c.Test, c.Message = cs.Test, cs.Message
		}
	}
	m.running[ch] = run{Check: c}
	if m.env == nil {
		return nil
	}
	return tea.Batch(m.env.Run(c), m.spin.Tick)
}

func (m Model) done(msg RunDone) (tea.Model, tea.Cmd) {
	ch := msg.Chapter
	if r, ok := m.running[ch]; !ok || r.ID != msg.ID {
		return m, nil // a run that was stopped for a newer one: it judged nothing on disk
	}
	delete(m.running, ch)
	r := msg.Result
	if r.Tier == course.Record {
		// A run made only for its recordings: the verdict stands as it was.
		m.replays[ch] = msg
		if len(msg.Replays) == 0 || m.env == nil {
			m.note = news(ch, fmt.Sprintf(m.say().NoRecording, ch))
			return m, nil
		}
		if !msg.Named {
			m.note = news(ch, fmt.Sprintf(m.say().ReplayingOther, strings.TrimSuffix(filepath.Base(msg.Replays[0]), ".events.jsonl")),
				m.say().OtherTip)
		}
		return m, m.replay(ch)
	}
	if r.Hash == "" || r.Hash != m.disk[ch].Hash {
		// The file changed while it was judged: this verdict is about
		// a version that is gone. Never record it, above all a pass.
		m.note = news(ch, fmt.Sprintf(m.say().ChangedWhile, ch))
		if m.watch {
			return m, m.start(ch, course.Lesson)
		}
		m.note.tip = m.say().EnterChecks
		return m, nil
	}
	prev := m.state.Chapters[ch]
	cs := m.state.Record(ch, r)
	if prev == nil || prev.Mistake != cs.Mistake || prev.Todo != cs.Todo {
		m.hints[ch] = 0
	}
	cs.Hints = m.hints[ch]
	m.replays[ch] = msg
	cmds := []tea.Cmd{m.save()}
	switch {
	case r.Kind == course.Pass && r.Tier == course.Lesson:
		// The lesson holds: the full suite, in the background.
		m.note = news(ch, fmt.Sprintf(m.say().LessonPass, ch, secs(r.Elapsed)))
		cmds = append(cmds, m.start(ch, course.Full))
	case r.Kind == course.Pass:
		m.note = news(ch, fmt.Sprintf(m.say().Pass, ch, secs(r.Elapsed)))
		if next := m.next(); next >= 0 {
			m.note.tip = fmt.Sprintf(m.say().OnTo, m.exercises[next].Dir)
		}
		if m.Passed() == len(m.exercises) {
			m.screen = Done
		}
	case r.Kind == course.Mistake:
		// The mistake's name is above, in full: the news is when, the tip what next.
		m.note = news(ch, fmt.Sprintf(m.say().Named, ch, secs(r.Elapsed)), m.say().HintTip)
	case r.Kind == course.Todo:
		m.note = news(ch, fmt.Sprintf(m.say().StillToWrite, ch, course.StubName(r.Todo)), m.say().HintTip)
	default:
		m.note = news(ch, fmt.Sprintf(m.say().Other, ch, r.Kind))
	}
	if len(msg.Replays) > 0 {
		m.note.tip = strings.TrimPrefix(m.note.tip+" · "+m.say().Replays, " · ")
	}
	return m, tea.Batch(cmds...)
}

// next is the index of the first chapter after the cursor (then from the
// top) that does not pass yet, -1 if every one does.
func (m Model) next() int {
	for i := 1; i <= len(m.exercises); i++ {
		j := (m.cursor + i) % len(m.exercises)
		if !m.passes(m.exercises[j].Chapter) {
			return j
		}
	}
	return -1
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
	if key != "R" {
		m.confirm = false
	}
	switch m.screen {
	case Diff:
		return m.diffKey(key)
	case Done:
		switch key {
		case "q", "ctrl+c":
			m.quitting = true
			return m, tea.Quit
		case "esc", "enter", "backspace":
			m.screen = List
		}
		return m, nil
	}
	// A key is the learner's next move: what was said before it has had
	// its moment.
	m.note = note{}
	ch := m.selected()
	switch key {
	case "q", "ctrl+c":
		m.quitting = true
		return m, tea.Quit
	case "up":
		m.cursor = max(0, m.cursor-1)
	case "down":
		m.cursor = min(len(m.exercises)-1, m.cursor+1)
	case "n":
		if next := m.next(); next >= 0 {
			m.cursor = next
		}
	case "enter":
		m.note = news(ch, fmt.Sprintf(m.say().LessonFirst, ch))
		return m, m.start(ch, course.Lesson)
	case "f":
		m.note = news(ch, fmt.Sprintf(m.say().Full, ch))
		return m, m.start(ch, course.Full)
	case "h":
		return m.hint(ch)
	case "l":
		if m.lang == "zh" {
			m.lang = "en"
		} else {
			m.lang = "zh"
		}
		return m, m.save()
	case "w":
		m.watch = !m.watch
		m.note = news("", map[bool]string{true: m.say().WatchOn, false: m.say().WatchOff}[m.watch])
	case "R":
		if !m.confirm {
			m.confirm = true
			m.note = news(ch, fmt.Sprintf(m.say().ResetAgain, ch))
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
			return m, tea.ExecProcess(m.inLang(m.env.Visual(ch)), func(err error) tea.Msg { return ExecDone{err} })
		}
	case "p":
		cs := m.verdict(ch)
		if cs == nil || cs.Kind == course.Pass || cs.Kind == course.Todo || cs.Kind == course.NoBuild {
			m.note = news(ch, m.say().NoReplay)
			return m, nil
		}
		if m.replays[ch].Named {
			return m, m.replay(ch)
		}
		// The test the check named left no recording (this run was
		// stopped at the first failure, or it was a rule's table test):
		// run it again, recording.
		m.note = news(ch, fmt.Sprintf(m.say().Recording, ch, cs.Test))
		return m, m.start(ch, course.Record)
	}
	return m, nil
}

// hint shows one more stage of the hints for what the check said of ch;
// after the last one, h hides them, and the next h starts at hint 1 again.
func (m Model) hint(ch string) (tea.Model, tea.Cmd) {
	stages := 0
	cs := m.verdict(ch)
	if cs != nil && cs.Mistake != "" && m.table.Find(ch, cs.Mistake) != nil {
		stages = m.table.Find(ch, cs.Mistake).Stages()
	} else if cs != nil && cs.Kind == course.Todo && m.table.StepOf(ch, cs.Todo) != nil {
		stages = m.table.StepOf(ch, cs.Todo).Stages()
	}
	if stages == 0 {
		m.note = news(ch, m.say().NoHint, m.say().EnterChecks)
		return m, nil
	}
	if m.hints[ch] >= stages {
		m.hints[ch] = 0
		m.note = news(ch, m.say().HintsHidden, m.say().HintsAgain)
	} else {
		m.hints[ch]++
	}
	cs.Hints = m.hints[ch]
	return m, m.save()
}

// diffKey scrolls the diff.
func (m Model) diffKey(key string) (tea.Model, tea.Cmd) {
	page := max(1, m.height-2)
	last := max(0, len(m.diff)-page)
	switch key {
	case "q", "ctrl+c":
		m.quitting = true
		return m, tea.Quit
	case "esc", "d", "backspace":
		m.screen = List
	case "down":
		m.top++
	case "up":
		m.top--
	case "pgdown", " ":
		m.top += page
	case "pgup":
		m.top -= page
	case "home":
		m.top = 0
	case "end":
		m.top = last
	}
	m.top = max(0, min(m.top, last))
	return m, nil
}

// replay plays ch's recording: the named test's when there is one.
func (m Model) replay(ch string) tea.Cmd {
	rd := m.replays[ch]
	if m.env == nil || len(rd.Replays) == 0 {
		return nil
	}
	return tea.ExecProcess(m.inLang(m.env.Replay(rd.Replays[0])), func(err error) tea.Msg { return ExecDone{err} })
}

// LangEnv names the variable that tells a program the runner starts (the
// visualizer) the learner's language: it opens in Chinese after l.
const LangEnv = "LOCKSTEP_LANG"

// inLang gives c the runner's language in LangEnv.
func (m Model) inLang(c *exec.Cmd) *exec.Cmd {
	if c == nil {
		return nil
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	c.Env = append(c.Env, LangEnv+"="+m.lang)
	return c
}

// note is a line of news under the list: the news, and a tip (a key to
// press) that goes first when the line is too wide.
type note struct{ chapter, text, tip string }

func news(ch, text string, tip ...string) note {
	return note{chapter: ch, text: text, tip: strings.Join(tip, " · ")}
}

// line is the note within w cells: the tip is dropped before the news is cut.
func (n note) line(w int) string {
	if n.tip != "" {
		if s := n.text + " · " + n.tip; lipgloss.Width(s) <= w {
			return s
		}
	}
	return truncate(n.text, w)
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
