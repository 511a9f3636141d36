package seqlock_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func newMutex(t testing.TB, s *seqlock.Session, dir string, opts ...seqlock.Option) *seqlock.Mutex {
	t.Helper()
	m, err := seqlock.New(s, dir, opts...)
	if err != nil {
		t.Fatalf("New(%q): %v", dir, err)
	}
	return m
}

// waitQueue waits until dir's queue has n nodes.
func waitQueue(t testing.TB, conn *zk.Conn, dir string, n int) []seqlock.Participant {
	t.Helper()
	var ps []seqlock.Participant
	zktest.Eventually(t, zktest.Patience, fmt.Sprintf("the queue of %s never reached %d nodes", dir, n), func() bool {
		var err error
		ps, err = seqlock.Participants(zktest.Context(t), conn, dir)
		return err == nil && len(ps) == n
	})
	return ps
}

// knowDir has s make dir once, so that its Session skips creating it on
// the next Lock (a Session remembers the directories it made), and a test
// that slows the link down slows the lock's own requests alone.
//
// A TryLock that waits says so before it waits (event.Waiting, once its
// watch is set): that is the first evidence, and the test stops there,
// not 3 s later (tryLock).
func knowDir(t testing.TB, s *seqlock.Session, dir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(zktest.Context(t))
	defer cancel()
	var waited atomic.Value // the node it watched
	m := newMutex(t, s, dir, seqlock.WithObserver(func(e event.Event) {
		if e.Kind == event.Waiting {
			waited.CompareAndSwap(nil, e.Node)
			cancel()
		}
	}))
	err := tryLock(t, ctx, m, dir)
	if node, ok := waited.Load().(string); ok {
		t.Fatalf("TryLock on a held lock was still waiting: on %s it set a watch on %s and waited (event.Waiting) instead of giving up with ErrLocked: with wait false, waitTurn must not wait", dir, node)
	}
	switch {
	case errors.Is(err, seqlock.ErrLocked):
	case err != nil:
		t.Fatal(err)
	default:
		if err := m.Unlock(zktest.Context(t)); err != nil {
			t.Fatal(err)
		}
	}
}

// tryLock is m.TryLock, which answers at once, held or not: one still busy
// after a few seconds is waiting like Lock, and the test stops there.
func tryLock(t testing.TB, ctx context.Context, m *seqlock.Mutex, dir string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	err := m.TryLock(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryLock on %s waited 3s instead of giving up with ErrLocked: with wait false, waitTurn must not wait", dir)
	}
	return err
}

func waitClosed(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(zktest.Patience):
		t.Fatalf("after %v: %s", zktest.Patience, what)
	}
}

func TestConformance(t *testing.T) {
	locktest.Run(t, locktest.Impl{
		Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
			s := seqlocktest.Session(tb)
			return s.Conn(), func(p string, obs event.Observer) (locktest.Locker, error) {
				return seqlock.New(s, p, seqlock.WithObserver(obs))
			}
		},
		ErrNotHeld: seqlock.ErrNotHeld,
		ErrLocked:  seqlock.ErrLocked,
	})
}

