package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/09-semaphore/internal/leaselock"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func newSemaphore(t testing.TB, conn *seqlock.Session, dir string, n int, opts ...semaphore.Option) *semaphore.Semaphore {
	t.Helper()
	// Each client's events go to the test's recording, for the replay of a
	// failure (an observer in opts comes after: give it through recorded).
	opts = append([]semaphore.Option{recorded(t)}, opts...)
	s, err := semaphore.New(conn, dir, n, opts...)
	if err != nil {
		t.Fatalf("New(%q, %d): %v", dir, n, err)
	}
	return s
}

// recorded is the observer option of a test's next client ("client-1",
// "client-2", …): it records the client's events when LOCKSTEP_RECORD_DIR
// is set and passes them to also.
func recorded(t testing.TB, also ...event.Observer) semaphore.Option {
	return semaphore.WithLockOptions(seqlock.WithObserver(zktest.ObserveNext(t, "client", also...)))
}

func TestASemaphoreOfOneLeasePassesTheLockConformanceSuite(t *testing.T) {
	locktest.Run(t, locktest.Impl{
		Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
			sess := seqlocktest.Session(tb)
			return sess.Conn(), func(path string, obs event.Observer) (locktest.Locker, error) {
				s, err := semaphore.New(sess, path, 1, semaphore.WithLockOptions(seqlock.WithObserver(obs)))
				if err != nil {
					return nil, err
				}
				return leaselock.New(s), nil
			}
		},
		ErrNotHeld: semaphore.ErrNotHeld,
		ErrLocked:  semaphore.ErrLocked,
	})
}

func TestLeases(t *testing.T) {
	t.Run("never more than n holders at once, and n are reached under contention", func(t *testing.T) {
		const n, clients, rounds = 3, 8, 4
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		var held contend.Occupancy
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for range clients {
			s := newSemaphore(t, seqlocktest.Session(t), dir, n)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					l, err := s.Acquire(ctx)
					if err != nil {
						errs <- err
						return
					}
					held.Enter()
					// Hold until n are inside together (once), so that "n are
					// reached" does not depend on how the machine schedules
					// us: a semaphore that lets fewer than n in keeps every
					// holder here until the deadline, and the test fails.
					for deadline := time.Now().Add(10 * time.Second); held.Peak() < n && time.Now().Before(deadline); {
						time.Sleep(5 * time.Millisecond)
					}
					time.Sleep(5 * time.Millisecond)
					held.Leave()
					if err := l.Release(ctx); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if got := held.Peak(); got != n {
			t.Errorf("at most %d holders at once, want exactly %d (never more, and the n leases used)", got, n)
		}
		t.Logf("%d clients × %d rounds, %d leases: max_seen=%d", clients, rounds, n, held.Peak())
	})

	t.Run("TryAcquire with every lease out returns ErrLocked and leaves nothing", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/sem"
		adminS, admin := seqlocktest.SessionConn(t)
		ctx := zktest.Context(t)
		s := newSemaphore(t, adminS, dir, 2)
		var held []*semaphore.Lease
		for range 2 {
			l, err := s.TryAcquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, l)
		}
		if _, err := newSemaphore(t, seqlocktest.Session(t), dir, 2).TryAcquire(ctx); !errors.Is(err, semaphore.ErrLocked) {
			t.Fatalf("third TryAcquire = %v, want ErrLocked", err)
		}
		if got := leaseCount(t, admin, dir); got != 2 {
			t.Errorf("%d leases after a failed TryAcquire, want 2", got)
		}
		for _, l := range held {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := held[0].Release(ctx); !errors.Is(err, semaphore.ErrNotHeld) {
			t.Errorf("second Release = %v, want ErrNotHeld", err)
		}
		locktest.AssertClean(t, admin, root, dir)
	})

	t.Run("the gate's holder is woken by a lease going, not by clients joining the gate", func(t *testing.T) {
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		lease, err := newSemaphore(t, seqlocktest.Session(t), dir, 1).Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The waiter takes the gate and waits for the one lease.
		var woken atomic.Int64
		waiting := make(chan struct{}, 1)
		obs := event.Observer(func(e event.Event) {
			switch {
			case e.Kind == event.Waiting && strings.HasSuffix(e.Node, "/leases"):
				select {
				case waiting <- struct{}{}:
				default:
				}
			case e.Kind == event.Notified && strings.HasSuffix(e.Node, "/leases"):
				woken.Add(1)
			}
		})
		wconnS, wconn := seqlocktest.SessionConn(t)
		got := make(chan error, 1)
		go func() {
			l, err := newSemaphore(t, wconnS, dir, 1, recorded(t, obs)).Acquire(ctx)
			if err == nil {
				err = l.Release(ctx)
			}
			got <- err
		}()
		zktest.Await(t, waiting, "the first client never waited at the gate")
		// Three more clients queue at the gate behind it.
		joinCtx, cancelJoins := context.WithCancel(ctx)
		var joins sync.WaitGroup
		for range 3 {
			joins.Add(1)
			go func() {
				defer joins.Done()
				newSemaphore(t, seqlocktest.Session(t), dir, 1).Acquire(joinCtx)
			}()
		}
		waitNodes(t, wconn, dir+"/locks", 4)
		// Any notification their creates caused reached the waiter's session
		// before the answer to a sync sent after them; give its goroutine a
		// moment to count it.
		if _, err := wconn.Sync(dir + "/locks"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		if n := woken.Load(); n != 0 {
			t.Fatalf("the gate's holder was woken %d times by clients joining the gate, want 0", n)
		}
		cancelJoins()
		joins.Wait()
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := zktest.Await(t, got, "the waiting client never got a lease after the release"); err != nil {
			t.Fatal(err)
		}
		if n := woken.Load(); n != 1 {
			t.Errorf("the gate's holder was woken %d times, want once: by the lease that went", n)
		}
	})

	t.Run("a killed holder's lease comes back to the waiters", func(t *testing.T) {
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		hconnS, hconn := seqlocktest.SessionConn(t)
		holder := newSemaphore(t, hconnS, dir, 1)
		l, err := holder.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waiter := newSemaphore(t, seqlocktest.Session(t), dir, 1)
		got := make(chan error, 1)
		go func() {
			wl, err := waiter.Acquire(ctx)
			if err == nil {
				err = wl.Release(ctx)
			}
			got <- err
		}()
		hconn.Close() // the holder's process dies: its session closes
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("the waiter never got the dead holder's lease")
		}
		if err := l.Release(ctx); !errors.Is(err, semaphore.ErrLost) {
			t.Errorf("the dead holder's Release = %v, want ErrLost", err)
		}
	})
}

