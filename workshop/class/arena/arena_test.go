package arena_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// TestMain starts one ZooKeeper server for the package, except in the lid
// test's child process (lid_test.go), which only plays its part.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	zktest.Main(m)
}

// room is a class with its arena, made for one test under its own root.
type room struct {
	servers []string
	code    string
	host    *arena.Arena // on the host's session
}

func newRoom(tb testing.TB) room {
	tb.Helper()
	if os.Getenv(zksession.AuthEnv) != "" {
		tb.Skip("the class makes its own digest identities; run without ZK_AUTH")
	}
	servers := zktest.Servers(tb)
	root := zktest.Root(tb) + "/class"
	code, admin := classroom.NewCode(), classroom.NewAdminSecret()
	h, err := classroom.OpenHost(zktest.Context(tb), servers, root, admin)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.Close)
	if err := h.Create(zktest.Context(tb), "arena test", code, admin); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { zktest.DeleteTree(h.Conn(), root) }) // as the host, before zktest.Root's own clean-up
	a, err := h.OpenArena(zktest.Context(tb), code, admin)
	if err != nil {
		tb.Fatal(err)
	}
	return room{servers: servers, code: code, host: a}
}

// conn opens a session that plays in the arena: the class code's identity.
func (r room) conn(tb testing.TB, timeout time.Duration) *zk.Conn {
	tb.Helper()
	c, events, err := zksession.Connect(zktest.Context(tb), r.servers, timeout)
	if err != nil {
		tb.Fatal(err)
	}
	go zksession.Drain(events)
	tb.Cleanup(c.Close)
	if err := c.AddAuth("digest", classroom.ArenaAuth(r.code)); err != nil {
		tb.Fatal(err)
	}
	return c
}

// learner is what a learner's runner opens to play: a session for the
// lock, and the counter's client, a session of its own.
type learner struct {
	name    string
	session *seqlock.Session
	counter *arena.Arena
}

func (r room) learner(tb testing.TB, name string) learner {
	tb.Helper()
	s, err := seqlock.NewSession(zktest.Context(tb), r.servers)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	if err := s.Conn().AddAuth("digest", classroom.ArenaAuth(r.code)); err != nil {
		tb.Fatal(err)
	}
	a, err := arena.Open(r.conn(tb, zksession.DefaultTimeout), r.host.Dir())
	if err != nil {
		tb.Fatal(err)
	}
	return learner{name: name, session: s, counter: a}
}

