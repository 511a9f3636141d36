package tui

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/scene"
)

// Controller is what the keys act on: the running workers. Update never
// calls it directly (Update is pure); it returns a tea.Cmd that does. The
// real one is the runtime; the unit tests use a fake.
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
	Next() []any
}

// lockEventMsg is one batch of happenings: event.Event, QueueSnapshot,
// WorkerChange, ChapterStarted, Notice.
type lockEventMsg struct{ items []any }

// tickMsg drives the only animation: notification flashes fading out.
type tickMsg time.Time

const (
	flashFor     = 900 * time.Millisecond
	tickEvery    = 100 * time.Millisecond
	logKeep      = 200
	minHold      = 25 * time.Millisecond
	maxHold      = 5 * time.Second
	defaultWidth = 80
)

// worker is one worker as the view knows it.
type worker struct {
	name       string
	state      State
	node       string            // its lock node while it holds (full path)
	watching   map[string]string // node (full path) → watch op
	acquired   int
	requests   int
	notified   int
	wasted     int
	woken      bool // notified while waiting, not yet known whether it got the lock
	releasing  bool // a holder that asked to delete its node: its release has begun
	flashUntil time.Time
	lastNotice string // what the last notification said
	detail     string
}

// Model is the root model.
type Model struct {
	ctl       Controller
	src       Source
	available []string // chapter keys that are wired in

	chapter  scene.Scene
	words    scene.Words // the chapter's words, defaults filled in
	workshop bool        // the learner's lock
	path     string
	dir      string
	hold     time.Duration
	paused   bool

	workers map[string]*worker
	order   []string
	queue   QueueSnapshot
	log     []string

	// totals
	acquired, requests, notified, wasted int
	releases, wakes, wokeNow, wokeLast   int
	// what the header sets beside the scene's Expect
	maxWoken, maxWaiting, maxHolders int

	cursor  int // index into order; -1 follows the holder
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
		words: scene.Words{}.WithDefaults(), cursor: -1, width: defaultWidth, height: 24}
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

// apply folds a batch of happenings into the model. It works on a copy
// of the workers, so the model it was given is left as it was (Update is
// pure: a test can branch two futures off one model).
func (m Model) apply(items []any) Model {
	m = m.own()
	for _, it := range items {
		switch it := it.(type) {
		case ChapterStarted:
			m = m.reset(it)
		case QueueSnapshot:
			m = m.queueChanged(it)
		case WorkerChange:
			w := m.worker(it.Name)
			w.state = it.State
			w.detail = it.Detail
			if !it.State.alive() || it.State == Expired {
				w.watching = map[string]string{}
				w.woken = false
			}
			if it.State != Crashed {
				w.node = "" // a crashed worker's node is still there
			}
			if it.Detail != "" {
				m.addLog(it.Name + " " + strings.ToUpper(it.State.String()) + ": " + it.Detail)
			}
			if it.State == Stopped {
				m = m.forget(it.Name)
			}
		case Notice:
			m.addLog(it.Text)
		case event.Event:
			m = m.event(it)
		}
	}
	return m
}

// own gives m its own copy of what it shares with the model it was copied
// from: the workers, their order and the log.
func (m Model) own() Model {
	workers := make(map[string]*worker, len(m.workers))
	for n, w := range m.workers {
		c := *w
		c.watching = maps.Clone(w.watching)
		workers[n] = &c
	}
	m.workers = workers
	m.order = slices.Clone(m.order)
	m.log = slices.Clip(m.log)
	return m
}

// queueChanged takes a new snapshot of the lock dir. A node that vanished
// without its owner deleting it (a crashed or cut-off worker's) was removed
// by the server when the session expired: the log says so, since no lock
// event will.
func (m Model) queueChanged(q QueueSnapshot) Model {
	now := map[string]bool{}
	for _, n := range q.Nodes {
		now[n.Name] = true
	}
	for _, n := range m.queue.Nodes {
		if now[n.Name] || n.Owner == "" {
			continue
		}
		if w, ok := m.workers[n.Owner]; ok && (w.state == Crashed || w.state == CutOff) {
			m.addLog(fmt.Sprintf("server deleted %s: %s's session expired", shortNode(n.Name), n.Owner))
		}
	}
	m.queue = q
	return m
}

func (m Model) reset(c ChapterStarted) Model {
	m.chapter, m.path, m.dir, m.hold = c.Scene, c.Path, c.Dir, c.Hold
	m.words, m.workshop = c.Scene.Words.WithDefaults(), c.Workshop
	m.workers, m.order = map[string]*worker{}, nil
	m.queue = QueueSnapshot{Dir: c.Dir}
	m.acquired, m.requests, m.notified, m.wasted = 0, 0, 0, 0
	m.releases, m.wakes, m.wokeNow, m.wokeLast = 0, 0, 0, 0
	m.maxWoken, m.maxWaiting, m.maxHolders = 0, 0, 0
	m.cursor = -1
	m.status = ""
	for _, n := range c.Workers {
		m.worker(n)
	}
	m.addLog(fmt.Sprintf("── %s: %s", c.Scene.Name, c.Scene.Title))
	return m
}

