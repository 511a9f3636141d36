package world

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// zktest.Main also fails the package if a goroutine is left running.
func TestMain(m *testing.M) { zktest.Main(m) }

// bound is how long a step may take before the test fails. A call that
// waited behind a worker's stop would take stopWait (10 s) or forever.
const bound = 5 * time.Second

// gated is a scene whose code tells the test when it began and, where
// the test asks, waits for the test's word (a lock or a server that hangs).
type gated struct {
	newWorker chan int      // worker i's NewWorker began
	unlocking chan string   // a worker's Unlock began
	release   chan struct{} // closed by open: every wait below ends
	once      sync.Once
	slowNew   int  // this worker's NewWorker waits for release
	slowUnl   bool // every Unlock waits for release
}

func newGated() *gated {
	return &gated{newWorker: make(chan int, 16), unlocking: make(chan string, 16), release: make(chan struct{})}
}

// open ends every wait, now and later.
func (g *gated) open() { g.once.Do(func() { close(g.release) }) }

func (g *gated) scene(key string) scene.Scene {
	return scene.Scene{Key: key, Name: key + "-gated", Title: "a lock that hangs where the test says",
		NewWorker: func(w scene.Worker) (scene.Part, error) {
			g.newWorker <- w.Index
			if w.Index == g.slowNew {
				<-g.release
			}
			return part{g, w.Name}, nil
		}}
}

type part struct {
	g    *gated
	name string
}

func (p part) Lock(context.Context) error { return nil }

func (p part) Unlock(context.Context) error {
	select {
	case p.g.unlocking <- p.name:
	default: // the test has heard enough: a busy worker must not wait on it
	}
	if p.g.slowUnl {
		<-p.g.release // ignores its ctx, as a hung lock would
	}
	return nil
}

// start makes a world on the test's server and root, and a feed of what
// it tells the view. Cleanup ends the scenes' waits first, then closes it.
func start(t *testing.T, g *gated, hold time.Duration, scenes ...scene.Scene) (*World, <-chan worldmsg.Msg) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	w, err := New(ctx, Config{Servers: zktest.Servers(t), Scenes: scenes, Base: zktest.Root(t), Hold: hold})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	feed := feedOf(t, w)
	t.Cleanup(g.open) // first: the scenes' waits end, then w closes (feedOf)
	if err := w.Start(scenes[0], 1); err != nil {
		t.Fatal(err)
	}
	return w, feed
}

// feedOf is what w tells the view, until the test ends (then w is closed).
func feedOf(t *testing.T, w *World) <-chan worldmsg.Msg {
	feed, stop, done := make(chan worldmsg.Msg), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for items := w.Next(); items != nil; items = w.Next() {
			for _, it := range items {
				select {
				case feed <- it:
				case <-stop:
				}
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		w.Close()
		<-done
	})
	return feed
}

// await reads the feed until want says yes; it fails after bound.
func await(t *testing.T, feed <-chan worldmsg.Msg, what string, want func(worldmsg.Msg) bool) {
	t.Helper()
	deadline := time.After(bound)
	for {
		select {
		case it := <-feed:
			if want(it) {
				return
			}
		case <-deadline:
			t.Fatalf("no %s within %v", what, bound)
		}
	}
}

// within fails unless f returns within bound.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("%s did not return within %v: it waits behind another call", what, bound)
	}
}

// built waits for worker i's NewWorker to begin.
func built(t *testing.T, g *gated, i int) {
	t.Helper()
	select {
	case got := <-g.newWorker:
		if got != i {
			t.Fatalf("worker-%d was built, want worker-%d", got, i)
		}
	case <-time.After(bound):
		t.Fatalf("worker-%d was never built", i)
	}
}

func change(name string, s worldmsg.State) func(worldmsg.Msg) bool {
	return func(it worldmsg.Msg) bool {
		c, ok := it.(worldmsg.WorkerChange)
		return ok && c.Name == name && c.State == s
	}
}