// mutex is the learner's chapter 04 lock in the class lock's directory.
func (l learner) mutex(tb testing.TB, r room, opts ...seqlock.Option) *seqlock.Mutex {
	tb.Helper()
	m, err := seqlock.New(l.session, r.host.LockDir(), append(arena.LockOptions(l.name), opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func (l learner) worker(lock arena.Locker) *arena.Worker {
	return &arena.Worker{Name: l.name, Lock: lock, Arena: l.counter}
}

// gate is an Inside that stops the worker inside until the test opens it:
// inside is closed when the worker has read the counter.
type gate struct {
	inside, open chan struct{}
}

func newGate() gate { return gate{inside: make(chan struct{}), open: make(chan struct{})} }

func (g gate) wait(ctx context.Context) error {
	close(g.inside)
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// round runs one Round in the background.
func round(ctx context.Context, w *arena.Worker) <-chan result {
	done := make(chan result, 1)
	go func() {
		out, err := w.Round(ctx)
		done <- result{out, err}
	}()
	return done
}

type result struct {
	out arena.Outcome
	err error
}

// queued waits until the class lock's queue holds n nodes.
func queued(tb testing.TB, r room, n int) []arena.Entry {
	tb.Helper()
	var q []arena.Entry
	zktest.Eventually(tb, zktest.Patience, fmt.Sprintf("%d nodes in the class lock's queue", n), func() bool {
		var err error
		q, err = r.host.Queue(context.Background())
		return err == nil && len(q) == n
	})
	return q
}

func counter(tb testing.TB, r room) arena.Counter {
	tb.Helper()
	c, _, err := r.host.Counter(zktest.Context(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func caught(tb testing.TB, r room) []arena.Catch {
	tb.Helper()
	c, err := r.host.Caught(zktest.Context(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestTwelveLocksInOneArena(t *testing.T) {
	r := newRoom(t)
	const rounds = 10
	notified := map[string]*atomic.Int64{}
	counting := func(name string) seqlock.Option {
		n := &atomic.Int64{}
		notified[name] = n
		return seqlock.WithObserver(func(e event.Event) {
			if e.Kind == event.Notified {
				n.Add(1)
			}
		})
	}
	var workers []*arena.Worker
	for i := 1; i <= 10; i++ {
		l := r.learner(t, fmt.Sprintf("sim-%02d", i))
		workers = append(workers, l.worker(l.mutex(t, r, counting(l.name))))
	}
	hana := r.learner(t, "hana")
	herdLock, err := seqlock.NewWithRule(hana.session, r.host.LockDir(), "lock-", herd, append(arena.LockOptions("hana"), counting("hana"))...)
	if err != nil {
		t.Fatal(err)
	}
	workers = append(workers, hana.worker(herdLock))
	eve := r.learner(t, "eve")
	skipper := &skipLook{conn: eve.session.Conn(), dir: r.host.LockDir(), name: "eve"}
	workers = append(workers, eve.worker(skipper))

	t.Run("ten correct locks, the herd and the lock that skips the look: every increment lands, nobody is caught", func(t *testing.T) {
		// Nobody in this crowd leaves the queue without having held, so
		// the lock that skips the look is never let in early: a quiet run
		// cannot tell it from a correct one.
		var wg sync.WaitGroup
		errs := make(chan error, len(workers))
		start := time.Now()
		for _, w := range workers {
			w.Inside = func(context.Context) error { time.Sleep(time.Millisecond); return nil } // widen the window
			wg.Go(func() { errs <- w.Run(zktest.Context(t), rounds, nil) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		elapsed := time.Since(start)
		if got, want := counter(t, r).N, int64(rounds*len(workers)); got != want {
			t.Fatalf("counter %d after %d rounds of %d workers, want %d", got, rounds, len(workers), want)
		}
		if c := caught(t, r); len(c) != 0 {
			t.Fatalf("caught %d writes in a crowd of correct locks: %v", len(c), c)
		}
		var correct int64
		for i := 1; i <= 10; i++ {
			correct += notified[fmt.Sprintf("sim-%02d", i)].Load()
		}
		// Correct, but noisy: every release woke the herd lock's waiter.
		if herdPerHold, correctPerHold := float64(notified["hana"].Load())/rounds, float64(correct)/(10*rounds); herdPerHold < 1.5*correctPerHold {
			t.Errorf("the herd lock was woken %.2f times per hold, a correct one %.2f: want the herd noisier", herdPerHold, correctPerHold)
		}
		t.Logf("%d increments in %v (%.0f hand-offs/s), none caught; notifications per hold: correct locks %.2f, the herd's %.2f",
			rounds*len(workers), elapsed.Round(time.Millisecond), float64(rounds*len(workers))/elapsed.Seconds(),
			float64(correct)/float64(10*rounds), float64(notified["hana"].Load())/float64(rounds))
	})

	t.Run("the lock that skips the look enters when a waiter ahead of it gives up, and the arena names both", func(t *testing.T) {
		before := counter(t, r).N
		ada := r.learner(t, "ada")
		holder := ada.worker(ada.mutex(t, r))
		g := newGate()
		holder.Inside = g.wait
		adaDone := round(zktest.Context(t), holder)
		zktest.Await(t, g.inside, "ada inside the class lock")

		// bob queues behind ada with a correct lock, and will give up.
		bob := r.learner(t, "bob")
		bobCtx, giveUp := context.WithCancel(zktest.Context(t))
		bobLocked := make(chan error, 1)
		go func() { bobLocked <- bob.mutex(t, r).Lock(bobCtx) }()
		queued(t, r, 2)
		// eve's skipper queues behind bob: bob is its predecessor.
		eveWorker := workers[len(workers)-1]
		eveWorker.Inside = nil
		eveDone := round(zktest.Context(t), eveWorker)
		q := queued(t, r, 3)
		t.Logf("queue: %s, %s, %s", q[0].Name, q[1].Name, q[2].Name)

		giveUp() // bob's node goes: eve's watch fires while ada still holds
		if err := zktest.Await(t, bobLocked, "bob gives up"); !errors.Is(err, context.Canceled) {
			t.Fatalf("bob's Lock: %v, want context.Canceled", err)
		}
		eveOut := zktest.Await(t, eveDone, "eve's round")
		if eveOut.err != nil || !eveOut.out.Wrote {
			t.Fatalf("eve's round: %+v, %v: want her write to land (ada has not written yet)", eveOut.out, eveOut.err)
		}
		close(g.open)
		adaOut := zktest.Await(t, adaDone, "ada's round")
		if adaOut.err != nil {
			t.Fatal(adaOut.err)
		}
		c := adaOut.out.Caught
		if c == nil || c.Kind != arena.TwoInside || c.Writer != "ada" || c.Other != "eve" || c.OutOfTurn() != "eve" {
			t.Fatalf("ada's round: %+v, want her write caught as two inside, naming eve, out of turn", adaOut.out)
		}
		t.Logf("caught: %v", c)
		recorded := caught(t, r)
		if len(recorded) != 1 || recorded[0].Writer != "ada" || recorded[0].Other != "eve" {
			t.Fatalf("caught/ holds %v, want ada's catch naming eve", recorded)
		}
		if got := counter(t, r); got.N != before+1 || got.Writer != "eve" {
			t.Fatalf("counter %+v, want %d written by eve (ada's was refused)", got, before+1)
		}
	})
}

func TestTakeOut(t *testing.T) {
	t.Run("the host takes a holder out: the next waiter enters while the holder still believes it holds, and its write is caught", func(t *testing.T) {
		r := newRoom(t)
		ada, bob := r.learner(t, "ada"), r.learner(t, "bob")
		adaLock := ada.mutex(t, r)
		holder := ada.worker(adaLock)
		g := newGate()
		holder.Inside = g.wait
		adaDone := round(zktest.Context(t), holder)
		zktest.Await(t, g.inside, "ada inside the class lock")
		bobDone := round(zktest.Context(t), bob.worker(bob.mutex(t, r)))
		queued(t, r, 2)

		gone, err := r.host.TakeOut(zktest.Context(t), "ada")
		if err != nil || len(gone) != 1 {
			t.Fatalf("TakeOut(ada): %v, %v", gone, err)
		}
		bobOut := zktest.Await(t, bobDone, "bob's round once ada is out")
		if bobOut.err != nil || !bobOut.out.Wrote {
			t.Fatalf("bob's round: %+v, %v", bobOut.out, bobOut.err)
		}
		// A holder watches nothing: ada's lock has not noticed.
		select {
		case <-adaLock.Lost():
			t.Fatal("ada's Lost closed: her lock noticed the take-out (this lock watches nothing while it holds)")
		default:
		}
		if adaLock.Node() != gone[0] {
			t.Fatalf("ada's Node() = %q, want %s: she still believes she holds", adaLock.Node(), gone[0])
		}
		t.Logf("bob wrote count %d while ada still believes she holds %s", bobOut.out.Count, gone[0])

		close(g.open)
		adaOut := zktest.Await(t, adaDone, "ada's round")
		if adaOut.err != nil {
			t.Fatal(adaOut.err)
		}
		c := adaOut.out.Caught
		if c == nil || c.Kind != arena.NodeGone || c.Writer != "ada" || c.Other != "bob" {
			t.Fatalf("ada's round: %+v, want her write refused (node gone), naming bob", adaOut.out)
		}
		t.Logf("caught: %v", c)
		if got := counter(t, r); got.N != 1 || got.Writer != "bob" {
			t.Fatalf("counter %+v, want 1 by bob", got)
		}
		if recorded := caught(t, r); len(recorded) != 1 || recorded[0].Kind != arena.NodeGone {
			t.Fatalf("caught/ holds %v", recorded)
		}
	})

	t.Run("any learner may delete anyone's lock node: DELETE is checked against the parent's ACL", func(t *testing.T) {
		r := newRoom(t)
		ada := r.learner(t, "ada")
		m := ada.mutex(t, r)
		if err := m.Lock(zktest.Context(t)); err != nil {
			t.Fatal(err)
		}
		node := m.Node()
		carol := r.conn(t, zksession.DefaultTimeout) // a classmate: the class code, nothing of ada's
		acl, _, err := carol.GetACL(node)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(acl, arena.NodeACL()) {
			t.Fatalf("ada's node's ACL %v, want %v", acl, arena.NodeACL())
		}
		if _, err := carol.Set(node, []byte("carol"), -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("carol sets ada's node: %v, want ErrNoAuth (the node's own ACL: anyone may read, nobody write)", err)
		}
		if err := carol.Delete(node, -1); err != nil {
			t.Fatalf("carol deletes ada's node: %v, want it deleted (the parent's ACL lets players delete)", err)
		}
		t.Logf("ada's node's ACL %v refuses carol's write (%v) and lets her delete it", acl, zk.ErrNoAuth)
		if err := m.Unlock(zktest.Context(t)); !errors.Is(err, seqlock.ErrLost) {
			t.Fatalf("ada's Unlock after carol's delete: %v, want ErrLost", err)
		}
	})
}

func TestPauseAndResume(t *testing.T) {
	r := newRoom(t)
	ada := r.learner(t, "ada")
	w := ada.worker(ada.mutex(t, r))
	if err := r.host.Pause(zktest.Context(t)); err != nil {
		t.Fatal(err)
	}
	done := round(zktest.Context(t), w)
	select {
	case res := <-done:
		t.Fatalf("a round in a paused arena: %+v, %v", res.out, res.err)
	case <-time.After(300 * time.Millisecond):
	}
	if q, err := r.host.Queue(zktest.Context(t)); err != nil || len(q) != 0 {
		t.Fatalf("paused, the queue holds %v (%v), want nobody", q, err)
	}
	if err := r.host.Resume(zktest.Context(t)); err != nil {
		t.Fatal(err)
	}
	if res := zktest.Await(t, done, "the round once resumed"); res.err != nil || !res.out.Wrote {
		t.Fatalf("round after Resume: %+v, %v", res.out, res.err)
	}
}

func TestWhatALearnerMayDoInTheArena(t *testing.T) {
	r := newRoom(t)
	ada := r.learner(t, "ada")
	w := ada.worker(ada.mutex(t, r))
	if _, err := w.Round(zktest.Context(t)); err != nil {
		t.Fatal(err)
	}
	carol := r.conn(t, zksession.DefaultTimeout) // the class code, as every learner has it
	dir := r.host.Dir()
	t.Run("a learner can neither pause the arena nor change its ACLs", func(t *testing.T) {
		if _, err := carol.Create(dir+"/paused", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("carol pauses the arena: %v, want ErrNoAuth", err)
		}
		if _, err := carol.SetACL(r.host.LockDir(), zk.WorldACL(zk.PermAll), -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("carol opens the lock directory to the world: %v, want ErrNoAuth", err)
		}
	})
	t.Run("a learner may record a catch but not erase one", func(t *testing.T) {
		record := dir + "/caught/forged"
		if _, err := carol.Create(record, []byte(`{"kind":"two-inside","writer":"carol","other":"ada"}`), 0, arena.NodeACL()); err != nil {
			t.Fatalf("carol records a catch: %v", err)
		}
		if err := carol.Delete(record, -1); !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("carol erases a catch: %v, want ErrNoAuth (caught grants no delete)", err)
		}
	})
	t.Run("a learner may set the counter without the lock: the arena trusts what workers write", func(t *testing.T) {
		// Players must write the counter, and an ACL cannot say "only
		// while holding the lock": that is the multi's job, and only for
		// writers who use it. A forged write is seen as two inside by
		// whoever holds the lock then.
		if _, err := carol.Set(dir+"/counter", []byte(`{"n":1000,"writer":"carol"}`), -1); err != nil {
			t.Fatalf("carol sets the counter: %v", err)
		}
		if c := counter(t, r); c.N != 1000 || c.Writer != "carol" {
			t.Fatalf("counter %+v", c)
		}
	})
}
