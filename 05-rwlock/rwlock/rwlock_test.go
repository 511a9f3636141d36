package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// TestWriteSideConformance runs the shared suite on the write side: on its
// own it is an ordinary exclusive lock.
func TestWriteSideConformance(t *testing.T) {
	locktest.Run(t, locktest.Impl{
		Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
			s := seqlocktest.Session(tb)
			return s.Conn(), func(path string, obs event.Observer) (locktest.Locker, error) {
				m, err := rwlock.New(s, path, seqlock.WithObserver(obs))
				if err != nil {
					return nil, err
				}
				return m.Write(), nil
			}
		},
		ErrNotHeld: rwlock.ErrNotHeld,
		ErrLocked:  rwlock.ErrLocked,
	})
}

// TestReadSideBadInput runs the bad-input table on the read side too.
func TestReadSideBadInput(t *testing.T) {
	locktest.BadInput(t, locktest.Impl{
		Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
			s := seqlocktest.Session(tb)
			return s.Conn(), func(path string, obs event.Observer) (locktest.Locker, error) {
				m, err := rwlock.New(s, path, seqlock.WithObserver(obs))
				if err != nil {
					return nil, err
				}
				return m.Read(), nil
			}
		},
		ErrNotHeld: rwlock.ErrNotHeld,
	})
}

// recorder keeps every event, so a test can wait until a contender is
// queued (its Waiting event) instead of sleeping.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) observe(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) count(owner string, kind event.Kind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Owner == owner && e.Kind == kind {
			n++
		}
	}
	return n
}

// order lists the owners of the events of kind, in the order they happened.
func (r *recorder) order(kind event.Kind) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e.Owner)
		}
	}
	return out
}

func (r *recorder) waitQueued(t testing.TB, owner string) {
	t.Helper()
	zktest.Eventually(t, zktest.Patience, owner+" never queued", func() bool { return r.count(owner, event.Waiting) > 0 })
}