// worker returns the named worker, adding it if it is new.
func (m *Model) worker(name string) *worker {
	if w, ok := m.workers[name]; ok {
		return w
	}
	w := &worker{name: name, watching: map[string]string{}}
	m.workers[name] = w
	m.order = append(m.order, name)
	sort.SliceStable(m.order, func(i, j int) bool { return workerLess(m.order[i], m.order[j]) })
	return w
}

// forget drops a worker that was removed cleanly: nothing of it is left
// in ZooKeeper, so nothing of it is left on screen.
func (m Model) forget(name string) Model {
	delete(m.workers, name)
	m.order = slices.DeleteFunc(slices.Clone(m.order), func(n string) bool { return n == name })
	if m.cursor >= len(m.order) {
		m.cursor = len(m.order) - 1
	}
	return m
}

// workerLess orders "worker-2" before "worker-10".
func workerLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// event folds one lock event into the model: the per-worker state and the
// counters the lesson is about.
func (m Model) event(e event.Event) Model {
	if e.Time.After(m.now) {
		m.now = e.Time
	}
	if line := m.chapter.Line(e); line != "" {
		m.addLog(protectedAnywhere.ReplaceAllString(line, ""))
	}
	if e.Owner == "" {
		return m
	}
	w := m.worker(e.Owner)
	if !w.state.alive() {
		return m // a killed worker's last gasps
	}
	// A worker cut off stays "cut off" until its session expires, and an
	// expired one stays "expired" until it is back in the queue: what its
	// lock does meanwhile (failing requests) must not hide that.
	prev := w.state
	defer func() {
		switch {
		case prev == CutOff && w.state.alive():
			w.state = CutOff
		case prev == Expired && w.state != Waiting && w.state != Holding:
			w.state = Expired
		}
	}()
	switch e.Kind {
	case event.Request:
		w.requests++
		m.requests++
		if e.Op == "delete" && w.state == Holding && e.Node == w.node && !w.releasing {
			// The holder lets go: its watchers may be told before its
			// Released event, so the release's count starts here.
			w.releasing = true
			m.wokeLast, m.wokeNow = m.wokeNow, 0
		}
		if w.state != Holding && w.state != Waiting {
			w.state = Requesting
		}
	case event.WatchSet:
		w.watching[e.Node] = e.Op
		if w.state != Holding {
			w.state = Waiting
		}
		m.maxWaiting = max(m.maxWaiting, m.count(Waiting))
	case event.Waiting:
		m = m.wokeInVain(w)
		w.state = Waiting
		m.maxWaiting = max(m.maxWaiting, m.count(Waiting))
	case event.Notified:
		delete(w.watching, e.Node)
		w.notified++
		m.notified++
		w.flashUntil = m.now.Add(m.flashFor())
		w.lastNotice = strings.TrimPrefix(e.Detail, "Event")
		if w.state == Waiting || w.state == Requesting {
			w.woken = !m.chapter.Watch // in 01 nobody competes: no wake-up is wasted
			w.state = Requesting
			m.wakes++
			m.wokeNow++
			m.maxWoken = max(m.maxWoken, m.wokeNow)
		}
	case event.Acquired:
		w.state = Holding
		w.node = e.Node
		w.woken = false
		w.releasing = false
		w.acquired++
		m.acquired++
		// A holder that has asked to delete its node is letting go: its
		// Released may come after the next holder's Acquired.
		holding := 0
		for _, o := range m.workers {
			if o.state == Holding && !o.releasing {
				holding++
			}
		}
		m.maxHolders = max(m.maxHolders, holding)
		// The holder no longer waits for anything it watched as a waiter.
		for n := range w.watching {
			if n != e.Node {
				delete(w.watching, n)
			}
		}
	case event.Released, event.Lost:
		if e.Kind == event.Lost {
			w.detail = e.Detail
		}
		w.state = Idle
		w.node = ""
		w.watching = map[string]string{}
		m.releases++
		if !w.releasing { // no delete of its own came first (01's write, a lost hold)
			m.wokeLast, m.wokeNow = m.wokeNow, 0
		}
		w.releasing = false
	}
	return m
}

// flashFor is how long a notification shows: shorter than a hold, so
// that in chapter 04 each hand-off flashes on its own.
func (m Model) flashFor() time.Duration {
	return max(150*time.Millisecond, min(flashFor, m.hold*2/3))
}

// wokeInVain counts a wasted wake-up: w was notified, and instead of
// getting the lock it went back to waiting.
func (m Model) wokeInVain(w *worker) Model {
	if w.woken {
		w.woken = false
		w.wasted++
		m.wasted++
	}
	return m
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
		if m.workers[n].state == Holding {
			return n
		}
	}
	return ""
}

// count is how many workers are in state s.
func (m Model) count(s State) int {
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
		if m.workers[n].state == Holding {
			hs = append(hs, n)
		}
	}
	return hs
}
