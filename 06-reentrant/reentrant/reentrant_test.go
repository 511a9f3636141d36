package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/06-reentrant/reentrant"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func newMutex(t testing.TB, s *seqlock.Session, dir string, opts ...seqlock.Option) *reentrant.Mutex {
	t.Helper()
	// Each mutex's events go to the test's recording, for the replay of a
	// failure (an observer in opts comes after: give it through recorded).
	opts = append([]seqlock.Option{recorded(t)}, opts...)
	m, err := reentrant.New(s, dir, opts...)
	if err != nil {
		t.Fatalf("New(%q): %v", dir, err)
	}
	return m
}

// recorded is the observer option of a test's next mutex ("mutex-1", …):
// it records its events when LOCKSTEP_RECORD_DIR is set and passes them
// to also.
func recorded(t testing.TB, also ...event.Observer) seqlock.Option {
	return seqlock.WithObserver(zktest.ObserveNext(t, "mutex", also...))
}

// Across processes a reentrant lock is still an exclusive lock: each
// contender of the suite is its own Mutex, so its own owner.
func TestConformance(t *testing.T) {
	locktest.Run(t, locktest.Impl{
		Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
			s := seqlocktest.Session(tb)
			return s.Conn(), func(p string, obs event.Observer) (locktest.Locker, error) {
				return reentrant.New(s, p, seqlock.WithObserver(obs))
			}
		},
		ErrNotHeld: reentrant.ErrNotHeld,
		ErrLocked:  reentrant.ErrLocked,
	})
}