func TestQueue(t *testing.T) {
	t.Run("one release wakes exactly one waiter", func(t *testing.T) {
		const waiters = 5
		root := zktest.Root(t)
		dir := root + "/lock"
		as := seqlocktest.Session(t)
		admin := as.Conn()
		var tally event.Tally
		ctx := zktest.Context(t)

		holder := newMutex(t, as, dir, seqlock.WithObserver(zktest.Observe(t, "holder", tally.Observe)))
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		acquired := make(chan int)
		release := make([]chan struct{}, waiters)
		errs := make(chan error, waiters)
		for i := range waiters {
			release[i] = make(chan struct{})
			m := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(zktest.Observe(t, fmt.Sprint("waiter-", i), tally.Observe)))
			go func() {
				if err := m.Lock(ctx); err != nil {
					errs <- err
					return
				}
				acquired <- i
				<-release[i]
				errs <- m.Unlock(ctx)
			}()
			waitQueueOrLock(t, admin, dir, i+2, errs) // queue them in order; a waiter that fails says why at once
		}
		zktest.Eventually(t, zktest.Patience, "not every waiter is waiting", func() bool { return tally.Count(event.Waiting) == waiters })

		unlock := func() error { return holder.Unlock(ctx) }
		for want := range waiters {
			before := tally.Count(event.Notified)
			if err := unlock(); err != nil {
				t.Fatal(err)
			}
			var got int
			select {
			case got = <-acquired:
			case err := <-errs:
				t.Fatalf("a waiter failed: %v", err)
			case <-time.After(zktest.Patience):
				t.Fatal("nobody got the lock after a release")
			}
			if got != want {
				zktest.Recorder(t).Broke(fmt.Sprintf("waiter-%d got the lock before waiter-%d", got, want))
				t.Errorf("waiter %d got the lock, want %d: the queue is first come, first served", got, want)
			}
			if n := tally.Count(event.Notified) - before; n != 1 {
				zktest.Recorder(t).BrokeWhere(func(es []event.Event) int { return event.Herd(es, 1) },
					fmt.Sprintf("release %d woke %d waiters; the predecessor queue wakes 1", want+1, n))
				// The first release that wakes more than one is the
				// evidence: stop here, the rest would only repeat it.
				t.Fatalf("release %d woke %d waiters, want exactly 1", want+1, n)
			}
			unlock = func() error { close(release[got]); return <-errs }
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
		if n := tally.Count(event.Notified); n != waiters {
			t.Errorf("%d notifications for %d hand-offs", n, waiters)
		}
		t.Logf("%d hand-offs: %d notifications, %d requests", waiters, tally.Count(event.Notified), tally.Requests(""))
	})

	t.Run("Participants lists the holder first and the waiters in arrival order", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		as := seqlocktest.Session(t)
		admin := as.Conn()
		ctx := zktest.Context(t)
		holder := newMutex(t, as, dir, seqlock.WithData([]byte("holder")))
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for i := range 3 {
			m := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithData(fmt.Appendf(nil, "waiter-%d", i)))
			wg.Add(1)
			go func() { defer wg.Done(); m.Lock(wctx) }()
			waitQueue(t, admin, dir, i+2)
		}
		ps, err := seqlock.Participants(ctx, admin, dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, p := range ps {
			got = append(got, string(p.Data))
			if i > 0 && p.Seq <= ps[i-1].Seq {
				t.Errorf("participant %d has sequence %d after %d", i, p.Seq, ps[i-1].Seq)
			}
		}
		if want := "holder waiter-0 waiter-1 waiter-2"; strings.Join(got, " ") != want {
			t.Errorf("Participants = %q, want %q", got, want)
		}
		if ps[0].Node != holder.Node() {
			t.Errorf("Participants()[0] = %s, holder's node is %s", ps[0].Node, holder.Node())
		}
		cancel()
		wg.Wait()
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if ps, err := seqlock.Participants(ctx, admin, dir); err != nil || len(ps) != 0 {
			t.Errorf("after everyone left: Participants = %v, %v", ps, err)
		}
	})

	t.Run("node names are protected names compatible with Curator and zk.Lock", func(t *testing.T) {
		root := zktest.Root(t)
		m := newMutex(t, seqlocktest.Session(t), root+"/lock")
		ctx := zktest.Context(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		defer m.Unlock(ctx)
		name := event.Short(m.Node())
		if !regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`).MatchString(name) {
			t.Errorf("node name %q is not _c_<uuid>-lock-<10 digits>", name)
		}
		if !strings.HasPrefix(m.Node(), root+"/lock/") {
			t.Errorf("node %s is not under the lock directory", m.Node())
		}
	})

	t.Run("a predecessor gone before our watch leaves no watch behind", func(t *testing.T) {
		// Right before the waiter's GetW on its predecessor (the observer
		// runs just before each request), the predecessor is deleted. GetW
		// fails with ErrNoNode, registers nothing, and the waiter looks
		// again and finds itself first. An ExistsW there would have left a
		// watch on a path that will never be created again; the control
		// below shows the server keeping exactly that.
		root := zktest.Root(t)
		dir := root + "/lock"
		admin := zktest.Connect(t)
		holder := newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		pred := holder.Node()
		var tally event.Tally
		var deleted atomic.Bool
		obs := func(e event.Event) {
			tally.Observe(e)
			if e.Kind == event.Request && e.Op == "get" && e.Node == pred && deleted.CompareAndSwap(false, true) {
				if err := admin.Delete(pred, -1); err != nil {
					t.Errorf("delete %s: %v", pred, err)
				}
			}
		}
		waiter := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(obs))
		if err := waiter.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if tally.Count(event.Waiting) != 0 || tally.Requests("children") != 2 {
			t.Errorf("waits %d, listings %d: want no wait and a second listing", tally.Count(event.Waiting), tally.Requests("children"))
		}
		if zktest.Watched(t, pred) {
			t.Errorf("the server still keeps a watch on %s", pred)
		}
		// Control: ExistsW on the same missing path does leave a watch.
		if _, _, _, err := admin.ExistsW(pred); err != nil {
			t.Fatal(err)
		}
		if !zktest.Watched(t, pred) {
			t.Errorf("control failed: wchp does not show the ExistsW watch on %s", pred)
		}
		if err := holder.Unlock(ctx); !errors.Is(err, seqlock.ErrLost) {
			t.Errorf("the holder whose node was deleted: Unlock = %v, want ErrLost", err)
		}
		if err := waiter.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Lock and TryLock while holding return ErrAlreadyHeld", func(t *testing.T) {
		root := zktest.Root(t)
		s := seqlocktest.Session(t)
		conn := s.Conn()
		m := newMutex(t, s, root+"/lock")
		ctx := zktest.Context(t)
		if m.Lost() != nil || m.Token() != 0 || m.Node() != "" {
			t.Error("a Mutex never locked has a Lost channel, a token or a node")
		}
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Lock(ctx); !errors.Is(err, seqlock.ErrAlreadyHeld) {
			t.Errorf("second Lock = %v, want ErrAlreadyHeld", err)
		}
		if err := m.TryLock(ctx); !errors.Is(err, seqlock.ErrAlreadyHeld) {
			t.Errorf("TryLock while holding = %v, want ErrAlreadyHeld", err)
		}
		lost := m.Lost()
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-lost:
			t.Error("Unlock closed the Lost channel")
		default:
		}
		if m.Token() != 0 || m.Node() != "" {
			t.Error("after Unlock the Mutex still reports a token or a node")
		}
		locktest.AssertClean(t, conn, root, root+"/lock")
	})
}

// TestALockWhoseSessionExpiresBetweenTheListingAndTheHoldHoldsNothing:
// the session ends at the worst moment, and the hold must not be on the
// dead node. (Not in the workshop's lesson tier: expiring a session for
// real takes go-zookeeper about 2 s, and the lesson tier stays under 5 s.)
func TestALockWhoseSessionExpiresBetweenTheListingAndTheHoldHoldsNothing(t *testing.T) {
	// The listing shows our node first. Right then, before the hold,
	// the server expires our session and deletes our node with it.
	// Holding with the dead node would be holding a lock that protects
	// nothing: the next client takes it at once. Lock must say the
	// session expired instead, and leave nothing behind. The rule is
	// asked between the listing and the hold, and no request is sent
	// there, so this Mutex's rule is where the test expires the session:
	// the first time it is asked.
	root := zktest.Root(t)
	dir := root + "/lock"
	ctx := zktest.Context(t)
	lo, _ := zktest.SessionBounds(t)
	s, proxy := seqlocktest.SessionViaProxy(t, lo) // the shortest session: the quickest expiry
	conn := s.Conn()
	var asked atomic.Int32
	expireFirst := func(queue []seqlock.Node, ours int) (bool, string) {
		if asked.Add(1) == 1 {
			if err := proxy.Expire(ctx, conn, s.Timeout()); err != nil {
				t.Fatal(err)
			}
			zktest.Await(t, s.Done(), "the Session never said its session had expired")
		}
		return seqlock.First(queue, ours)
	}
	m, err := seqlock.NewWithRule(s, dir, "lock-", expireFirst, seqlock.WithObserver(zktest.Observe(t, "client")))
	if err != nil {
		t.Fatal(err)
	}
	err = m.Lock(ctx)
	if asked.Load() == 0 {
		t.Fatalf("Lock = %v without asking the Mutex's rule: waitTurn must ask q.rule, the rule the Mutex was made with", err)
	}
	if !errors.Is(err, seqlock.ErrSessionExpired) {
		why := fmt.Sprintf("Lock after its session expired between the listing and the hold = %v (token %d), want ErrSessionExpired", err, m.Token())
		zktest.Recorder(t).Broke(why)
		t.Fatal(why)
	}
	if m.Node() != "" {
		t.Fatalf("Lock failed but the Mutex holds %s", m.Node())
	}
	if asked.Load() != 1 {
		t.Errorf("the rule was asked %d times, want once: an expired session is not joined again", asked.Load())
	}
	admin := seqlocktest.Session(t).Conn()
	locktest.AssertClean(t, admin, root, dir)
}

func TestFencingTokens(t *testing.T) {
	t.Run("tokens keep increasing after the container directory is reaped", func(t *testing.T) {
		// The sequence number restarts at 0 in a new directory; the
		// token (the directory's pzxid when we got the lock) must not.
		fast := zktest.ReapsContainersFast(t)
		root := zktest.Root(t)
		dir := root + "/lock"
		s := seqlocktest.Session(t)
		conn := s.Conn()
		m := newMutex(t, s, dir)
		ctx := zktest.Context(t)
		var last int64
		var seqs []string
		for i := range 2 {
			if err := m.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, m.Node()[len(m.Node())-10:])
			if tk := m.Token(); tk <= last {
				t.Errorf("hold %d: token %d after %d", i, tk, last)
			} else {
				last = tk
			}
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if !fast {
				// A stock server reaps once a minute: play the reaper (an
				// empty container may be deleted like any node).
				if err := conn.Delete(dir, -1); err != nil {
					t.Fatal(err)
				}
			}
			zktest.Eventually(t, zktest.Patience, "the empty lock directory was never reaped", func() bool {
				ok, _, err := conn.Exists(dir)
				return err == nil && !ok
			})
		}
		if seqs[0] != seqs[1] {
			t.Errorf("sequences %v: expected the new directory to restart the count", seqs)
		}
		t.Logf("sequence numbers %v, tokens up to %d", seqs, last)
	})
}

func TestContainerDirectory(t *testing.T) {
	t.Run("the lock directory and its missing parents vanish once the lock is free", func(t *testing.T) {
		zktest.RequireFastReaping(t)
		root := zktest.Root(t)
		dir := root + "/app/locks/orders"
		s := seqlocktest.Session(t)
		conn := s.Conn()
		m := newMutex(t, s, dir)
		ctx := zktest.Context(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{root + "/app", root + "/app/locks", dir} {
			_, stat, err := conn.Exists(p)
			if err != nil || stat == nil || stat.EphemeralOwner != 0 {
				t.Fatalf("%s: %v %+v", p, err, stat)
			}
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		zktest.Eventually(t, zktest.Patience, "the empty lock directories never vanished", func() bool {
			return len(zktest.Tree(t, conn, root)) == 0
		})
		t.Logf("directories gone %v after Unlock", time.Since(start).Round(10*time.Millisecond))
		// And the lock still works: the directories come back.
		if err := m.Lock(ctx); err != nil {
			t.Fatalf("Lock after the directory was reaped: %v", err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a directory reaped between its creation and our create is created again", func(t *testing.T) {
		// The race containers bring: we create the directory, the server
		// reaps it (it is empty), our create fails with ErrNoNode. The
		// observer is called right before each request, so it can play
		// the reaper at exactly that moment.
		root := zktest.Root(t)
		dir := root + "/lock"
		admin := zktest.Connect(t)
		var creates []string
		reaped := false
		reaper := func(e event.Event) {
			if e.Kind != event.Request || e.Op != "create" {
				return
			}
			creates = append(creates, event.Short(e.Node))
			// First use: our node (ErrNoNode: no directory yet), the
			// directory, then our node again — reaped right before it.
			if len(creates) == 3 && !reaped {
				reaped = true
				if err := admin.Delete(dir, -1); err != nil {
					t.Errorf("reap %s: %v", dir, err)
				}
			}
		}
		m := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(reaper))
		ctx := zktest.Context(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatalf("Lock: %v", err)
		}
		if len(creates) != 5 || creates[1] != "lock" || creates[3] != "lock" {
			t.Errorf("creates %v: want node (no directory), directory, node (reaped), directory, node", creates)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCancel(t *testing.T) {
	t.Run("a Lock cancelled while its create is in flight deletes the node that create made", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		as := seqlocktest.Session(t)
		admin := as.Conn()
		holder := newMutex(t, as, dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// Replies reach this client half a second late: the create lands
		// on the server long before the client hears about it.
		cs, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession)
		knowDir(t, cs, dir)
		if err := proxy.Latency(500*time.Millisecond, 0); err != nil {
			t.Fatal(err)
		}
		var tally event.Tally
		m := newMutex(t, cs, dir, seqlock.WithObserver(tally.Observe))
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if err := m.Lock(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock = %v, want DeadlineExceeded", err)
		}
		if tally.Requests("children") != 0 {
			t.Fatal("the create answered before the deadline: this test did not cancel a create in flight")
		}
		// Before Lock returned, the node was deleted: only the holder's is left.
		if ps := waitQueue(t, admin, dir, 1); ps[0].Node != holder.Node() {
			t.Fatalf("queue = %v, want only the holder", ps)
		}
		if tally.Requests("delete") != 1 {
			t.Errorf("%d deletes, want 1 for the node the late create made", tally.Requests("delete"))
		}
		proxy.Restore()
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		locktest.AssertClean(t, admin, root, dir)
	})
}

func TestSession(t *testing.T) {
	t.Run("it learns the timeout the server granted, not the one it asked for", func(t *testing.T) {
		lo, hi := zktest.SessionBounds(t)
		s := seqlocktest.Session(t, seqlock.WithSessionTimeout(time.Second))
		want := min(max(time.Second, lo), hi)
		if got := s.Timeout(); got != want {
			t.Errorf("Timeout() = %v after asking for 1s; the server grants %v..%v, so want %v", got, lo, hi, want)
		}
		t.Logf("asked 1s of a server granting %v..%v: Timeout() = %v", lo, hi, s.Timeout())
	})

	t.Run("a Lock waiting on a silent link returns ErrSessionClosed as soon as its Session is closed", func(t *testing.T) {
		// Nothing comes back over the link, so go-zookeeper would end
		// the waiter's watch only after 2/3 of the session timeout; the
		// wait hears the Session's end instead.
		root := zktest.Root(t)
		dir := root + "/lock"
		as := seqlocktest.Session(t)
		holder := newMutex(t, as, dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		defer holder.Unlock(ctx)
		_, hi := zktest.SessionBounds(t)
		ws, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(min(hi, 20*time.Second)))
		waiting := make(chan struct{}, 1)
		waiter := newMutex(t, ws, dir, seqlock.WithObserver(func(e event.Event) {
			if e.Kind == event.Waiting {
				select {
				case waiting <- struct{}{}:
				default:
				}
			}
		}))
		done := make(chan error, 1)
		go func() { done <- waiter.Lock(ctx) }()
		zktest.Await(t, waiting, "the waiter never waited")
		if err := proxy.Latency(time.Hour, 0); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		go ws.Close() // go-zookeeper's Close waits up to 1 s for the server's answer
		var err error
		select {
		case err = <-done:
		case <-time.After(ws.Timeout() / 6):
			t.Fatalf("Lock still waiting %v after Close (session timeout %v): it waits for go-zookeeper to give up on the watch", ws.Timeout()/6, ws.Timeout())
		}
		took := time.Since(start)
		if !errors.Is(err, seqlock.ErrSessionClosed) {
			t.Fatalf("Lock = %v, want ErrSessionClosed", err)
		}
		t.Logf("Lock returned %v after Close, on a silent link (session timeout %v)", took.Round(time.Millisecond), ws.Timeout())
	})

	t.Run("Close closes Done and loses every hold on it", func(t *testing.T) {
		root := zktest.Root(t)
		s := seqlocktest.Session(t)
		m := newMutex(t, s, root+"/lock")
		if err := m.Lock(zktest.Context(t)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		waitClosed(t, s.Done(), "Done never closed")
		waitClosed(t, m.Lost(), "the hold was not lost when its Session closed")
		s.Close() // a second Close is harmless
	})

	t.Run("a connect string with a chroot is refused at once, naming the chroot", func(t *testing.T) {
		start := time.Now()
		_, err := seqlock.NewSession(zktest.Context(t), []string{"127.0.0.1:1/app"})
		if err == nil || !strings.Contains(err.Error(), `"/app"`) {
			t.Fatalf("NewSession with a chroot = %v, want an error naming /app", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("refused after %v, not at once", d)
		}
	})

	t.Run("bad credentials are refused before anything is sent", func(t *testing.T) {
		if _, err := seqlock.NewSession(zktest.Context(t), zktest.Servers(t), seqlock.WithDigest("", "x")); err == nil {
			t.Fatal("an empty user was accepted")
		}
	})

	t.Run("an unreachable server is an error once the list was tried, not a hang", func(t *testing.T) {
		if _, err := seqlock.NewSession(zktest.Context(t), []string{"127.0.0.1:1"}); !errors.Is(err, zk.ErrNoServer) {
			t.Fatalf("NewSession = %v, want ErrNoServer", err)
		}
	})
}

func TestLostReply(t *testing.T) {
	t.Run("a create whose reply was lost is found by its UUID, not created twice", func(t *testing.T) {
		root := zktest.Root(t)
		as := seqlocktest.Session(t)
		admin := as.Conn()
		// The longest session the server grants (up to 6 s) leaves the most
		// room to reconnect within it. On a loaded machine the session can
		// still expire first; then the scene did not happen (Lock says
		// ErrSessionExpired, as it must: a Session is one session), and we
		// set it again on a new Session.
		_, hi := zktest.SessionBounds(t)
		d := min(hi, 6*time.Second)
		for attempt := 1; ; attempt++ {
			dir := fmt.Sprintf("%s/lock%d", root, attempt)
			if lostReplyInALiveSession(t, as, dir, d) {
				locktest.AssertClean(t, admin, root, dir)
				return
			}
			if attempt == 3 {
				t.Fatalf("three times the session (%v) expired before the client reconnected: this machine is too slow for the scene", d)
			}
			t.Logf("attempt %d: the session expired before the client reconnected; again", attempt)
		}
	})
}

func TestSessionExpiredWhileJoining(t *testing.T) {
	t.Run("Lock says the session expired and leaves nothing behind", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		as := seqlocktest.Session(t)
		admin := as.Conn()
		holder := newMutex(t, as, dir)
		// Expiring a session takes a few session timeouts: 4 s or more on
		// a stock server.
		ctx, cancel := context.WithTimeout(context.Background(), 3*zktest.Patience)
		defer cancel()
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		lo, _ := zktest.SessionBounds(t)
		cs, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(max(lo, time.Second)))
		conn := cs.Conn()
		old := conn.SessionID()
		knowDir(t, cs, dir)
		var tally event.Tally
		m := newMutex(t, cs, dir, seqlock.WithObserver(tally.Observe))
		// The create lands, its reply is held back, and the link is cut
		// until the server has expired the session (and the node with it).
		// Whether the reply then comes or is lost, and whether Lock is
		// listing or creating when it learns of the expiry, it must return
		// ErrSessionExpired: the node died with the session, and a Session
		// is one session (nothing opens a new one behind the caller).
		if err := proxy.Latency(time.Hour, 0); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- m.Lock(ctx) }()
		waitQueue(t, admin, dir, 2)
		zktest.Expire(t, conn, proxy)

		err := zktest.Await(t, done, "the waiter's Lock never returned after its session expired")
		if !errors.Is(err, seqlock.ErrSessionExpired) {
			t.Fatalf("Lock whose session expired while joining = %v, want ErrSessionExpired", err)
		}
		select {
		case <-cs.Done():
		default:
			t.Fatal("Lock said the session expired, but the Session's Done is open")
		}
		if id := conn.SessionID(); id != old && id != 0 {
			t.Fatalf("the conn is in a new session %#x: nothing may open one behind the caller", id)
		}
		if n := tally.Requests("create"); n != 1 {
			t.Errorf("%d creates, want 1: nothing is created in an expired session", n)
		}
		if ps := waitQueue(t, admin, dir, 1); ps[0].Node != holder.Node() {
			t.Fatalf("queue = %v, want only the holder", ps)
		}
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		locktest.AssertClean(t, admin, root, dir)
	})
}

// lostReplyInALiveSession holds the lock on dir with admin, then has a
// second client lose the reply to its create: replies to it are held back,
// so its create reaches the server and lands but the answer never comes.
// After 2/3 of the session timeout d without a byte, go-zookeeper drops
// the connection and fails the create with ErrConnectionClosed; we heal
// the link and the session survives. Lock must find the node by its UUID
// and hold with it. It returns false if the session expired after all
// (then Lock must have said ErrSessionExpired).
func lostReplyInALiveSession(t *testing.T, as *seqlock.Session, dir string, d time.Duration) bool {
	t.Helper()
	admin := as.Conn()
	holder := newMutex(t, as, dir)
	ctx := zktest.Context(t)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	cs, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(d))
	conn := cs.Conn()
	session := conn.SessionID()
	knowDir(t, cs, dir)
	var tally event.Tally
	var found atomic.Value
	obs := event.Tee(tally.Observe, func(e event.Event) {
		if e.Kind == event.Info && strings.Contains(e.Detail, "UUID") {
			found.Store(e.Node)
		}
	})
	m := newMutex(t, cs, dir, seqlock.WithObserver(obs))
	if err := proxy.Latency(time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	zktest.Eventually(t, zktest.Patience, "the client never gave up on the silent link", func() bool {
		return conn.State() != zk.StateHasSession
	})
	proxy.Restore()

	// The lost create's node, behind the holder's; or, on a machine too
	// slow to reconnect in time, a Lock that says the session expired.
	var ps []seqlock.Participant
	var lockErr error
	returned := false
	zktest.Eventually(t, zktest.Patience, fmt.Sprintf("the queue of %s never reached 2 nodes", dir), func() bool {
		select {
		case lockErr = <-done:
			returned = true
			return true
		default:
		}
		var err error
		ps, err = seqlock.Participants(ctx, admin, dir)
		return err == nil && len(ps) == 2
	})
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if returned {
		if errors.Is(lockErr, seqlock.ErrSessionExpired) {
			return false
		}
		t.Fatalf("Lock returned while the lock was held: %v", lockErr)
	}
	if err := zktest.Await(t, done, "the Lock never returned after the holder's Unlock"); err != nil {
		if errors.Is(err, seqlock.ErrSessionExpired) {
			return false
		}
		t.Fatalf("Lock: %v", err)
	}
	defer func() {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	if conn.SessionID() != session {
		t.Fatalf("Lock held in session %#x, not %#x: a Session is one session", conn.SessionID(), session)
	}
	if found.Load() == nil {
		t.Fatal("Lock never looked for its node by UUID")
	}
	if tally.Requests("create") != 1 {
		t.Errorf("%d creates, want 1: the lost create must not be repeated", tally.Requests("create"))
	}
	if found.Load() != ps[1].Node || m.Node() != ps[1].Node {
		t.Errorf("found %v and hold %s, but the node the lost create made is %s", found.Load(), m.Node(), ps[1].Node)
	}
	return true
}

// TestALockSentWhileTheServerIsUnreachableWaitsForIt: while go-zookeeper
// cycles through the servers it fails every request it has not sent yet
// with ErrNoServer, once a second. Such a create never reached a server, so
// join sends it again (within its five attempts) instead of failing Lock
// over a blip.
func TestALockSentWhileTheServerIsUnreachableWaitsForIt(t *testing.T) {
	root := zktest.Root(t)
	dir := root + "/lock"
	_, hi := zktest.SessionBounds(t)
	disconnected := make(chan struct{}, 1)
	s, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(min(hi, 20*time.Second)),
		zksession.OnEvent(func(e zk.Event) {
			if e.Type == zk.EventSession && e.State == zk.StateDisconnected {
				select {
				case disconnected <- struct{}{}:
				default:
				}
			}
		}))
	knowDir(t, s, dir)
	creates := make(chan struct{}, 16)
	m := newMutex(t, s, dir, seqlock.WithObserver(func(e event.Event) {
		if e.Kind == event.Request && e.Op == "create" {
			creates <- struct{}{}
		}
	}))
	proxy.Down()
	up := func() {
		if err := proxy.Up(); err != nil {
			t.Fatal(err)
		}
	}
	zktest.Await(t, disconnected, "the client never noticed the server was gone")
	ctx := zktest.Context(t)
	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	// The first create, then a second one: the first failed unsent.
	for i := range 2 {
		select {
		case <-creates:
		case err := <-done:
			up()
			t.Fatalf("Lock returned %v while the server was unreachable, after %d create(s): a create that was never sent is safe to send again", err, i)
		case <-time.After(zktest.Patience):
			up()
			t.Fatalf("after %v: create %d of Lock was never sent", zktest.Patience, i+1)
		}
	}
	up()
	if err := zktest.Await(t, done, "Lock never returned after the server came back"); err != nil {
		t.Fatalf("Lock after the server came back: %v", err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	locktest.AssertClean(t, s.Conn(), root, dir)
}

func TestHolderCrash(t *testing.T) {
	t.Run("the holder's Session closes: the next in line gets the lock and the old holder's Lost closes", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		hs := seqlocktest.Session(t)
		hconn := hs.Conn()
		var tally event.Tally
		holder := newMutex(t, hs, dir, seqlock.WithObserver(tally.Observe))
		waiter := newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- waiter.Lock(ctx) }()
		waitQueue(t, hconn, dir, 2)
		hs.Close()
		// When Close returns, Done is closed and so is every hold's Lost:
		// a program that sees Done never finds a hold of it still open.
		select {
		case <-hs.Done():
		default:
			t.Fatal("Close returned with Done open")
		}
		select {
		case <-holder.Lost():
		default:
			t.Fatal("Done is closed, but the holder's Lost is still open")
		}
		if err := zktest.Await(t, done, "the waiter's Lock never returned after the holder's Session closed"); err != nil {
			t.Fatalf("waiter: %v", err)
		}
		if err := holder.Unlock(ctx); !errors.Is(err, seqlock.ErrLost) {
			t.Errorf("Unlock after the loss = %v, want ErrLost", err)
		}
		// The observer hears of the loss from a goroutine of its own,
		// just after Lost closes, and before Unlock says ErrLost: a
		// timeline reads the loss, then the Unlock that reports it.
		if tally.Count(event.Lost) != 1 {
			t.Errorf("%d Lost events, want 1", tally.Count(event.Lost))
		}
		if err := waiter.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("the holder's session expires: the next in line gets the lock, the old holder's Lost and Session's Done close, and its Lock says ErrSessionExpired", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		hs, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(time.Second))
		hconn := hs.Conn()
		holder := newMutex(t, hs, dir)
		as := seqlocktest.Session(t)
		admin := as.Conn()
		waiter := newMutex(t, as, dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		oldToken := holder.Token()
		done := make(chan error, 1)
		go func() { done <- waiter.Lock(ctx) }()
		waitQueue(t, admin, dir, 2)
		if err := proxy.Expire(ctx, hconn, hs.Timeout()); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, holder.Lost(), "the holder's Lost never closed after its session expired")
		if err := zktest.Await(t, done, "the waiter's Lock never returned after the holder's session expired"); err != nil {
			t.Fatalf("waiter: %v", err)
		}
		if waiter.Token() <= oldToken {
			t.Errorf("the new holder's token %d is not above the old one's %d", waiter.Token(), oldToken)
		}
		if err := holder.Unlock(ctx); !errors.Is(err, seqlock.ErrLost) {
			t.Errorf("Unlock after the loss = %v, want ErrLost", err)
		}
		// A Session is one session: it ended, and nothing opened another.
		zktest.Await(t, hs.Done(), "the Session's Done never closed after its session expired")
		var tally event.Tally
		again, err := seqlock.New(hs, dir, seqlock.WithObserver(tally.Observe))
		if err != nil {
			t.Fatal(err)
		}
		if err := again.Lock(ctx); !errors.Is(err, seqlock.ErrSessionExpired) {
			t.Fatalf("Lock on the expired Session = %v, want ErrSessionExpired", err)
		}
		if n := tally.Count(event.Request); n != 0 {
			t.Errorf("Lock on the expired Session sent %d requests, want none", n)
		}
		if id := hconn.SessionID(); id != 0 && hconn.State() == zk.StateHasSession {
			t.Errorf("the expired Session's conn is in session %#x: nothing may open one behind the caller", id)
		}
		if err := waiter.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		locktest.AssertClean(t, admin, root, dir)
	})

	t.Run("a partitioned holder learns of the loss while still cut off, within the granted timeout and before anyone else holds", func(t *testing.T) {
		// The holder's program gets its conn only through NewSession: no
		// lock option tells the lock the session timeout, the Session read
		// what the server granted.
		root := zktest.Root(t)
		dir := root + "/lock"
		hs, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(2*time.Second))
		holder := newMutex(t, hs, dir)
		as := seqlocktest.Session(t)
		admin := as.Conn()
		waiter := newMutex(t, as, dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		var waiterGot atomic.Int64
		done := make(chan error, 1)
		go func() {
			err := waiter.Lock(ctx)
			waiterGot.Store(time.Now().UnixNano())
			done <- err
		}()
		waitQueue(t, admin, dir, 2)

		cut := time.Now()
		if err := proxy.Cut(); err != nil {
			t.Fatal(err)
		}
		// The link stays cut: no event can reach the holder. Only its own
		// clock can tell it the lock is gone.
		waitClosed(t, holder.Lost(), "the partitioned holder never learned it lost the lock")
		lostAt := time.Now()
		if err := zktest.Await(t, done, "the waiter's Lock never returned after the partitioned holder's session ended"); err != nil {
			t.Fatalf("waiter: %v", err)
		}
		got := time.Unix(0, waiterGot.Load())
		granted := hs.Timeout()
		t.Logf("granted %v: holder gave up %v after the cut; the server let the waiter in %v after the cut (margin %v)",
			granted, lostAt.Sub(cut).Round(time.Millisecond), got.Sub(cut).Round(time.Millisecond), got.Sub(lostAt).Round(time.Millisecond))
		if lostAt.Sub(cut) >= granted {
			t.Errorf("Lost closed %v after the cut, not within the granted session timeout %v", lostAt.Sub(cut), granted)
		}
		if !lostAt.Before(got) {
			t.Errorf("Lost closed %v after the waiter got the lock", lostAt.Sub(got))
		}
		proxy.Restore()
		if err := holder.Unlock(ctx); !errors.Is(err, seqlock.ErrLost) {
			t.Errorf("Unlock after the loss = %v, want ErrLost", err)
		}
		if err := waiter.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("with WithoutDisconnectCheck a short cut keeps the hold", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		hs, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(2*time.Second))
		holder := newMutex(t, hs, dir, seqlock.WithoutDisconnectCheck())
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// Drop the connection: the conn reconnects to the same session. A
		// hold without the check never counts the time without a session.
		disconnected := make(chan struct{})
		go func() {
			defer close(disconnected)
			for hs.Conn().State() == zk.StateHasSession {
				time.Sleep(5 * time.Millisecond)
			}
		}()
		if err := proxy.Drop(); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, disconnected, "the conn never noticed the dropped connection")
		zktest.Eventually(t, zktest.Patience, "the conn never got its session back", func() bool {
			return hs.Conn().State() == zk.StateHasSession
		})
		select {
		case <-holder.Lost():
			t.Fatal("a reconnect to the same session lost the hold")
		default:
		}
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("someone deleting the holder's node is reported by Unlock and closes Lost", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		holder := newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// Holding costs no watch: nobody watches the holder's node, so no
		// change to it (a data write included) can reach the hold before
		// Unlock looks. (Asserting after a write that Lost stayed open
		// could not fail: there is nothing that could have closed it.)
		if zktest.Watched(t, holder.Node()) {
			t.Fatal("some session watches the holder's node: holding should cost no watch")
		}
		if err := zktest.Connect(t).Delete(holder.Node(), -1); err != nil {
			t.Fatal(err)
		}
		// Holding costs no watch, so the deletion is seen at Unlock.
		lost := holder.Lost()
		if err := holder.Unlock(ctx); !errors.Is(err, seqlock.ErrLost) {
			t.Errorf("Unlock after the loss = %v, want ErrLost", err)
		}
		waitClosed(t, lost, "Lost never closed after Unlock found the lock node deleted")
	})
}

func TestInteropWithZkLock(t *testing.T) {
	t.Run("seqlock and go-zookeeper's zk.Lock exclude each other on the same directory", func(t *testing.T) {
		const perKind, rounds = 3, 4
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		var counter, inside int64 // counter: unguarded read-modify-write
		var wg sync.WaitGroup
		errs := make(chan error, 2*perKind*rounds)
		critical := func(who string) {
			if n := atomic.AddInt64(&inside, 1); n != 1 {
				errs <- fmt.Errorf("%s: %d holders at once", who, n)
			}
			v := counter
			time.Sleep(2 * time.Millisecond)
			counter = v + 1
			atomic.AddInt64(&inside, -1)
		}
		for i := range perKind {
			m := newMutex(t, seqlocktest.Session(t), dir)
			zl := zk.NewLock(zktest.Connect(t), dir, zk.WorldACL(zk.PermAll))
			wg.Add(2)
			go func() {
				defer wg.Done()
				for range rounds {
					if err := m.Lock(ctx); err != nil {
						errs <- err
						return
					}
					critical(fmt.Sprint("seqlock-", i))
					if err := m.Unlock(ctx); err != nil {
						errs <- err
					}
				}
			}()
			go func() {
				defer wg.Done()
				for range rounds {
					if err := zl.Lock(); err != nil {
						errs <- err
						return
					}
					critical(fmt.Sprint("zk.Lock-", i))
					if err := zl.Unlock(); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if want := int64(2 * perKind * rounds); counter != want {
			t.Errorf("counter = %d, want %d: updates were lost", counter, want)
		}
	})
}

// TestThousandGoroutinesOneSession is the articles' seed example: 1000
// threads, one ZooKeeper session, each takes the lock once and sells one
// item of an in-memory inventory guarded only by the lock.
func TestThousandGoroutinesOneSession(t *testing.T) {
	const n = 1000
	root := zktest.Root(t)
	dir := root + "/lock"
	s := seqlocktest.Session(t)
	conn := s.Conn()
	ctx := zktest.Context(t)
	var tally event.Tally
	inventory, sold := n, 0
	var inside atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := time.Now()
	for i := range n {
		m := newMutex(t, s, dir, seqlock.WithObserver(event.Observer(tally.Observe).WithOwner(fmt.Sprint("g", i))))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Lock(ctx); err != nil {
				errs <- err
				return
			}
			if in := inside.Add(1); in != 1 {
				errs <- fmt.Errorf("goroutine %d: %d holders at once", i, in)
			}
			if inventory > 0 {
				inventory-- // unguarded: only the lock keeps this exact
				sold++
			}
			inside.Add(-1)
			if err := m.Unlock(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if inventory != 0 || sold != n {
		t.Errorf("inventory %d, sold %d: want 0 and %d", inventory, sold, n)
	}
	notified, waited := tally.Count(event.Notified), tally.Count(event.Waiting)
	if notified != waited {
		t.Errorf("%d notifications for %d waits: every waiter must be woken exactly once", notified, waited)
	}
	if notified > n-1 {
		t.Errorf("%d notifications for at most %d hand-offs: a herd", notified, n-1)
	}
	if per := tally.Owners(event.Notified); per != notified {
		t.Errorf("%d notifications went to %d goroutines: someone was woken twice", notified, per)
	}
	t.Logf("%d goroutines on one session: %v, %d notifications, %d requests (%.1f per acquisition: %d create, %d children, %d get, %d delete)",
		n, elapsed.Round(time.Millisecond), notified, tally.Requests(""), float64(tally.Requests(""))/n,
		tally.Requests("create"), tally.Requests("children"), tally.Requests("get"), tally.Requests("delete"))
	locktest.AssertClean(t, conn, root, dir)
}

func TestNew(t *testing.T) {
	t.Run("bad input is rejected by New", func(t *testing.T) {
		if _, err := seqlock.New(nil, "/x"); err == nil {
			t.Error("New accepted a nil Session")
		}
		s := seqlocktest.Session(t)
		conn := s.Conn()
		for _, p := range []string{"", "x", "/x/", "//x", "/"} {
			if _, err := seqlock.New(s, p); err == nil {
				t.Errorf("New accepted %q", p)
			}
			if _, err := seqlock.Participants(zktest.Context(t), conn, p); err == nil {
				t.Errorf("Participants accepted %q", p)
			}
		}
		if _, err := seqlock.Participants(zktest.Context(t), nil, "/x"); err == nil {
			t.Error("Participants accepted a nil conn")
		}
	})
}

func ExampleMutex() {
	ctx := context.Background()
	s, err := seqlock.NewSession(ctx, zktest.ExampleServers())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	conn := s.Conn()

	alice, _ := seqlock.New(s, "/seqlock-example/orders", seqlock.WithData([]byte("alice")))
	bob, _ := seqlock.New(s, "/seqlock-example/orders", seqlock.WithData([]byte("bob")))

	if err := alice.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("alice holds the lock:", alice.Token() > 0)
	fmt.Println("bob tries:", bob.TryLock(ctx))
	fmt.Println("bob unlocks:", bob.Unlock(ctx))

	got := make(chan error)
	go func() { got <- bob.Lock(ctx) }()
	for {
		ps, _ := seqlock.Participants(ctx, conn, "/seqlock-example/orders")
		if len(ps) == 2 {
			fmt.Printf("queue: %s, %s\n", ps[0].Data, ps[1].Data)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("alice unlocks:", alice.Unlock(ctx))
	fmt.Println("bob locks:", <-got)
	fmt.Println("bob's token is higher:", bob.Token() > alice.Token())
	fmt.Println("bob unlocks:", bob.Unlock(ctx))
	// Output:
	// alice holds the lock: true
	// bob tries: seqlock: locked by another contender
	// bob unlocks: seqlock: not held
	// queue: alice, bob
	// alice unlocks: <nil>
	// bob locks: <nil>
	// bob's token is higher: true
	// bob unlocks: <nil>
}

// TestReadersStillQueueOneAtATime measures this chapter's flaw: the lock
// is exclusive, so contenders that only read, and could safely overlap,
// still get in one at a time. Chapter 05's read-write lock lets them share.
func TestReadersStillQueueOneAtATime(t *testing.T) {
	const readers, hold = 5, 50 * time.Millisecond
	root := zktest.Root(t)
	dir := root + "/lock"
	ctx := zktest.Context(t)
	var inside contend.Occupancy
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	mutexes := make([]*seqlock.Mutex, readers)
	for i := range mutexes {
		mutexes[i] = newMutex(t, seqlocktest.Session(t), dir)
	}
	start := time.Now()
	for _, m := range mutexes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Lock(ctx); err != nil {
				errs <- err
				return
			}
			inside.Enter()
			time.Sleep(hold) // read only: nothing here needs exclusion
			inside.Leave()
			errs <- m.Unlock(ctx)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := inside.Peak(); p != 1 {
		t.Fatalf("%d readers inside at once: an exclusive lock admits one", p)
	}
	t.Logf("%d readers holding %v each took %v one after another (a shared read lock: about %v)",
		readers, hold, time.Since(start).Round(time.Millisecond), hold)
}

// TestAWaiterThatGivesUpDoesNotHandTheLockOn: a notification only says the
// node before ours is gone, not that the lock is ours. When a waiter in the
// middle of the queue gives up, the one behind it is woken while the holder
// still holds; it must list the queue again and wait behind the holder.
func TestAWaiterThatGivesUpDoesNotHandTheLockOn(t *testing.T) {
	root := zktest.Root(t)
	dir := root + "/lock"
	ctx := zktest.Context(t)
	holder := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(zktest.Observe(t, "holder")))
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var quitterTally, lastTally event.Tally
	quitter := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(zktest.Observe(t, "quitter", quitterTally.Observe)))
	var lastWatches atomic.Value // the node the last waiter's first wait is on
	last := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(zktest.Observe(t, "last", func(e event.Event) {
		if e.Kind == event.Waiting {
			lastWatches.CompareAndSwap(nil, e.Node)
		}
		lastTally.Observe(e)
	})))

	qctx, giveUp := context.WithCancel(ctx)
	quitterDone := make(chan error, 1)
	go func() { quitterDone <- quitter.Lock(qctx) }()
	zktest.Eventually(t, zktest.Patience, "the quitter never queued", func() bool { return quitterTally.Count(event.Waiting) == 1 })
	lastDone := make(chan error, 1)
	go func() { lastDone <- last.Lock(ctx) }()
	zktest.Eventually(t, zktest.Patience, "the last waiter never queued", func() bool { return lastTally.Count(event.Waiting) == 1 })
	// The scene needs the last waiter to watch the quitter, the node just
	// before its own. If it watches the holder, the quitter's departure
	// cannot wake it: say so now rather than wait for a wake-up that
	// cannot come.
	if w := lastWatches.Load(); w == holder.Node() {
		t.Fatalf("the last waiter watches the holder's node %s, not the node just before its own (the quitter's): every waiter watches the lowest node, the herd of chapter 03",
			event.Short(holder.Node()))
	}

	giveUp()
	if err := zktest.Await(t, quitterDone, "the quitter's Lock never returned after its context was cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("quitter.Lock = %v, want context.Canceled", err)
	}
	// The last waiter is notified (its predecessor, the quitter, is gone),
	// lists again and waits behind the holder: a second Waiting, no Acquired.
	// An Acquired (or its Lock returning) while the holder holds is the
	// mistake itself: fail at once, do not wait for the Waiting that will
	// never come.
	zktest.Eventually(t, zktest.Patience, "the last waiter did not queue again behind the holder", func() bool {
		select {
		case err := <-lastDone:
			t.Fatalf("the last waiter's Lock returned (%v) while the holder still holds: woken by the quitter's departure, it took the lock without listing the queue again", err)
		default:
		}
		if lastTally.Count(event.Acquired) != 0 {
			t.Fatal("the last waiter acquired the lock while the holder still holds it: woken by the quitter's departure, it took the lock without listing the queue again")
		}
		return lastTally.Count(event.Notified) >= 1 && lastTally.Count(event.Waiting) == 2
	})
	select {
	case err := <-lastDone:
		zktest.Recorder(t).BrokeWhere(event.SecondHolder, "the last waiter took the lock while the holder held it")
		t.Fatalf("the last waiter's Lock returned (%v) while the holder still holds", err)
	default:
	}
	if lastTally.Count(event.Acquired) != 0 {
		zktest.Recorder(t).BrokeWhere(event.SecondHolder, "the last waiter took the lock while the holder held it")
		t.Fatal("the last waiter acquired the lock while the holder still holds it")
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := zktest.Await(t, lastDone, "the last waiter never got the lock after the holder's Unlock"); err != nil {
		t.Fatalf("last.Lock after the holder's Unlock: %v", err)
	}
	if err := last.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitQueueOrLock is waitQueue while a Lock runs that must not return yet:
// if it does (with an error, since the lock is held), the test says why.
func waitQueueOrLock(t *testing.T, conn *zk.Conn, dir string, n int, lock <-chan error) []seqlock.Participant {
	t.Helper()
	var ps []seqlock.Participant
	zktest.Eventually(t, zktest.Patience, fmt.Sprintf("the queue of %s never reached %d nodes", dir, n), func() bool {
		select {
		case err := <-lock:
			t.Fatalf("Lock returned while the lock was held: %v", err)
		default:
		}
		var err error
		ps, err = seqlock.Participants(zktest.Context(t), conn, dir)
		return err == nil && len(ps) == n
	})
	return ps
}