func TestRevocation(t *testing.T) {
	t.Run("a revocation request reaches the holder, which releases, and the waiter gets in", func(t *testing.T) {
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		holder := newSemaphore(t, seqlocktest.Session(t), dir, 1, semaphore.WithRevocable())
		l, err := holder.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		released := make(chan error, 1)
		go func() {
			select {
			case <-l.Revoked(): // a cooperative holder: finish, then give it back
				released <- l.Release(ctx)
			case <-ctx.Done():
			}
		}()
		waiter := newSemaphore(t, seqlocktest.Session(t), dir, 1)
		holders, err := waiter.Holders(ctx)
		if err != nil || len(holders) != 1 || holders[0] != l.Node() {
			t.Fatalf("Holders = %v, %v; want [%s]", holders, err, l.Node())
		}
		if err := semaphore.Revoke(ctx, admin, holders[0]); err != nil {
			t.Fatal(err)
		}
		wl, err := waiter.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := zktest.Await(t, released, "the revoked holder never released"); err != nil {
			t.Errorf("the revoked holder's Release = %v", err)
		}
		if err := wl.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := semaphore.Revoke(ctx, admin, holders[0]); !errors.Is(err, semaphore.ErrNotHeld) {
			t.Errorf("Revoke of a released lease = %v, want ErrNotHeld", err)
		}
	})

	// The revocation watch is set by a read. If the connection drops under
	// that read, no watch is set; but while the session lives the lease is
	// still ours, so the read is sent again, and a request made once the
	// link is back still reaches the holder.
	t.Run("a read of the watch that loses its connection is sent again, and the request still arrives", func(t *testing.T) {
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		// A long session: go-zookeeper gives up on a silent connection after
		// 2/3 of it, and the server expires the session only after all of it.
		sess, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(12*time.Second))
		var reads, watches atomic.Int32
		watched, cut, again := make(chan struct{}, 1), make(chan error, 1), make(chan struct{}, 1)
		observe := func(e event.Event) {
			if e.Detail != "our lease" {
				return
			}
			switch {
			case e.Kind == event.WatchSet && watches.Add(1) == 1:
				watched <- struct{}{}
			case e.Kind == event.Request && reads.Add(1) == 2:
				cut <- proxy.Cut() // the second read goes out into a partition
			case e.Kind == event.Request && reads.Load() == 3:
				again <- struct{}{}
			}
		}
		holder := newSemaphore(t, sess, dir, 1, semaphore.WithRevocable(), semaphore.WithLockOptions(seqlock.WithObserver(observe)))
		l, err := holder.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-watched:
		case <-time.After(zktest.Patience):
			t.Fatal("the holder never watched its lease node")
		}
		// A write that is not a revocation fires the watch: the holder
		// reads its node again, and that read meets the cut.
		if _, err := admin.Set(l.Node(), []byte("not a revocation"), -1); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-cut:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("a data change did not make the holder read its node again")
		}
		select {
		case <-again:
		case <-time.After(sess.Timeout()):
			t.Fatalf("the read that lost its connection was not sent again within the session timeout (%v): revocation watching ended", sess.Timeout())
		}
		proxy.Restore()
		if err := semaphore.Revoke(ctx, admin, l.Node()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.Revoked():
		case <-time.After(zktest.Patience):
			t.Fatal("the request never reached the holder after the link came back")
		}
		// The cut outlasted d/6, so the core declared the lease lost
		// (Lost); Release says so, and still deletes the node.
		if err := l.Release(ctx); err != nil && !errors.Is(err, semaphore.ErrLost) {
			t.Fatal(err)
		}
	})

	// The chapter's flaw: revocation is a request. A holder that does not
	// listen (or is paused) keeps its lease, and nothing in ZooKeeper can
	// take it away short of deleting its node — which the holder would not
	// know about (chapter 08's problem again).
	t.Run("a holder that ignores the request keeps its lease", func(t *testing.T) {
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		holder := newSemaphore(t, seqlocktest.Session(t), dir, 1, semaphore.WithRevocable())
		l, err := holder.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := semaphore.Revoke(ctx, admin, l.Node()); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.Revoked():
		case <-time.After(zktest.Patience):
			t.Fatal("the request never reached the holder")
		}
		short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		if _, err := newSemaphore(t, seqlocktest.Session(t), dir, 1).Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a waiter after an ignored revocation: %v, want it still waiting (DeadlineExceeded)", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// The rule a learner would write first — "hold if fewer than n are ahead
// of me, else watch the node n places ahead" (Curator's first
// InterProcessSemaphore) — never lets n+1 in, but it can leave a lease
// unused: a waiter that could hold sleeps on a holder that stays.
func TestTheIndexRuleLeavesALeaseUnused(t *testing.T) {
	dir := zktest.Root(t) + "/sem"
	ctx := zktest.Context(t)
	admin := zktest.Connect(t)
	var tally event.Tally
	lock := func(name string, obs event.Observer) *seqlock.Mutex {
		m, err := seqlock.NewWithRule(seqlocktest.Session(t), dir, "lease-", semaphore.Leases(2),
			seqlock.WithObserver(event.Tee(obs, tally.Observe).WithOwner(name)))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := lock("A", nil), lock("B", nil)
	for _, m := range []*seqlock.Mutex{a, b} {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var dWaits atomic.Int64
	c := lock("C", nil)
	d := lock("D", func(e event.Event) {
		if e.Kind == event.Waiting {
			dWaits.Add(1)
		}
	})
	cGot, dGot := make(chan error, 1), make(chan error, 1)
	go func() { cGot <- c.Lock(ctx) }()
	waitLeases(t, admin, dir, 3)
	go func() { dGot <- d.Lock(ctx) }()
	zktest.Eventually(t, zktest.Patience, "D never waited", func() bool { return dWaits.Load() == 1 })

	// B leaves. Only D (watching B) wakes; it finds itself third and goes
	// back to sleep on A. C, now second of two leases, sleeps on A too.
	if err := b.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, zktest.Patience, "D never went back to sleep", func() bool { return dWaits.Load() == 2 })
	select {
	case err := <-cGot:
		t.Fatalf("C got the free lease (%v): the flaw this test measures is gone", err)
	default:
	}
	t.Logf("B released: 1 of 2 leases is free, yet C and D both sleep on A (%d notifications)", tally.Count(event.Notified))

	// Only A's release wakes C.
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan error{cGot, dGot} {
		if err := zktest.Await(t, ch, "a waiter never got its lease after A's Unlock"); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []*seqlock.Mutex{c, d} {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHolder(t *testing.T) {
	t.Run("Lock while holding returns ErrAlreadyHeld and takes no second lease", func(t *testing.T) {
		dir := zktest.Root(t) + "/sem"
		ctx := zktest.Context(t)
		sess, conn := seqlocktest.SessionConn(t)
		h := leaselock.New(newSemaphore(t, sess, dir, 3))
		if err := h.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.Lock(ctx); !errors.Is(err, semaphore.ErrAlreadyHeld) {
			t.Errorf("second Lock = %v, want ErrAlreadyHeld", err)
		}
		if err := h.TryLock(ctx); !errors.Is(err, semaphore.ErrAlreadyHeld) {
			t.Errorf("TryLock while holding = %v, want ErrAlreadyHeld", err)
		}
		if n := leaseCount(t, conn, dir); n != 1 {
			t.Errorf("%d leases out, want 1: a second Lock leaked a lease", n)
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.Unlock(ctx); !errors.Is(err, semaphore.ErrNotHeld) {
			t.Errorf("second Unlock = %v, want ErrNotHeld", err)
		}
		if err := h.Lock(ctx); err != nil {
			t.Fatalf("Lock after Unlock: %v", err)
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestNew(t *testing.T) {
	t.Run("bad input is rejected by New", func(t *testing.T) {
		sess, conn := seqlocktest.SessionConn(t)
		for _, c := range []struct {
			name string
			conn *seqlock.Session
			dir  string
			n    int
		}{
			{"nil session", nil, "/sem", 1},
			{"relative path", sess, "sem", 1},
			{"trailing slash", sess, "/sem/", 1},
			{"zero leases", sess, "/sem", 0},
			{"negative leases", sess, "/sem", -3},
		} {
			if _, err := semaphore.New(c.conn, c.dir, c.n); err == nil {
				t.Errorf("%s: New accepted it", c.name)
			}
		}
		if err := semaphore.Revoke(zktest.Context(t), conn, "not/a/path"); err == nil {
			t.Error("Revoke accepted a relative path")
		}
		if err := semaphore.Revoke(zktest.Context(t), nil, "/sem/leases/x"); !errors.Is(err, seqlock.ErrNilConn) {
			t.Errorf("Revoke with a nil conn: %v, want seqlock.ErrNilConn", err)
		}
	})
}

func leaseCount(t testing.TB, conn *zk.Conn, dir string) int {
	t.Helper()
	names, _, err := conn.Children(dir + "/leases")
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	n := 0
	for _, name := range names {
		if strings.Contains(name, "-lease-") {
			n++
		}
	}
	return n
}

func waitLeases(t testing.TB, conn *zk.Conn, dir string, n int) {
	t.Helper()
	zktest.Eventually(t, zktest.Patience, fmt.Sprintf("%s never had %d nodes", dir, n), func() bool {
		ps, err := seqlock.Participants(zktest.Context(t), conn, dir)
		return err == nil && len(ps) == n
	})
}

// waitNodes waits until dir has n children.
func waitNodes(t testing.TB, conn *zk.Conn, dir string, n int) {
	t.Helper()
	zktest.Eventually(t, zktest.Patience, fmt.Sprintf("%s never had %d nodes", dir, n), func() bool {
		names, _, err := conn.Children(dir)
		return err == nil && len(names) == n
	})
}