// While a new worker is still being built (its session dialled, its lock
// made: a slow server, a hung scene), the keys' other calls go through.
func TestAKillGoesThroughWhileAnotherWorkerIsStillBeingBuilt(t *testing.T) {
	g := newGated()
	g.slowNew = 2
	w, feed := start(t, g, 50*time.Millisecond, g.scene("90"))
	built(t, g, 1) // by Start
	within(t, "AddWorker", w.AddWorker)
	built(t, g, 2) // and it hangs there

	within(t, "Kill, while worker-2's NewWorker hangs,", func() { w.Kill("worker-1") })
	await(t, feed, "worker-1 crashed", change("worker-1", worldmsg.Crashed))
	within(t, "SetPaused", func() { w.SetPaused(true) })
	within(t, "RemoveWorker", w.RemoveWorker) // nobody is left to remove: worker-1 is dead, worker-2 not yet there

	g.open()
	await(t, feed, "worker-2 joining once built", change("worker-2", worldmsg.Idle))
}

// A chapter switch waits for the old chapter's workers to unlock (up to
// stopWait); the keys' calls meanwhile return at once, and a worker added
// during the switch joins the new chapter.
func TestTheKeysGoThroughWhileASwitchWaitsForAStop(t *testing.T) {
	g := newGated()
	g.slowUnl = true
	// The hold outlasts the test: worker-1 unlocks only when stopped.
	w, feed := start(t, g, time.Hour, g.scene("90"), g.scene("91"))
	built(t, g, 1)
	await(t, feed, "worker-1 started", change("worker-1", worldmsg.Idle))

	within(t, "Switch", func() { w.Switch("91") })
	select {
	case <-g.unlocking: // the switch stopped worker-1, whose Unlock hangs
	case <-time.After(bound):
		t.Fatal("the switch never stopped worker-1")
	}
	within(t, "Kill, while the switch waits for worker-1's Unlock,", func() { w.Kill("worker-1") })
	within(t, "Expire", func() { w.Expire("worker-1") })
	within(t, "RemoveWorker", w.RemoveWorker)
	within(t, "SetPaused", func() { w.SetPaused(false) })
	within(t, "SetHold", func() { w.SetHold(time.Hour) })
	within(t, "AddWorker", w.AddWorker)
	select {
	case <-g.newWorker:
		t.Fatal("a worker was built before the old chapter had stopped")
	default:
	}

	g.open()
	await(t, feed, "chapter 91", func(it worldmsg.Msg) bool { c, ok := it.(worldmsg.ChapterStarted); return ok && c.Scene.Key == "91" })
	await(t, feed, "91's worker-2, added during the switch", change("worker-2", worldmsg.Idle))
}

// x: a removed worker unlocks on its way out, and its lock says so (its
// Released). The view hears "stopped" after that, never before: a late
// event of a worker the view has dropped would bring its row back (the
// ghost row of 04 and 09).
func TestARemovedWorkerIsReportedStoppedAfterItsLastEvent(t *testing.T) {
	released := scene.Scene{Key: "92", Name: "92-released", Title: "a lock that says when it lets go",
		NewWorker: func(w scene.Worker) (scene.Part, error) { return telling{w.Observer}, nil }}
	// The hold outlasts the test: worker-1 unlocks only when removed.
	w, feed := start(t, newGated(), time.Hour, released)
	await(t, feed, "worker-1 holding", func(it worldmsg.Msg) bool {
		e, ok := it.(worldmsg.LockEvent)
		return ok && e.Owner == "worker-1" && e.Kind == event.Acquired
	})
	within(t, "RemoveWorker", w.RemoveWorker)
	await(t, feed, "worker-1's Released, then its stop", func(it worldmsg.Msg) bool {
		if e, ok := it.(worldmsg.LockEvent); ok && e.Owner == "worker-1" && e.Kind == event.Released {
			return true
		}
		if c, ok := it.(worldmsg.WorkerChange); ok && c.Name == "worker-1" && c.State == worldmsg.Stopped {
			t.Fatal("worker-1 was reported stopped before its lock said it released")
		}
		return false
	})
	await(t, feed, "worker-1 stopped", change("worker-1", worldmsg.Stopped))
}

// telling is a lock that reports its hold and its release.
type telling struct{ obs event.Observer }

func (p telling) Lock(context.Context) error {
	p.obs.Emit(event.Event{Kind: event.Acquired, Node: "/n"})
	return nil
}

func (p telling) Unlock(context.Context) error {
	p.obs.Emit(event.Event{Kind: event.Released, Node: "/n"})
	return nil
}
