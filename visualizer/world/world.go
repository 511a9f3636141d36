// Package world is the live side of the visualizer: K workers, each with
// its own ZooKeeper session (through its own proxy, so that one can be
// killed or cut off), run a chapter's real lock against a real server,
// while a children watch on the lock directory reads the queue as
// ZooKeeper has it. The view (visualizer/tui) learns what happens from the
// world's typed messages (visualizer/worldmsg: ChapterStarted,
// QueueSnapshot, …), in batches of at most one a frame, and its keys act on
// the world through the view's Controller interface, which World
// implements; the world does not import the view. The world knows no
// chapter: it runs the scenes (visualizer/scene) it is given.
//
// The files, one concern each:
//
//	world.go    the World, what it is given, who owns which state, Close
//	control.go  the keys' calls, and the director that changes the cast
//	workers.go  one worker: its session, its lock's life, its stop
//	watch.go    the lock directory's children and each session's state
//	(worldmsg.Inbox: what happened, batched into one message a frame)
//	gate.go     the pause gate
//	panic.go    a scene's panic, caught and turned into a *PanicError
package world

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// Config is what a World runs. Servers is required; the zero values of
// the others are the visualizer's defaults.
type Config struct {
	Servers []string      // host:port of each server
	Scenes  []scene.Scene // the chapters Switch may start, by key
	Hold    time.Duration // time inside the critical section; default 300ms
	Session time.Duration // session timeout asked for; default zksession.DefaultTimeout
	// Base is the znode under which each chapter gets its own. Default: a
	// root of this run's own, /lockstep/visualizer/run-<random>, deleted on
	// Close, so that learners sharing one server never meet.
	Base string
	// Workshop: the scenes run the learner's lock (the visualizer was built
	// with -tags workshop and an -overlay); the view's header says so.
	Workshop bool
}

// Check fills in c's defaults and says what is wrong with it (Servers
// aside, which may be provisioned later), before anything connects.
func (c *Config) Check() error {
	if c.Hold == 0 {
		c.Hold = 300 * time.Millisecond
	}
	if c.Session == 0 {
		c.Session = zksession.DefaultTimeout
	}
	switch {
	case c.Hold < 0:
		return fmt.Errorf("world: hold %v: want ≥ 0", c.Hold)
	case c.Session < 0:
		return fmt.Errorf("world: session %v: want > 0", c.Session)
	case c.Base != "" && !strings.HasPrefix(c.Base, "/") || strings.HasSuffix(c.Base, "/") || strings.Contains(c.Base, "//"):
		return fmt.Errorf("world: path %q: want an absolute znode path like /lockstep/visualizer", c.Base)
	}
	return nil
}

// World is the running world. It implements the view's World interface
// (visualizer/tui): visualizer/run.go hands it to tui.Run, which the
// compiler checks.
//
// Who owns what. Three kinds of goroutine touch a World: the view's
// commands (the Controller calls), the director (control.go: the one
// goroutine that starts and stops chapters and adds workers, one change
// at a time), and each worker's own goroutines. So:
//   - the director alone owns the chapter, its lock path, the worker
//     count and the directory watch: no lock needed;
//   - mu guards only what the others read: the list of workers and the
//     session → worker names. It is never held across a dial, a
//     ZooKeeper call or a wait: a call copies out what it needs under mu,
//     lets go, and acts outside it (a 10 s stop, an expiry, a dial);
//   - the pace, the pause gate and the chapter's generation are atomics.
type World struct {
	ctx      context.Context
	cancel   context.CancelFunc
	cfg      Config
	ownBase  bool // cfg.Base is this run's own root: delete it on Close
	admin    *zk.Conn
	inbox    *worldmsg.Inbox
	wg       sync.WaitGroup
	jobs     chan func() // the director's work, in order
	directed chan struct{}

	failOnce sync.Once
	failed   chan struct{} // closed when a scene's code panicked: the view must end
	failure  error         // the *PanicError, once failed is closed

	hold   atomic.Int64 // time.Duration
	gen    atomic.Int64 // bumped on every chapter change; older events are dropped
	paused gate

	// The director's own: nobody else reads these.
	chapter scene.Scene
	path    string
	nextID  int
	stopDir context.CancelFunc
	dirDone chan struct{}

	mu       sync.Mutex       // guards the two below, and nothing else; never held across a wait
	workers  []*worker        // this chapter's, in the order they started
	sessions map[int64]string // session ID → worker name, for the queue's owners
}

// New connects the world's own (admin) session and starts the director.
// No worker runs until Start.
func New(ctx context.Context, cfg Config) (*World, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if len(cfg.Servers) == 0 {
		return nil, errors.New("world: no servers")
	}
	ownBase := cfg.Base == ""
	if ownBase {
		cfg.Base = "/lockstep/visualizer/run-" + randhex.String(4)
	}
	admin, events, err := zksession.Connect(ctx, cfg.Servers, cfg.Session)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &World{ctx: ctx, cancel: cancel, cfg: cfg, ownBase: ownBase, admin: admin,
		inbox: worldmsg.NewInbox(time.Second / 30), jobs: make(chan func(), 64), directed: make(chan struct{}),
		failed: make(chan struct{}), sessions: map[int64]string{}}
	w.hold.Store(int64(cfg.Hold))
	w.paused.set(false)
	w.wg.Add(1)
	go func() { defer w.wg.Done(); zksession.Drain(events) }()
	go w.direct()
	return w, nil
}

// Next implements tui.Source: what happened since the last batch, at most
// one batch a frame; nil once the world is closed.
func (w *World) Next() []worldmsg.Msg { return w.inbox.Next() }

// Pending is what happened so far, without waiting (the -frames mode).
func (w *World) Pending() []worldmsg.Msg { return w.inbox.Take() }

func (w *World) holdTime() time.Duration { return time.Duration(w.hold.Load()) }

// Close stops everything the world started and deletes what it created.
func (w *World) Close() {
	w.cancel() // ends the director's current change and every worker's wait
	<-w.directed
	w.stopAll() // the director is gone: its state is ours now
	if w.ownBase {
		// The run's own root, then its parents while they are empty
		// (another run may still be under /lockstep/visualizer).
		w.cleanup(w.cfg.Base)
		for d := path.Dir(w.cfg.Base); d != "/"; d = path.Dir(d) {
			if w.admin.Delete(d, -1) != nil {
				break
			}
		}
	}
	w.paused.set(false)
	w.admin.Close()
	w.inbox.Close()
	w.wg.Wait()
}