// mutex returns a new RWMutex on dir with its own session, reporting to
// obs as owner.
func mutex(t testing.TB, dir, owner string, obs event.Observer) *rwlock.RWMutex {
	t.Helper()
	m, err := rwlock.New(seqlocktest.Session(t), dir, seqlock.WithObserver(zktest.Observe(t, owner, obs)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lockAsync starts Lock in a goroutine; the channel gets its result.
func lockAsync(ctx context.Context, s *rwlock.Side) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.Lock(ctx) }()
	return done
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func await(t testing.TB, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(zktest.Patience):
		t.Fatalf("%s: still waiting after %v", what, zktest.Patience)
	}
}

func pending(done <-chan error) bool {
	select {
	case <-done:
		return false
	default:
		return true
	}
}

func TestReadersShareWritersExclude(t *testing.T) {
	t.Run("two readers hold the lock at once", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		var readers contend.Occupancy
		a, b := mutex(t, dir, "a", nil), mutex(t, dir, "b", nil)
		must(t, a.Read().Lock(ctx))
		readers.Enter()
		must(t, b.Read().Lock(ctx)) // returns while a still reads
		readers.Enter()
		if got := readers.Peak(); got != 2 {
			t.Fatalf("occupancy reached %d, want 2 readers inside at once", got)
		}
		readers.Leave()
		must(t, a.Read().Unlock(ctx))
		readers.Leave()
		must(t, b.Read().Unlock(ctx))
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a writer waits for every reader and then holds the lock alone", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec := &recorder{}
		r1, r2 := mutex(t, dir, "r1", rec.observe), mutex(t, dir, "r2", rec.observe)
		w := mutex(t, dir, "w", rec.observe)
		must(t, r1.Read().Lock(ctx))
		must(t, r2.Read().Lock(ctx))
		wdone := lockAsync(ctx, w.Write())
		rec.waitQueued(t, "w")
		must(t, r1.Read().Unlock(ctx))
		if !pending(wdone) {
			t.Fatal("the writer got in while a reader still held the lock")
		}
		must(t, r2.Read().Unlock(ctx))
		await(t, wdone, "writer")
		// Now nobody else gets in, reader or writer.
		if err := r1.Read().TryLock(ctx); !errors.Is(err, rwlock.ErrLocked) {
			t.Fatalf("reader TryLock beside a writer = %v, want ErrLocked", err)
		}
		if err := r2.Write().TryLock(ctx); !errors.Is(err, rwlock.ErrLocked) {
			t.Fatalf("writer TryLock beside a writer = %v, want ErrLocked", err)
		}
		must(t, w.Write().Unlock(ctx))
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a reader queued behind a waiting writer does not overtake it", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec := &recorder{}
		a, w, b := mutex(t, dir, "A", rec.observe), mutex(t, dir, "W", rec.observe), mutex(t, dir, "B", rec.observe)
		must(t, a.Read().Lock(ctx))
		wdone := lockAsync(ctx, w.Write())
		rec.waitQueued(t, "W")
		bdone := lockAsync(ctx, b.Read())
		rec.waitQueued(t, "B")
		// B could share with A, but W asked first: B waits for W.
		if !pending(bdone) {
			t.Fatal("reader B got in ahead of the writer queued before it")
		}
		must(t, a.Read().Unlock(ctx))
		await(t, wdone, "writer W")
		if !pending(bdone) {
			t.Fatal("reader B got in while writer W holds the lock")
		}
		must(t, w.Write().Unlock(ctx))
		await(t, bdone, "reader B")
		must(t, b.Read().Unlock(ctx))
		if got := fmt.Sprint(rec.order(event.Acquired)); got != "[A W B]" {
			t.Fatalf("acquisition order %s, want [A W B]", got)
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("readers and writers mixed: a writer is never inside with anyone and no update is lost", func(t *testing.T) {
		const readers, writers, rounds = 3, 2, 5
		root := zktest.Root(t)
		dir, counter := root+"/lock", root+"/counter"
		admin := zktest.Connect(t)
		_, err := admin.Create(counter, []byte("0"), 0, zk.WorldACL(zk.PermAll))
		must(t, err)
		ctx := zktest.Context(t)
		var readersIn contend.Occupancy
		var writersIn atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, (readers+writers)*rounds)
		for i := range readers + writers {
			reader := i < readers
			connS, conn := seqlocktest.SessionConn(t)
			m, err := rwlock.New(connS, dir, seqlock.WithObserver(zktest.ObserveNext(t, "client")))
			must(t, err)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					if reader {
						if err := m.Read().Lock(ctx); err != nil {
							errs <- err
							return
						}
						readersIn.Enter()
						if writersIn.Load() != 0 {
							errs <- errors.New("a reader is inside with a writer")
						}
						_, _, err := conn.Get(counter)
						time.Sleep(2 * time.Millisecond)
						readersIn.Leave()
						errs <- errors.Join(err, m.Read().Unlock(ctx))
						continue
					}
					if err := m.Write().Lock(ctx); err != nil {
						errs <- err
						return
					}
					if w := writersIn.Add(1); w != 1 || readersIn.Inside() != 0 {
						errs <- fmt.Errorf("a writer is inside with %d writers and %d readers", w, readersIn.Inside())
					}
					b, _, err := conn.Get(counter) // the articles' unguarded age++
					if err == nil {
						v, _ := strconv.Atoi(string(b))
						time.Sleep(time.Millisecond)
						_, err = conn.Set(counter, []byte(strconv.Itoa(v+1)), -1)
					}
					writersIn.Add(-1)
					errs <- errors.Join(err, m.Write().Unlock(ctx))
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		b, _, err := admin.Get(counter)
		must(t, err)
		if got := string(b); got != strconv.Itoa(writers*rounds) {
			t.Errorf("counter = %s, want %d: updates were lost", got, writers*rounds)
		}
		t.Logf("at most %d readers were inside at once (%d readers, %d writers, %d rounds)", readersIn.Peak(), readers, writers, rounds)
		locktest.AssertClean(t, admin, root, dir, counter)
	})
}

// TestOnlyTheRightWaitersWake counts notifications: each release wakes
// exactly the contenders that can now make progress.
func TestOnlyTheRightWaitersWake(t *testing.T) {
	t.Run("when a writer leaves, every reader behind it wakes", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec, tally := &recorder{}, &event.Tally{}
		obs := event.Tee(rec.observe, tally.Observe)
		w := mutex(t, dir, "w", obs)
		must(t, w.Write().Lock(ctx))
		var readers []*rwlock.RWMutex
		var done []<-chan error
		for i := range 3 {
			name := fmt.Sprintf("r%d", i+1)
			r := mutex(t, dir, name, obs)
			readers = append(readers, r)
			done = append(done, lockAsync(ctx, r.Read()))
			rec.waitQueued(t, name)
		}
		tally.Reset()
		must(t, w.Write().Unlock(ctx))
		for i, d := range done {
			await(t, d, fmt.Sprintf("reader %d", i+1))
		}
		if n := tally.Count(event.Notified); n != 3 {
			zktest.Recorder(t).Broke(fmt.Sprintf("one writer's release woke %d readers; every reader behind it wakes (3)", n))
			t.Errorf("one writer's release caused %d notifications, want 3 (one per reader behind it)", n)
		}
		t.Logf("writer release: %d notifications, %d requests", tally.Count(event.Notified), tally.Requests(""))
		for _, r := range readers {
			must(t, r.Read().Unlock(ctx))
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("when a reader leaves, only a writer right behind it wakes", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec, tally := &recorder{}, &event.Tally{}
		obs := event.Tee(rec.observe, tally.Observe)
		// Queue: r1 r2 r3 (holding) · w1 · w2 · r4 (waiting).
		var holders []*rwlock.RWMutex
		for i := range 3 {
			r := mutex(t, dir, fmt.Sprintf("r%d", i+1), obs)
			must(t, r.Read().Lock(ctx))
			holders = append(holders, r)
		}
		w1, w2, r4 := mutex(t, dir, "w1", obs), mutex(t, dir, "w2", obs), mutex(t, dir, "r4", obs)
		w1done := lockAsync(ctx, w1.Write())
		rec.waitQueued(t, "w1")
		w2done := lockAsync(ctx, w2.Write())
		rec.waitQueued(t, "w2")
		r4done := lockAsync(ctx, r4.Read())
		rec.waitQueued(t, "r4")

		tally.Reset()
		must(t, holders[0].Read().Unlock(ctx))
		must(t, holders[1].Read().Unlock(ctx))
		// Nobody watches r1 or r2: w1 watches only r3, the node right before it.
		if n := tally.Count(event.Notified); n != 0 {
			zktest.Recorder(t).Broke(fmt.Sprintf("two readers' releases woke %d waiters; with a reader still holding, nobody wakes", n))
			t.Errorf("releasing two readers with a reader still holding woke %d waiters, want 0", n)
		}
		must(t, holders[2].Read().Unlock(ctx))
		await(t, w1done, "w1")
		if got := rec.count("w1", event.Notified); got != 1 {
			t.Errorf("w1 was notified %d times, want 1", got)
		}
		if n := tally.Count(event.Notified); n != 1 {
			zktest.Recorder(t).BrokeWhere(func(es []event.Event) int { return event.Herd(es, 1) },
				fmt.Sprintf("the last reader's release woke %d waiters; only the writer right behind it wakes", n))
			t.Errorf("the last reader's release caused %d notifications, want 1 (only w1)", n)
		}
		must(t, w1.Write().Unlock(ctx))
		await(t, w2done, "w2")
		must(t, w2.Write().Unlock(ctx))
		await(t, r4done, "r4")
		must(t, r4.Read().Unlock(ctx))
		t.Logf("notifications per owner: w1=%d w2=%d r4=%d", rec.count("w1", event.Notified), rec.count("w2", event.Notified), rec.count("r4", event.Notified))
		// r4 watches the LAST writer ahead of it (w2), so w1 leaving does
		// not wake it: one notification, when w2 leaves.
		if got := rec.count("r4", event.Notified); got != 1 {
			zktest.Recorder(t).Broke(fmt.Sprintf("r4 was woken %d times; a reader watches only the last writer ahead of it", got))
			t.Errorf("r4 was notified %d times, want 1: a reader watches only the last writer ahead of it", got)
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})
}

// TestRequestsPerContendedAcquire counts what a waiter sends from Lock to
// the end of its Unlock: create, children, get (the watch), children after
// the notification, delete — the five requests a predecessor-watch lock
// needs, for a writer behind a writer and for a reader behind a writer.
func TestRequestsPerContendedAcquire(t *testing.T) {
	for _, reader := range []bool{false, true} {
		name := map[bool]string{false: "a writer", true: "a reader"}[reader]
		t.Run(name+" behind a writer sends five requests and gets one notification", func(t *testing.T) {
			root := zktest.Root(t)
			dir := root + "/lock"
			ctx := zktest.Context(t)
			rec, tally := &recorder{}, &event.Tally{}
			// One session for both: it has made the lock directory by the
			// time m queues, so m's count is the lock's own requests.
			s := seqlocktest.Session(t)
			w, err := rwlock.New(s, dir, seqlock.WithObserver(event.Observer(rec.observe).WithOwner("w")))
			must(t, err)
			must(t, w.Write().Lock(ctx))
			m, err := rwlock.New(s, dir, seqlock.WithObserver(event.Tee(rec.observe, tally.Observe).WithOwner("m")))
			must(t, err)
			side := m.Write()
			if reader {
				side = m.Read()
			}
			done := lockAsync(ctx, side)
			rec.waitQueued(t, "m")
			must(t, w.Write().Unlock(ctx))
			await(t, done, name)
			must(t, side.Unlock(ctx))
			t.Logf("%s behind a writer: %d requests (create %d, children %d, get %d, delete %d), %d notification(s)", name,
				tally.Requests(""), tally.Requests("create"), tally.Requests("children"), tally.Requests("get"), tally.Requests("delete"), tally.Count(event.Notified))
			if tally.Requests("") != 5 || tally.Requests("children") != 2 || tally.Count(event.Notified) != 1 {
				t.Errorf("%d requests (%d listings) and %d notifications, want 5 (create, children, get, children, delete) and 1",
					tally.Requests(""), tally.Requests("children"), tally.Count(event.Notified))
			}
			locktest.AssertClean(t, zktest.Connect(t), root, dir)
		})
	}
}

func TestWatchesLeaveNothingBehind(t *testing.T) {
	t.Run("a blocker gone before our watch leaves no watch behind", func(t *testing.T) {
		// Right before the waiter's GetW on the writer it waits for (the
		// observer runs just before each request), that writer's node is
		// deleted. GetW fails with ErrNoNode, registers nothing, and the
		// waiter lists again and holds. An ExistsW there would have left a
		// watch on a path that is never created again; the control below
		// shows the server keeping exactly that.
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		w := mutex(t, dir, "w", nil)
		must(t, w.Write().Lock(ctx))
		blocker := zktest.Tree(t, admin, dir)[0]
		var tally event.Tally
		var deleted atomic.Bool
		obs := func(e event.Event) {
			tally.Observe(e)
			if e.Kind == event.Request && e.Op == "get" && e.Node == blocker && deleted.CompareAndSwap(false, true) {
				if err := admin.Delete(blocker, -1); err != nil {
					t.Errorf("delete %s: %v", blocker, err)
				}
			}
		}
		r := mutex(t, dir, "r", obs)
		must(t, r.Read().Lock(ctx))
		if !deleted.Load() {
			t.Fatal("the reader never asked to watch the writer's node")
		}
		if tally.Count(event.Waiting) != 0 || tally.Requests("children") != 2 {
			t.Errorf("waits %d, listings %d: want no wait and a second listing", tally.Count(event.Waiting), tally.Requests("children"))
		}
		if zktest.Watched(t, blocker) {
			t.Errorf("the server still keeps a watch on %s", blocker)
		}
		// Control: ExistsW on the same missing path does leave a watch.
		if _, _, _, err := admin.ExistsW(blocker); err != nil {
			t.Fatal(err)
		}
		if !zktest.Watched(t, blocker) {
			t.Errorf("control failed: wchp does not show the ExistsW watch on %s", blocker)
		}
		lost := w.Write().Lost()
		if err := w.Write().Unlock(ctx); !errors.Is(err, rwlock.ErrLost) {
			t.Errorf("the writer whose node was deleted: Unlock = %v, want ErrLost", err)
		}
		waitClosed(t, lost, "the writer whose node was deleted never saw Lost")
		must(t, r.Read().Unlock(ctx))
		locktest.AssertClean(t, admin, root, dir)
	})

	t.Run("holding sets no watch; someone deleting the holder's node is reported by Unlock and closes Lost", func(t *testing.T) {
		// The core does not watch its own node (that would cost a request
		// and a notification per hold): an uncontended Lock is a create and
		// a listing. A deletion by someone else is seen at Unlock.
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		var tally event.Tally
		m := mutex(t, dir, "m", tally.Observe)
		must(t, m.Write().Lock(ctx))
		if tally.Requests("get") != 0 || tally.Requests("children") != 1 || tally.Count(event.WatchSet) != 0 {
			t.Errorf("an uncontended Lock sent %d gets, %d listings and set %d watches, want one listing and no watch",
				tally.Requests("get"), tally.Requests("children"), tally.Count(event.WatchSet))
		}
		node := m.Write().Node()
		if zktest.Watched(t, node) {
			t.Errorf("the server keeps a watch on the holder's own node %s", node)
		}
		must(t, admin.Delete(node, -1))
		lost := m.Write().Lost()
		if err := m.Write().Unlock(ctx); !errors.Is(err, rwlock.ErrLost) {
			t.Fatalf("Unlock after someone deleted our node = %v, want ErrLost", err)
		}
		waitClosed(t, lost, "Lost never closed after Unlock found the node deleted")
		if m.Write().Token() != 0 {
			t.Error("Token() after Unlock is not 0")
		}
		locktest.AssertClean(t, admin, root, dir)
	})
}

func waitClosed(t testing.TB, ch <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(zktest.Patience):
		t.Fatal(msg)
	}
}

func TestDowngradeAndUpgrade(t *testing.T) {
	t.Run("the write holder can take the read lock and then release the write lock", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		m, other := mutex(t, dir, "m", nil), mutex(t, dir, "other", nil)
		must(t, m.Write().Lock(ctx))
		must(t, m.Read().Lock(ctx)) // granted at once: only our own writer is before it
		must(t, m.Write().Unlock(ctx))
		// Downgraded: other readers share with us, writers still wait.
		must(t, other.Read().TryLock(ctx))
		must(t, other.Read().Unlock(ctx))
		if err := other.Write().TryLock(ctx); !errors.Is(err, rwlock.ErrLocked) {
			t.Fatalf("writer TryLock beside a downgraded reader = %v, want ErrLocked", err)
		}
		must(t, m.Read().Unlock(ctx))
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a downgrade with another writer already queued is refused at once", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec := &recorder{}
		m, w2 := mutex(t, dir, "m", rec.observe), mutex(t, dir, "w2", rec.observe)
		must(t, m.Write().Lock(ctx))
		w2done := lockAsync(ctx, w2.Write())
		rec.waitQueued(t, "w2")
		// Our reader would sit behind w2, which waits for our writer.
		if err := m.Read().Lock(ctx); !errors.Is(err, rwlock.ErrDowngrade) {
			t.Fatalf("Read().Lock = %v, want ErrDowngrade", err)
		}
		if !pending(w2done) {
			t.Fatal("w2 got in while we still hold the write lock")
		}
		must(t, m.Write().Unlock(ctx))
		await(t, w2done, "w2")
		must(t, w2.Write().Unlock(ctx))
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a read holder asking for the write lock gets ErrUpgrade at once", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		connS, conn := seqlocktest.SessionConn(t)
		m, err := rwlock.New(connS, dir, seqlock.WithObserver(zktest.Observe(t, "holder")))
		must(t, err)
		must(t, m.Read().Lock(ctx))
		start := time.Now()
		if err := m.Write().Lock(ctx); !errors.Is(err, rwlock.ErrUpgrade) {
			t.Fatalf("Write().Lock = %v, want ErrUpgrade", err)
		}
		t.Logf("ErrUpgrade after %v (Curator's would wait for ever)", time.Since(start))
		// Nothing was queued on our behalf: only our read node is there.
		if nodes := zktest.Tree(t, conn, dir); len(nodes) != 1 {
			t.Fatalf("after ErrUpgrade the directory holds %v, want only our read node", nodes)
		}
		must(t, m.Read().Unlock(ctx))
		must(t, m.Write().Lock(ctx)) // after releasing the read lock, fine
		must(t, m.Write().Unlock(ctx))
		locktest.AssertClean(t, conn, root, dir)
	})
}

func TestTryLockAndContext(t *testing.T) {
	t.Run("a reader's TryLock succeeds beside readers and fails behind a writer", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		a, b, w := mutex(t, dir, "a", nil), mutex(t, dir, "b", nil), mutex(t, dir, "w", nil)
		must(t, a.Read().Lock(ctx))
		must(t, b.Read().TryLock(ctx))
		must(t, b.Read().Unlock(ctx))
		must(t, a.Read().Unlock(ctx))
		must(t, w.Write().Lock(ctx))
		if err := b.Read().TryLock(ctx); !errors.Is(err, rwlock.ErrLocked) {
			t.Fatalf("TryLock behind a writer = %v, want ErrLocked", err)
		}
		must(t, w.Write().Unlock(ctx))
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a reader whose context is cancelled behind a writer leaves nothing", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec := &recorder{}
		w, r := mutex(t, dir, "w", rec.observe), mutex(t, dir, "r", rec.observe)
		must(t, w.Write().Lock(ctx))
		rctx, cancel := context.WithCancel(ctx)
		rdone := lockAsync(rctx, r.Read())
		rec.waitQueued(t, "r")
		cancel()
		select {
		case err := <-rdone:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Lock = %v, want context.Canceled", err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("Lock did not return after cancel")
		}
		conn := zktest.Connect(t)
		if nodes := zktest.Tree(t, conn, dir); len(nodes) != 1 {
			t.Fatalf("after the cancelled Lock the directory holds %v, want only the writer's node", nodes)
		}
		must(t, w.Write().Unlock(ctx))
		locktest.AssertClean(t, conn, root, dir)
	})
}

// curatorName is the shape of a node Curator's InterProcessReadWriteLock
// creates: "_c_" + a canonical UUID + "-" + marker + sequence.
var curatorName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-__(READ|WRIT)__[0-9]{10}$`)

func TestCuratorNames(t *testing.T) {
	t.Run("lock nodes carry Curator's protected names", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		conn := zktest.Connect(t)
		r, w := mutex(t, dir, "r", nil), mutex(t, dir, "w", nil)
		must(t, r.Read().Lock(ctx))
		wdone := lockAsync(ctx, w.Write())
		zktest.Eventually(t, zktest.Patience, "the writer's node never appeared", func() bool {
			return len(zktest.Tree(t, conn, dir)) == 2
		})
		for _, n := range zktest.Tree(t, conn, dir) {
			name := n[len(dir)+1:]
			if !curatorName.MatchString(name) {
				t.Errorf("node %q does not look like Curator's", name)
			}
			t.Logf("node %s", name)
		}
		readToken := r.Read().Token()
		must(t, r.Read().Unlock(ctx))
		await(t, wdone, "writer")
		if tok := w.Write().Token(); tok <= readToken {
			t.Errorf("writer's token %d is not above the reader's %d before it", tok, readToken)
		}
		must(t, w.Write().Unlock(ctx))
		locktest.AssertClean(t, conn, root, dir)
	})

	t.Run("a writer node made by another client with Curator's name is waited for", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		conn := zktest.Connect(t)
		// What Curator's WriteLock would create (Curator makes the
		// directory a container node).
		_, err := conn.CreateContainer(dir, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll))
		must(t, err)
		foreign, err := conn.Create(dir+"/_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-__WRIT__", nil,
			zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		must(t, err)
		rec := &recorder{}
		r := mutex(t, dir, "r", rec.observe)
		rdone := lockAsync(ctx, r.Read())
		rec.waitQueued(t, "r")
		must(t, conn.Delete(foreign, -1)) // the Java writer unlocks
		await(t, rdone, "reader")
		must(t, r.Read().Unlock(ctx))
		locktest.AssertClean(t, conn, root, dir)
	})
}

func TestWithData(t *testing.T) {
	t.Run("both sides store WithData in their nodes, which Participants lists in queue order", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		connS, conn := seqlocktest.SessionConn(t)
		m, err := rwlock.New(connS, dir, seqlock.WithData([]byte("host-a")))
		must(t, err)
		must(t, m.Write().Lock(ctx))
		must(t, m.Read().Lock(ctx)) // a downgrade: both our nodes are in the queue
		ps, err := seqlock.Participants(ctx, conn, dir)
		must(t, err)
		if len(ps) != 2 || ps[0].Node != m.Write().Node() || ps[1].Node != m.Read().Node() {
			t.Fatalf("participants %v, want our writer then our reader", ps)
		}
		for _, p := range ps {
			if string(p.Data) != "host-a" {
				t.Errorf("%s holds %q, want host-a", p.Node, p.Data)
			}
		}
		must(t, m.Write().Unlock(ctx))
		must(t, m.Read().Unlock(ctx))
		locktest.AssertClean(t, conn, root, dir)
	})
}

// TestTokens: the token is chapter 04's (docs/concepts.md), the lock
// directory's pzxid in the listing that let the holder in.
func TestTokens(t *testing.T) {
	t.Run("no hold has token 0; each later holder, reader or writer, has a larger one", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		m, other := mutex(t, dir, "m", nil), mutex(t, dir, "other", nil)
		if tok := m.Write().Token(); tok != 0 {
			t.Errorf("Token() before any Lock = %d, want 0", tok)
		}
		var tokens []int64
		must(t, m.Write().Lock(ctx))
		tokens = append(tokens, m.Write().Token())
		must(t, m.Write().Unlock(ctx))
		must(t, m.Read().Lock(ctx))
		must(t, other.Read().Lock(ctx)) // shares with m
		tokens = append(tokens, m.Read().Token(), other.Read().Token())
		must(t, m.Read().Unlock(ctx))
		must(t, other.Read().Unlock(ctx))
		must(t, other.Write().Lock(ctx))
		tokens = append(tokens, other.Write().Token())
		must(t, other.Write().Unlock(ctx))
		for i, tok := range tokens {
			if tok <= 0 || i > 0 && tok <= tokens[i-1] {
				t.Errorf("tokens %v: want each above 0 and above the one before", tokens)
				break
			}
		}
		if m.Write().Token() != 0 || m.Read().Token() != 0 {
			t.Error("Token() after Unlock is not 0")
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a writer's token keeps growing after the empty container directory is reaped", func(t *testing.T) {
		// A new directory numbers its children from 0 again; the token
		// (a zxid) does not go back.
		fast := zktest.ReapsContainersFast(t)
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		conn := zktest.Connect(t)
		m := mutex(t, dir, "m", nil)
		var tokens []int64
		var seqs []string
		for range 2 {
			must(t, m.Write().Lock(ctx))
			tokens = append(tokens, m.Write().Token())
			seqs = append(seqs, m.Write().Node()[len(m.Write().Node())-10:])
			must(t, m.Write().Unlock(ctx))
			if !fast { // a stock server reaps once a minute: play the reaper
				must(t, conn.Delete(dir, -1))
			}
			zktest.Eventually(t, zktest.Patience, "the empty lock directory was never reaped", func() bool {
				ok, _, err := conn.Exists(dir)
				return err == nil && !ok
			})
		}
		if seqs[0] != seqs[1] {
			t.Errorf("sequences %v: expected the new directory to restart the count", seqs)
		}
		if tokens[1] <= tokens[0] {
			t.Fatalf("token %d after %d: tokens went backwards", tokens[1], tokens[0])
		}
		t.Logf("sequence numbers %v, tokens %v", seqs, tokens)
		locktest.AssertClean(t, conn, root, dir)
	})
}

func TestLostSession(t *testing.T) {
	const session = time.Second
	t.Run("Lost closes when the holder's session expires", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		connS, proxy := seqlocktest.SessionViaProxy(t, session)
		conn := connS.Conn()
		tally := &event.Tally{}
		m, err := rwlock.New(connS, dir, seqlock.WithObserver(tally.Observe))
		must(t, err)
		must(t, m.Write().Lock(ctx))
		start := time.Now()
		must(t, proxy.Expire(ctx, conn, session))
		select {
		case <-m.Write().Lost():
		case <-time.After(zktest.Patience):
			t.Fatal("Lost never closed after the session expired")
		}
		t.Logf("Lost closed %v after the link was cut (session timeout %v)", time.Since(start).Round(time.Millisecond), session)
		// The observer hears of the loss from a goroutine of its own,
		// just after Lost closes.
		zktest.Eventually(t, zktest.Patience, "no Lost event after Lost closed", func() bool { return tally.Count(event.Lost) > 0 })
		if n := tally.Count(event.Lost); n != 1 {
			t.Errorf("%d Lost events, want 1", n)
		}
		if err := m.Write().Unlock(ctx); !errors.Is(err, rwlock.ErrLost) {
			t.Errorf("Unlock after the loss = %v, want ErrLost", err)
		}
		// The lock is free for others; ours is over with its session.
		other := mutex(t, dir, "other", nil)
		must(t, other.Write().TryLock(ctx))
		must(t, other.Write().Unlock(ctx))
		if err := m.Write().Lock(ctx); !errors.Is(err, seqlock.ErrSessionExpired) {
			t.Errorf("Lock on the expired Session = %v, want ErrSessionExpired", err)
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a holder cut off learns it lost the lock while still cut off; with the check off, only when it reconnects", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		plainConnS, plainProxy := seqlocktest.SessionViaProxy(t, session)
		timedConnS, timedProxy := seqlocktest.SessionViaProxy(t, session)
		timedConn := timedConnS.Conn()
		plain, err := rwlock.New(plainConnS, dir, seqlock.WithoutDisconnectCheck()) // the check turned off
		must(t, err)
		timed, err := rwlock.New(timedConnS, dir) // the session timeout the server granted
		must(t, err)
		must(t, plain.Read().Lock(ctx))
		must(t, timed.Read().Lock(ctx))
		must(t, plainProxy.Cut())
		must(t, timedProxy.Cut())
		cut := time.Now()
		// The server expires both sessions; a writer gets the lock.
		w := mutex(t, dir, "w", nil)
		must(t, w.Write().Lock(ctx))
		t.Logf("a writer got the lock %v after the readers were cut off", time.Since(cut).Round(time.Millisecond))
		select {
		case <-timed.Read().Lost():
		case <-time.After(zktest.Patience):
			t.Fatal("the reader with the granted session timeout: Lost never closed while cut off")
		}
		t.Logf("session timeout %v (granted): Lost closed %v after the cut, while still cut off",
			zktest.SessionTimeout(t, timedConn), time.Since(cut).Round(time.Millisecond))
		// The flaw: the plain reader still believes it reads, beside a writer.
		select {
		case <-plain.Read().Lost():
			t.Fatal("the plain reader learned of its loss while cut off: it cannot")
		default:
		}
		plainProxy.Restore()
		timedProxy.Restore()
		select {
		case <-plain.Read().Lost():
			t.Logf("the plain reader learned of its loss %v after the cut, only after reconnecting", time.Since(cut).Round(time.Millisecond))
		case <-time.After(zktest.Patience):
			t.Fatal("Lost never closed after reconnecting")
		}
		must(t, w.Write().Unlock(ctx))
		for _, m := range []*rwlock.RWMutex{plain, timed} {
			if err := m.Read().Unlock(ctx); !errors.Is(err, rwlock.ErrLost) {
				t.Errorf("Unlock after the loss = %v, want ErrLost", err)
			}
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})
}

// TestNotReentrant is this chapter's flaw: one owner cannot take a side it
// already holds. The Side refuses; two handles in the same program deadlock.
func TestNotReentrant(t *testing.T) {
	t.Run("locking a side it already holds is refused with ErrAlreadyHeld", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		m := mutex(t, dir, "m", nil)
		for _, s := range []*rwlock.Side{m.Read(), m.Write()} {
			must(t, s.Lock(ctx))
			if err := s.Lock(ctx); !errors.Is(err, rwlock.ErrAlreadyHeld) {
				t.Fatalf("second Lock = %v, want ErrAlreadyHeld", err)
			}
			must(t, s.Unlock(ctx))
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a nested read through a second handle deadlocks behind a queued writer", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		rec := &recorder{}
		connS, conn := seqlocktest.SessionConn(t)
		outer, err := rwlock.New(connS, dir, seqlock.WithObserver(rec.observe))
		must(t, err)
		inner, err := rwlock.New(connS, dir, seqlock.WithObserver(event.Observer(rec.observe).WithOwner("inner")))
		must(t, err)
		w := mutex(t, dir, "w", rec.observe)
		must(t, outer.Read().Lock(ctx))
		wdone := lockAsync(ctx, w.Write())
		rec.waitQueued(t, "w")
		// A function called under the read lock takes it again. Its node
		// queues behind w, which waits for the outer read: neither moves.
		// Only the deadline ends it.
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := inner.Read().Lock(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("nested Read().Lock = %v, want it stuck until its deadline", err)
		}
		if got := rec.count("inner", event.Waiting); got != 1 {
			t.Errorf("the nested reader waited %d times, want 1 (behind w)", got)
		}
		must(t, outer.Read().Unlock(ctx))
		await(t, wdone, "w")
		must(t, w.Write().Unlock(ctx))
		locktest.AssertClean(t, conn, root, dir)
	})
}
