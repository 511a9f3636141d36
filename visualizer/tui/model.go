package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// Controller is what the keys act on: the running workers. Update never
// calls it directly (Update is pure); it returns a tea.Cmd that does. The
// real one is visualizer/world; the unit tests use a fake.
type Controller interface {
	SetPaused(paused bool)
	SetHold(d time.Duration)
	AddWorker()
	RemoveWorker()
	Kill(worker string)
	Expire(worker string)
	Switch(chapter string)
}

// Source delivers what happened since the last call, blocking until
// something did. It returns nil when the world has stopped.
type Source interface {
	Next() []worldmsg.Msg
}

// lockEventMsg is one batch of what happened in the world, each a Msg:
// ChapterStarted, QueueSnapshot, WorkerChange, Notice, LockEvent.
type lockEventMsg struct{ items []worldmsg.Msg }

// tickMsg drives the only animation: notification flashes fading out.
type tickMsg time.Time

const (
	flashFor  = 900 * time.Millisecond
	tickEvery = 100 * time.Millisecond
	logKeep   = 200
	minHold   = 25 * time.Millisecond
	maxHold   = 5 * time.Second
)

// worker is one worker as the view knows it.
type worker struct {
	name       string
	state      worldmsg.State
	node       string              // its lock node while it holds (full path)
	watching   map[string]event.Op // node (full path) → watch op
	acquired   int
	requests   int
	notified   int
	wasted     int
	woken      bool   // notified while waiting, not yet known whether it got the lock
	wokenFrom  string // the queue (queueOfNode) of the node whose notification woke it
	releasing  bool   // a holder that asked to delete its node: its release has begun
	flashUntil time.Time
	lastNotice string // what the last notification said
	detail     string
}

// Model is the root model.
type Model struct {
	ctl       Controller
	src       Source
	available []string // chapter keys that are wired in
	typed     string   // the digits of a chapter key typed so far, while a longer key starts with them

	chapter  scene.Scene
	words    scene.Words // the chapter's words in lang, defaults filled in
	look     string      // the chapter's Look in lang
	expect   scene.Expect
	lang     string // "zh" or "en": the engine's Texts and the scene's words
	workshop bool   // the learner's lock
	path     string
	dir      string
	hold     time.Duration
	paused   bool

	workers map[string]*worker
	order   []string
	// gone: the workers removed cleanly (x) in this chapter. An event of
	// theirs that arrives late (a lock's goroutine that told its last
	// event after the stop) must not bring the row back.
	gone  map[string]bool
	queue worldmsg.QueueSnapshot
	log   []string

	// totals
	acquired, requests, notified, wasted int
	releases, wakes, wokeNow, wokeLast   int
	// releaseQueue is the queue (queueOfNode) of the node whose release is
	// being counted: a release wakes those waiting in its own queue.
	releaseQueue string
	// abandoned: nodes their owner gave up before holding them (a waiter
	// that left or died). Whom their delete wakes was woken by no release.
	abandoned map[string]bool
	// what the header sets beside the scene's Expect
	maxWoken, maxWaiting, maxHolders int

	legend  bool // ? shows what every column and mark means
	cursor  int  // index into order; -1 follows the holder
	now     time.Time
	ticking bool
	status  string

	width, height int

	replay *replayState // a replay's position, for the header; nil when live
}

// NewModel returns the root model. ctl and src may be nil in tests that
// only feed messages.
func NewModel(ctl Controller, src Source, available []string) Model {
	return Model{ctl: ctl, src: src, available: available, workers: map[string]*worker{},
		words: scene.Words{}.WithDefaults(), cursor: -1, width: FrameWidth, height: FrameHeight}
}

// Init starts listening for the world.
func (m Model) Init() tea.Cmd { return waitForEvent(m.src) }

func waitForEvent(src Source) tea.Cmd {
	if src == nil {
		return nil
	}
	return func() tea.Msg {
		items := src.Next()
		if items == nil {
			return nil
		}
		return lockEventMsg{items}
	}
}

func tick() tea.Cmd {
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update is pure: it changes the model and returns commands; every side
// effect (killing a worker, …) happens inside a command.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case lockEventMsg:
		m = m.apply(msg.items)
		cmds := []tea.Cmd{waitForEvent(m.src)}
		if !m.ticking && m.flashing() {
			m.ticking = true
			cmds = append(cmds, tick())
		}
		return m, tea.Batch(cmds...)
	case tickMsg:
		if t := time.Time(msg); t.After(m.now) {
			m.now = t
		}
		if m.flashing() {
			return m, tick()
		}
		m.ticking = false
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

// flashing says whether some worker still shows a notification.
func (m Model) flashing() bool {
	for _, w := range m.workers {
		if w.flashUntil.After(m.now) {
			return true
		}
	}
	return false
}

func (m *Model) addLog(line string) {
	m.log = append(m.log, line)
	if len(m.log) > 2*logKeep { // trim now and then, not on every line
		m.log = append(m.log[:0:0], m.log[len(m.log)-logKeep:]...)
	}
}

// selected is the worker the kill and expire keys act on: the one under
// the cursor, or the holder when the cursor follows it.
func (m Model) selected() string {
	if m.cursor >= 0 && m.cursor < len(m.order) {
		return m.order[m.cursor]
	}
	for _, n := range m.order {
		if m.workers[n].state == worldmsg.Holding {
			return n
		}
	}
	return ""
}

// count is how many workers are in state s.
func (m Model) count(s worldmsg.State) int {
	n := 0
	for _, w := range m.workers {
		if w.state == s {
			n++
		}
	}
	return n
}

// holders lists the workers that hold the lock now.
func (m Model) holders() []string {
	var hs []string
	for _, n := range m.order {
		if m.workers[n].state == worldmsg.Holding {
			hs = append(hs, n)
		}
	}
	return hs
}