func TestReentry(t *testing.T) {
	t.Run("re-entry creates no second znode, sends no request and does not block", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		connS, conn := seqlocktest.SessionConn(t)
		var tally event.Tally
		m := newMutex(t, connS, dir, recorded(t, tally.Observe))
		ctx := zktest.Context(t)

		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		node, token := m.Node(), m.Token()
		requests := tally.Requests("")
		for depth := 2; depth <= 3; depth++ {
			if err := m.Lock(ctx); err != nil {
				t.Fatalf("Lock at depth %d: %v", depth-1, err)
			}
			if got := m.Depth(); got != depth {
				t.Fatalf("Depth = %d after %d Locks", got, depth)
			}
		}
		if got := zktest.Tree(t, conn, dir); len(got) != 1 || got[0] != node {
			t.Fatalf("after 3 Locks the lock dir holds:\n  %s\nwant only our node %s", zktest.Describe(got), node)
		}
		if got := tally.Requests(""); got != requests {
			t.Errorf("re-entry sent %d requests to ZooKeeper, want 0", got-requests)
		}
		if got := tally.Count(event.Acquired); got != 1 {
			t.Errorf("%d Acquired events for one hold, want 1", got)
		}
		if got := tally.Count(event.Info); got != 2 {
			t.Errorf("%d Info events for 2 re-entries, want 2", got)
		}
		if m.Token() != token || m.Node() != node {
			t.Errorf("re-entry changed the hold: token %d→%d, node %s→%s", token, m.Token(), node, m.Node())
		}
		for range 3 {
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := tally.Count(event.Released); got != 1 {
			t.Errorf("%d Released events, want 1 (only the last Unlock releases)", got)
		}
		locktest.AssertClean(t, conn, root, dir)
	})

	t.Run("N Locks need N Unlocks before another owner gets in", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		holder := newMutex(t, seqlocktest.Session(t), dir)
		other := newMutex(t, seqlocktest.Session(t), dir)
		waiter := newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		const n = 3
		for range n {
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// A second owner already queues up and blocks.
		got := make(chan error, 1)
		go func() { got <- waiter.Lock(ctx) }()

		for i := 1; i < n; i++ {
			if err := holder.Unlock(ctx); err != nil {
				t.Fatalf("Unlock %d: %v", i, err)
			}
			if err := other.TryLock(ctx); !errors.Is(err, reentrant.ErrLocked) {
				t.Fatalf("after %d of %d Unlocks, another owner's TryLock = %v, want ErrLocked", i, n, err)
			}
			select {
			case err := <-got:
				t.Fatalf("after %d of %d Unlocks, a waiting owner's Lock returned %v", i, n, err)
			default:
			}
		}
		if err := holder.Unlock(ctx); err != nil {
			t.Fatalf("Unlock %d: %v", n, err)
		}
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("waiter's Lock after the last Unlock: %v", err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("the waiter never got the lock after the last Unlock")
		}
		if err := waiter.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("an Unlock by another owner is refused and the lock stays held", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		connS, conn := seqlocktest.SessionConn(t)
		holder := newMutex(t, connS, dir)
		// Another owner on the same session, and one in another process.
		sameConn, otherConn := newMutex(t, connS, dir), newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		for range 2 {
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		node := holder.Node()
		for name, o := range map[string]*reentrant.Mutex{"same session": sameConn, "other session": otherConn} {
			if err := o.Unlock(ctx); !errors.Is(err, reentrant.ErrNotHeld) {
				t.Errorf("%s: Unlock = %v, want ErrNotHeld", name, err)
			}
			if err := o.TryLock(ctx); !errors.Is(err, reentrant.ErrLocked) {
				t.Errorf("%s: TryLock after its Unlock = %v, want ErrLocked", name, err)
			}
		}
		if got := holder.Depth(); got != 2 {
			t.Errorf("holder's Depth = %d after foreign Unlocks, want 2", got)
		}
		if got := zktest.Tree(t, conn, dir); len(got) != 1 || got[0] != node {
			t.Errorf("lock dir after foreign Unlocks:\n  %s\nwant only %s", zktest.Describe(got), node)
		}
		for range 2 {
			if err := holder.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("the count never goes negative", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		m := newMutex(t, seqlocktest.Session(t), dir)
		other := newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := m.Unlock(ctx); !errors.Is(err, reentrant.ErrNotHeld) {
				t.Fatalf("extra Unlock %d = %v, want ErrNotHeld", i+1, err)
			}
			if got := m.Depth(); got != 0 {
				t.Fatalf("Depth = %d after an extra Unlock, want 0", got)
			}
		}
		// Had the extra Unlocks counted below zero, this Lock would leave
		// the depth at 0 or less and the lock looking free.
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if got := m.Depth(); got != 1 {
			t.Errorf("Depth = %d after one Lock, want 1", got)
		}
		if err := other.TryLock(ctx); !errors.Is(err, reentrant.ErrLocked) {
			t.Errorf("another owner's TryLock = %v, want ErrLocked", err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("TryLock re-enters like Lock", func(t *testing.T) {
		root := zktest.Root(t)
		m := newMutex(t, seqlocktest.Session(t), root+"/lock")
		ctx := zktest.Context(t)
		for range 2 {
			if err := m.TryLock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := m.Depth(); got != 2 {
			t.Errorf("Depth = %d after two TryLocks, want 2", got)
		}
		for range 2 {
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("a Lock with a finished context fails even when it would only re-enter", func(t *testing.T) {
		root := zktest.Root(t)
		m := newMutex(t, seqlocktest.Session(t), root+"/lock")
		ctx := zktest.Context(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		if err := m.Lock(done); !errors.Is(err, context.Canceled) {
			t.Errorf("Lock(cancelled ctx) = %v, want context.Canceled", err)
		}
		if got := m.Depth(); got != 1 {
			t.Errorf("Depth = %d, want 1", got)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("an Unlock with a finished context still releases the lock", func(t *testing.T) {
		// The usual defer m.Unlock(ctx) runs after ctx was cancelled.
		root := zktest.Root(t)
		dir := root + "/lock"
		connS, conn := seqlocktest.SessionConn(t)
		m := newMutex(t, connS, dir)
		other := newMutex(t, seqlocktest.Session(t), dir)
		ctx := zktest.Context(t)
		for range 2 {
			if err := m.Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		for range 2 {
			err := m.Unlock(done)
			t.Logf("Unlock(cancelled ctx) = %v", err)
		}
		if got := m.Depth(); got != 0 {
			t.Fatalf("Depth = %d after two Unlocks with a cancelled ctx, want 0", got)
		}
		if err := other.Lock(ctx); err != nil {
			t.Fatalf("another owner could not get the lock: %v", err)
		}
		if err := other.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		locktest.AssertClean(t, conn, root, dir)
	})
}

// The bug Curator users hit: the count in memory says "held" while the
// session that held the lock has expired and another client owns it.
// Decision: re-entry is refused with ErrLost (it does NOT silently take a
// new node): the outer critical section ran unprotected for a while, and
// only the code that started it can decide what to do about that.
func TestReentryAfterSessionExpiryReportsTheLoss(t *testing.T) {
	const sessionTimeout = time.Second
	root := zktest.Root(t)
	dir := root + "/lock"
	connS, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
	conn := connS.Conn()
	adminS, admin := seqlocktest.SessionConn(t)
	var said infoLog
	holder := newMutex(t, connS, dir, seqlock.WithObserver(said.observe))
	other := newMutex(t, adminS, dir)
	ctx := zktest.Context(t)

	for range 2 {
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	oldToken := holder.Token()
	// The server ends the session at once (another connection takes it
	// over and closes it): this test is about what the holder does once
	// it has expired, not about how long that takes.
	zktest.Expire(t, conn, proxy)

	// Meanwhile the lock is free for everyone else: our node died with
	// the session.
	if err := other.Lock(ctx); err != nil {
		t.Fatalf("another client could not take the lock after the expiry: %v", err)
	}

	// Re-entry must not pretend: the holder's node is gone.
	err := holder.Lock(ctx)
	if !errors.Is(err, reentrant.ErrLost) {
		t.Fatalf("re-entry after the session expired = %v, want an error wrapping ErrLost", err)
	}
	t.Logf("re-entry after expiry: %v", err)
	if got := zktest.Tree(t, admin, dir); len(got) != 1 || got[0] != other.Node() {
		t.Fatalf("lock dir:\n  %s\nwant only the new holder's node %s", zktest.Describe(got), other.Node())
	}
	if got := holder.Depth(); got != 2 {
		t.Fatalf("Depth = %d after a refused re-entry, want 2 (unchanged)", got)
	}
	said.mustHaveSaid(t, "re-entry refused at depth 2: ")
	// Each level of the nested critical section learns it was not protected.
	for depth := 2; depth >= 1; depth-- {
		if err := holder.Unlock(ctx); !errors.Is(err, reentrant.ErrLost) {
			t.Fatalf("Unlock at depth %d = %v, want an error wrapping ErrLost", depth, err)
		}
	}
	if err := holder.Unlock(ctx); !errors.Is(err, reentrant.ErrNotHeld) {
		t.Fatalf("Unlock after the last one = %v, want ErrNotHeld", err)
	}
	said.mustHaveSaid(t, "left depth 2 of a lost lock")
	if got := other.Depth(); got != 1 {
		t.Fatalf("the new holder's Depth = %d, want 1", got)
	}
	if err := other.Unlock(ctx); err != nil {
		t.Fatal(err)
	}

	// The Session was one session, and it is over: a Lock on it says so,
	// and takes nothing.
	if err := holder.Lock(ctx); !errors.Is(err, seqlock.ErrSessionExpired) {
		t.Fatalf("Lock after the loss was reported = %v, want ErrSessionExpired (a Session is one session)", err)
	}
	if holder.Depth() != 0 || holder.Token() != 0 {
		t.Errorf("after a refused Lock: depth %d token %d, want 0 and 0 (old token %d)", holder.Depth(), holder.Token(), oldToken)
	}
	locktest.AssertClean(t, admin, root, dir)
}

// This chapter's flaw: re-entry is a decision made from local knowledge.
// While the holder is cut off and has not yet heard that its session
// expired, its count still says "held", and a re-entry succeeds although
// the server already gave the lock to someone else. Chapter 04's
// client-side loss detection (on by default, with the granted session
// timeout) closes that window; WithoutDisconnectCheck() turns it off.
func TestReentryDuringAPartition(t *testing.T) {
	const sessionTimeout = 1500 * time.Millisecond
	for _, c := range []struct {
		name string
		flaw bool
		opts []seqlock.Option
	}{
		{"with the disconnection check off a cut-off holder re-enters a lock someone else holds", true, []seqlock.Option{seqlock.WithoutDisconnectCheck()}},
		{"with the granted session timeout (the default) a cut-off holder's re-entry is refused", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := zktest.Root(t)
			dir := root + "/lock"
			connS, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
			adminS := seqlocktest.Session(t)
			holder := newMutex(t, connS, dir, c.opts...)
			other := newMutex(t, adminS, dir)
			ctx := zktest.Context(t)
			if err := holder.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := proxy.Cut(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(proxy.Restore)
			cut := time.Now()
			lostAt := make(chan time.Duration, 1)
			go func(lost <-chan struct{}) {
				select {
				case <-lost:
					lostAt <- time.Since(cut)
				case <-ctx.Done():
				}
			}(holder.Lost())
			if err := other.Lock(ctx); err != nil {
				t.Fatalf("the server never gave the lock away: %v", err)
			}
			taken := time.Since(cut)

			if c.flaw {
				// The flaw, measured: two owners believe they hold it.
				if err := holder.Lock(ctx); err != nil {
					t.Fatalf("re-entry = %v; the flaw this test measures is gone", err)
				}
				t.Logf("another client took the lock %v after the cut; the cut-off holder then re-entered to depth %d: two owners",
					taken.Round(time.Millisecond), holder.Depth())
				proxy.Restore()
				// Once reconnected it learns the truth, at every depth.
				select {
				case at := <-lostAt:
					t.Logf("reconnected: the holder learned of the loss %v after the cut", at.Round(time.Millisecond))
				case <-time.After(zktest.Patience):
					t.Fatal("the holder never learned it had lost the lock")
				}
				for range 2 {
					if err := holder.Unlock(ctx); !errors.Is(err, reentrant.ErrLost) {
						t.Errorf("Unlock after reconnecting = %v, want ErrLost", err)
					}
				}
			} else {
				select {
				case at := <-lostAt:
					t.Logf("cut at 0: the holder declared the lock lost at %v, another client took it at %v",
						at.Round(time.Millisecond), taken.Round(time.Millisecond))
				case <-time.After(zktest.Patience):
					t.Fatal("Lost never closed while cut off")
				}
				if err := holder.Lock(ctx); !errors.Is(err, reentrant.ErrLost) {
					t.Fatalf("re-entry while cut off = %v, want ErrLost", err)
				}
				proxy.Restore()
				if err := holder.Unlock(ctx); !errors.Is(err, reentrant.ErrLost) {
					t.Errorf("Unlock = %v, want ErrLost", err)
				}
			}
			if err := other.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The trade-off of "a Mutex is an owner": goroutines that share one Mutex
// are one owner, so they do not exclude each other. Each goroutine that
// must be excluded needs its own Mutex.
func TestGoroutinesSharingAMutexAreOneOwner(t *testing.T) {
	root := zktest.Root(t)
	dir := root + "/lock"
	connS := seqlocktest.Session(t)
	shared := newMutex(t, connS, dir)
	own := newMutex(t, connS, dir)
	ctx := zktest.Context(t)
	if err := shared.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		// Another goroutine, same Mutex: it re-enters at once.
		done <- shared.Lock(ctx)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(zktest.Patience):
		t.Fatal("a goroutine sharing the holder's Mutex was made to wait")
	}
	if got := shared.Depth(); got != 2 {
		t.Errorf("Depth = %d, want 2: both goroutines are inside", got)
	}
	// A goroutine with its own Mutex, even on the same session, is excluded.
	if err := own.TryLock(ctx); !errors.Is(err, reentrant.ErrLocked) {
		t.Errorf("own Mutex TryLock = %v, want ErrLocked", err)
	}
	for range 2 {
		if err := shared.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// Many goroutines on one session, each with its own Mutex, each going
// three levels deep: the in-memory counter, guarded only by the lock, ends
// exact and nobody is ever inside together with another owner.
func TestNestedCriticalSectionsExcludeOtherOwners(t *testing.T) {
	const owners, rounds, depth = 10, 3, 3
	root := zktest.Root(t)
	dir := root + "/lock"
	connS, conn := seqlocktest.SessionConn(t)
	var tally event.Tally
	var inside atomic.Int32
	counter := 0
	var wg sync.WaitGroup
	errs := make(chan error, owners)
	start := time.Now()
	for i := range owners {
		m := newMutex(t, connS, dir, seqlock.WithObserver(tally.Observe))
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := zktest.Context(t)
			var nest func(level int) error
			nest = func(level int) error {
				if err := m.Lock(ctx); err != nil {
					return err
				}
				if level == 1 {
					if in := inside.Add(1); in != 1 {
						errs <- fmt.Errorf("owner %d: %d owners inside at once", i, in)
					}
				}
				var err error
				if level < depth {
					err = nest(level + 1)
				} else {
					v := counter
					time.Sleep(time.Millisecond)
					counter = v + 1
				}
				if level == 1 {
					inside.Add(-1)
				}
				return errors.Join(err, m.Unlock(ctx))
			}
			for range rounds {
				if err := nest(1); err != nil {
					errs <- fmt.Errorf("owner %d: %w", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if counter != owners*rounds {
		t.Errorf("counter = %d, want %d", counter, owners*rounds)
	}
	acq := tally.Count(event.Acquired)
	if acq != owners*rounds {
		t.Errorf("%d acquisitions in ZooKeeper, want %d (one per outermost Lock)", acq, owners*rounds)
	}
	if got, want := tally.Count(event.Info), owners*rounds*2*(depth-1); got != want {
		t.Errorf("%d Info events, want %d (one per re-entry and one per inner Unlock)", got, want)
	}
	t.Logf("%d owners × %d rounds × depth %d on one session: %d requests, %.1f per acquisition, %v",
		owners, rounds, depth, tally.Requests(""), float64(tally.Requests(""))/float64(acq), time.Since(start).Round(time.Millisecond))
	locktest.AssertClean(t, conn, root, dir)
}

func ExampleMutex() {
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	ctx := context.Background()

	job, _ := reentrant.New(s, "/reentrant-example")
	other, _ := reentrant.New(s, "/reentrant-example")

	// save takes the lock itself, so it is safe to call on its own, and
	// also from inside a section that already holds the lock.
	save := func() error {
		if err := job.Lock(ctx); err != nil {
			return err
		}
		defer job.Unlock(ctx)
		fmt.Println("saving at depth", job.Depth())
		return nil
	}

	if err := job.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("job holds the lock at depth", job.Depth())
	if err := save(); err != nil {
		fmt.Println(err)
	}
	fmt.Println("back at depth", job.Depth())
	fmt.Println("other tries:", other.TryLock(ctx))
	fmt.Println("other unlocks:", other.Unlock(ctx))
	fmt.Println("job unlocks:", job.Unlock(ctx), "depth", job.Depth())
	fmt.Println("job unlocks again:", job.Unlock(ctx))
	fmt.Println("other tries again:", other.TryLock(ctx))
	fmt.Println("other unlocks:", other.Unlock(ctx))
	// Output:
	// job holds the lock at depth 1
	// saving at depth 2
	// back at depth 1
	// other tries: seqlock: locked by another contender
	// other unlocks: seqlock: not held
	// job unlocks: <nil> depth 0
	// job unlocks again: seqlock: not held
	// other tries again: <nil>
	// other unlocks: <nil>
}

// infoLog keeps what a Mutex tells its observer as Info: the timeline of
// the demos and the visualizer, where a learner sees the depth move.
type infoLog struct {
	mu   sync.Mutex
	said []string
}

func (l *infoLog) observe(e event.Event) {
	if e.Kind == event.Info {
		l.mu.Lock()
		l.said = append(l.said, e.Detail)
		l.mu.Unlock()
	}
}

func (l *infoLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.said)
}

func (l *infoLog) mustHaveSaid(t testing.TB, prefix string) {
	t.Helper()
	for _, s := range l.lines() {
		if strings.HasPrefix(s, prefix) {
			return
		}
	}
	t.Fatalf("the Mutex never said %q…; it said %q", prefix, l.lines())
}

// TestTheTimelineTellsEachDepth: each re-entry and each inner Unlock says
// the depth it leaves the Mutex at, as the demos and the visualizer show it.
func TestTheTimelineTellsEachDepth(t *testing.T) {
	ctx := zktest.Context(t)
	var said infoLog
	m := newMutex(t, seqlocktest.Session(t), zktest.Root(t)+"/lock", recorded(t, said.observe))
	for range 3 {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"re-entered, depth 2", "re-entered, depth 3", "left depth 3, still held at depth 2", "left depth 2, still held at depth 1"}
	if got := said.lines(); !slices.Equal(got, want) {
		t.Fatalf("the Mutex said %q, want %q", got, want)
	}
}
