package tui

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The model is a fold of what happened: apply takes one batch from the
// world (ChapterStarted, QueueSnapshot, WorkerChange, Notice, LockEvent)
// and returns the model after it, leaving the one it was given as it was.

// apply folds a batch of happenings into the model. It works on a copy
// of the workers, so the model it was given is left as it was (Update is
// pure: a test can branch two futures off one model).
func (m Model) apply(items []worldmsg.Msg) Model {
	m = m.own()
	for _, it := range items {
		switch it := it.(type) {
		case worldmsg.ChapterStarted:
			m = m.reset(it)
		case worldmsg.QueueSnapshot:
			m = m.queueChanged(it)
		case worldmsg.WorkerChange:
			if m.gone[it.Name] {
				continue // removed: nothing of it comes back
			}
			w := m.worker(it.Name)
			if (it.State == worldmsg.Crashed || it.State == worldmsg.CutOff || it.State == worldmsg.Stopped) && (w.state == worldmsg.Waiting || w.state == worldmsg.Requesting) {
				m = m.abandon(it.Name)
			}
			if (it.State == worldmsg.Crashed || it.State == worldmsg.CutOff) && w.state == worldmsg.Holding {
				// A holder that dies says nothing more: the server deletes
				// its node when its session expires (queueChanged counts
				// that release), and whoever that wakes is woken by it, not
				// by the hand-off before it. One cut off lets go the same
				// way, and reports its Lost only when it hears of it, often
				// after its successor was woken: that Lost is this release
				// (releasing), and starts no count of its own.
				m = m.releaseBegins(w.node)
				if it.State == worldmsg.CutOff {
					w.releasing = true
				}
			}
			w.state = it.State
			w.detail = it.Detail
			if !it.State.Alive() || it.State == worldmsg.Expired {
				w.watching = map[string]event.Op{}
				w.woken = false
			}
			if it.State != worldmsg.Crashed {
				w.node = "" // a crashed worker's node is still there
			}
			if detail := m.detail(it); detail != "" {
				m.addLog(fmt.Sprintf(m.say().WorkerChanged, it.Name, m.stateWord(it.State), detail))
			}
			if it.Session != 0 {
				m.status = fmt.Sprintf(m.say().StatusNewSession, it.Name, it.Session)
				m.addLog(m.status)
			}
			if it.State == worldmsg.Stopped {
				m = m.forget(it.Name)
			}
		case worldmsg.Notice:
			m.addLog(m.notice(it))
		case worldmsg.LockEvent:
			m = m.event(it.Event)
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
	m.gone = maps.Clone(m.gone)
	m.abandoned = maps.Clone(m.abandoned)
	m.order = slices.Clone(m.order)
	m.log = slices.Clip(m.log)
	return m
}

// queueChanged takes a new snapshot of the lock dir. A node that vanished
// without its owner deleting it (a crashed or cut-off worker's) was removed
// by the server when the session expired: the log says so, since no lock
// event will.
func (m Model) queueChanged(q worldmsg.QueueSnapshot) Model {
	now := map[string]bool{}
	for _, n := range q.Nodes {
		now[n.Name] = true
	}
	for _, n := range m.queue.Nodes {
		if now[n.Name] || n.Owner == "" {
			continue
		}
		if w, ok := m.workers[n.Owner]; ok && (w.state == worldmsg.Crashed || w.state == worldmsg.CutOff) {
			m.addLog(fmt.Sprintf(m.say().ServerDeleted, shortNode(n.Name), n.Owner))
			if w.state == worldmsg.Crashed && path.Base(w.node) == n.Name {
				m.releases++ // it held: a crashed worker keeps only the node it held
			}
		}
	}
	m.queue = q
	return m
}

func (m Model) reset(c worldmsg.ChapterStarted) Model {
	m.chapter, m.path, m.dir, m.hold = c.Scene, c.Path, c.Dir, c.Hold
	m.words, m.look, m.expect = c.Scene.In(m.lang)
	m.workshop = c.Workshop
	m.workers, m.order, m.gone = map[string]*worker{}, nil, nil
	m.queue = worldmsg.QueueSnapshot{Dir: c.Dir}
	m.acquired, m.requests, m.notified, m.wasted = 0, 0, 0, 0
	m.releases, m.wakes, m.wokeNow, m.wokeLast = 0, 0, 0, 0
	m.releaseQueue, m.abandoned = "", nil
	m.maxWoken, m.maxWaiting, m.maxHolders = 0, 0, 0
	m.cursor = -1
	m.status = ""
	for _, n := range c.Workers {
		m.worker(n)
	}
	m.addLog(fmt.Sprintf("── %s: %s", c.Scene.Name, c.Scene.TitleIn(m.lang)))
	return m
}

// worker returns the named worker, adding it if it is new.
func (m *Model) worker(name string) *worker {
	if w, ok := m.workers[name]; ok {
		return w
	}
	w := &worker{name: name, watching: map[string]event.Op{}}
	m.workers[name] = w
	m.order = append(m.order, name)
	sort.SliceStable(m.order, func(i, j int) bool { return workerLess(m.order[i], m.order[j]) })
	return w
}

// forget drops a worker that was removed cleanly: nothing of it is left
// in ZooKeeper, so nothing of it is left on screen, and nothing it still
// says (a late event) brings it back.
func (m Model) forget(name string) Model {
	delete(m.workers, name)
	if m.gone == nil {
		m.gone = map[string]bool{}
	}
	m.gone[name] = true
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

// effect is what a request does to the queue of lock nodes the view draws.
type effect int

const (
	stays   effect = iota + 1 // the queue stays as it is: a read, a watch, a node's data
	adds                      // a node may join (a sequential create names its prefix)
	removes                   // a node leaves: a waiter giving up, a holder letting go
)

// effects is every request a lock reports (event.Ops) and what it does to
// the queue; the fold and the replay's queue read it. An op missing here
// would be drawn as if it changed nothing: TestTheViewKnowsEveryOp fails
// first.
var effects = map[event.Op]effect{
	event.OpCreate: adds, event.OpDelete: removes,
	event.OpGet: stays, event.OpExists: stays, event.OpChildren: stays, event.OpSet: stays,
}

// event folds one lock event into the model: the per-worker state and the
// counters the lesson is about.
func (m Model) event(e event.Event) Model {
	if e.Time.After(m.now) {
		m.now = e.Time
	}
	if line := m.line(e); line != "" {
		m.addLog(protectedAnywhere.ReplaceAllString(line, ""))
	}
	if e.Owner == "" || m.gone[e.Owner] {
		return m
	}
	w := m.worker(e.Owner)
	if !w.state.Alive() {
		return m // a killed worker's last gasps
	}
	// A worker cut off stays "cut off" until its session expires, and an
	// expired one stays "expired" until it is back in the queue: what its
	// lock does meanwhile (failing requests) must not hide that.
	prev := w.state
	defer func() {
		switch {
		case prev == worldmsg.CutOff && w.state.Alive():
			w.state = worldmsg.CutOff
		case prev == worldmsg.Expired && w.state != worldmsg.Waiting && w.state != worldmsg.Holding:
			w.state = worldmsg.Expired
		}
	}()
	switch e.Kind {
	case event.Request:
		w.requests++
		m.requests++
		if effects[e.Op] == removes && (w.state == worldmsg.Waiting || w.state == worldmsg.Requesting) {
			m = m.abandonNode(e.Node) // a waiter that gives up deletes its node
		}
		if effects[e.Op] == removes && w.state == worldmsg.Holding && e.Node == w.node && !w.releasing {
			// The holder lets go: its watchers may be told before its
			// Released event, so the release's count starts here.
			w.releasing = true
			m = m.releaseBegins(e.Node)
		}
		if w.state != worldmsg.Holding && w.state != worldmsg.Waiting {
			w.state = worldmsg.Requesting
		}
	case event.WatchSet:
		w.watching[e.Node] = e.Op
		if w.state != worldmsg.Holding {
			w.state = worldmsg.Waiting
		}
		m.maxWaiting = max(m.maxWaiting, m.count(worldmsg.Waiting))
	case event.Waiting:
		m = m.wokeInVain(w, e.Node)
		w.state = worldmsg.Waiting
		m.maxWaiting = max(m.maxWaiting, m.count(worldmsg.Waiting))
	case event.Notified:
		delete(w.watching, e.Node)
		w.notified++
		m.notified++
		w.flashUntil = m.now.Add(m.flashFor())
		w.lastNotice = strings.TrimPrefix(e.Fired.String(), "Event")
		if m.abandoned[e.Node] || e.Fired == zk.EventNotWatching {
			// (EventNotWatching: the watch went with the session, as it
			// ended; nothing was released.)
			// Its predecessor gave up, or died, while waiting: no release
			// woke it, and its looking again is the queue's repair (04's
			// TestAWaiterThatGivesUpDoesNotHandTheLockOn), not a wasted wake-up.
			w.woken = false
			if w.state == worldmsg.Waiting {
				w.state = worldmsg.Requesting
			}
		} else if w.state == worldmsg.Waiting || w.state == worldmsg.Requesting {
			w.woken = !m.chapter.Watch // in 01 nobody competes: no wake-up is wasted
			w.wokenFrom = queueOfNode(e.Node)
			w.state = worldmsg.Requesting
			// A release wakes those who wait in its own queue. A wake-up in
			// another queue is that queue's hand-off (09: the gate opens for
			// the next client while a lease goes): not this release's.
			if m.releaseQueue == "" || w.wokenFrom == m.releaseQueue {
				m.wakes++
				m.wokeNow++
				m.maxWoken = max(m.maxWoken, m.wokeNow)
			}
		}
	case event.Acquired:
		w.state = worldmsg.Holding
		w.node = e.Node
		w.woken = false
		w.releasing = false
		w.acquired++
		m.acquired++
		// A holder that has asked to delete its node is letting go: its
		// Released may come after the next holder's Acquired.
		holding := 0
		for _, o := range m.workers {
			if o.state == worldmsg.Holding && !o.releasing {
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
		w.state = worldmsg.Idle
		w.node = ""
		w.watching = map[string]event.Op{}
		m.releases++
		if !w.releasing { // no delete of its own came first (01's write, a lost hold)
			m = m.releaseBegins(cmp.Or(e.Node, w.node))
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
// getting the lock it went back to waiting on node, in the queue it was
// woken from (03's herd, 04's re-listing after a waiter ahead left). One
// woken in a queue that now waits in another has moved on: 09's gate
// hand-off, after which the gate's new holder waits behind the leases.
func (m Model) wokeInVain(w *worker, node string) Model {
	if w.woken && queueOfNode(node) == w.wokenFrom {
		w.wasted++
		m.wasted++
	}
	w.woken = false
	return m
}

// abandon marks the nodes a worker that did not hold leaves behind (the
// queue's, by their owner): whom their delete wakes, no release woke.
func (m Model) abandon(name string) Model {
	for _, q := range m.queue.Nodes {
		if q.Owner == name {
			m = m.abandonNode(m.queue.Dir + "/" + q.Name)
		}
	}
	return m
}

func (m Model) abandonNode(node string) Model {
	if m.abandoned == nil {
		m.abandoned = map[string]bool{}
	}
	m.abandoned[node] = true
	return m
}

// releaseBegins starts the count of whom the release of node wakes.
func (m Model) releaseBegins(node string) Model {
	m.wokeLast, m.wokeNow = m.wokeNow, 0
	m.releaseQueue = queueOfNode(node)
	return m
}

// queueOfNode is the queue a node stands in: its directory for a sequential
// node (04's lock-0000000012, 09's gate and lease nodes), the node itself
// otherwise (03's one lock node; a directory whose children are watched,
// as 09's gate holder watches leases).
func queueOfNode(node string) string {
	if node == "" {
		return ""
	}
	if sequenceOf(path.Base(node)) >= 0 {
		return path.Dir(node)
	}
	return node
}
