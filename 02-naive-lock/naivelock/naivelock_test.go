package naivelock_test

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

	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// impl is the conformance suite's view of the lock, with the given options.
func impl(opts ...naivelock.Option) locktest.Impl {
	return locktest.Impl{
		New: func(conn *zk.Conn, path string, obs event.Observer) (locktest.Locker, error) {
			return naivelock.New(conn, path, append([]naivelock.Option{naivelock.WithObserver(obs)}, opts...)...)
		},
		ErrNotHeld: naivelock.ErrNotHeld,
		ErrLocked:  naivelock.ErrLocked,
	}
}

// The lesson's two promises about errors and ownership come first: they
// fail in milliseconds, before the shared suite's slower scenarios.

// Only ErrLocked means "somebody else holds it, try again". Any other error
// will not go away by waiting: here the lock path's parent lets nobody
// create a child (its ACL is read-only), and Lock must return the server's
// refusal after one create, without ever waiting. A Lock that says it
// waits, or sends a second create, has taken the refusal for a busy lock:
// the test stops it right there instead of waiting out a deadline.
func TestLockDoesNotRetryAnErrorThatIsNotErrLocked(t *testing.T) {
	root := zktest.Root(t)
	parent := root + "/read-only"
	if _, err := zktest.Connect(t).Create(parent, nil, 0, zk.WorldACL(zk.PermRead)); err != nil {
		t.Fatal(err)
	}
	lockPath := parent + "/lock"
	ctx, cancel := context.WithTimeout(context.Background(), zktest.Patience)
	defer cancel()
	var retried atomic.Bool
	var creates atomic.Int32
	obs := func(e event.Event) {
		if e.Kind == event.Request && e.Op == "create" && e.Node == lockPath {
			creates.Add(1)
		}
		if e.Kind == event.Waiting || creates.Load() > 1 {
			retried.Store(true)
			cancel()
		}
	}
	l, err := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(zktest.Observe(t, "locker", obs)))
	if err != nil {
		t.Fatal(err)
	}
	err = l.Lock(ctx)
	if retried.Load() {
		t.Fatalf("Lock retried an error that is not ErrLocked: the server refused the create (the parent %s lets nobody create a child), and waiting cannot cure that; Lock must return the error at once (it returned %v once stopped)", parent, err)
	}
	if err == nil || errors.Is(err, naivelock.ErrLocked) || !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("Lock = %v, want an error wrapping zk.ErrNoAuth", err)
	}
	// The error says what was being done, not only what the server said.
	if !strings.Contains(err.Error(), "create lock node "+lockPath) {
		t.Fatalf("Lock = %q, want it to say what failed: naivelock: create lock node %s: …", err, lockPath)
	}
	t.Logf("Lock: %v", err)
}

// Unlock deletes the lock node only if it is still ours: a lock node at
// our path is not proof that we hold the lock. Here A's node goes away
// without A's Unlock — as when A's session expires and the server deletes
// its ephemeral node — and B locks, creating its own node at the same
// path. A, still believing it holds the lock, unlocks: that must be
// ErrNotHeld, and B's node must still be there, B's to unlock.
func TestUnlockNeverDeletesSomebodyElsesLock(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	ctx := zktest.Context(t)
	admin := zktest.Connect(t)
	a, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(zktest.Observe(t, "a")))
	b, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(zktest.Observe(t, "b")))
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	// What the server does when A's session expires, without the wait.
	if err := admin.Delete(lockPath, -1); err != nil {
		t.Fatal(err)
	}
	if err := b.Lock(ctx); err != nil {
		t.Fatalf("B could not lock after A's node was gone: %v", err)
	}
	bToken, _, err := admin.Get(lockPath)
	if err != nil {
		t.Fatal(err)
	}

	err = a.Unlock(ctx)
	data, _, gerr := admin.Get(lockPath)
	switch {
	case errors.Is(gerr, zk.ErrNoNode):
		t.Fatalf("A's Unlock (= %v) deleted somebody else's lock: the node at %s was B's (its data is B's token, not A's). Unlock must compare the node's data with its own token before deleting", err, lockPath)
	case gerr != nil:
		t.Fatal(gerr)
	case string(data) != string(bToken):
		t.Fatalf("after A's Unlock the lock node holds %q, want B's token %q", data, bToken)
	case !errors.Is(err, naivelock.ErrNotHeld):
		t.Fatalf("A's Unlock = %v, want ErrNotHeld: the node at %s is B's", err, lockPath)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatalf("B's Unlock after A's: %v, want nil: the lock is still B's", err)
	}
}

// What step 4's version can and cannot tell, on a real server. A node that
// is deleted and created again starts again at version 0, so a version read
// from our node also matches a newcomer's node at the same path: Delete(path,
// 0), and even a multi (check version 0, then delete), removes the
// newcomer's. What tells the two nodes apart is what the get returns with
// the data: our token, the node's creation zxid (Czxid) or its ephemeral
// owner (the session that created it).
//
// And the window that remains in Unlock: nothing makes the read and the
// delete one step. If A's node goes and B's appears between A's get and
// A's delete, A's delete removes B's node, with the version it read or
// with -1 alike. This test opens that window on purpose (the observer runs
// just before the delete is sent) and measures it: a fixed path cannot
// close it, which is why chapter 04 gives every contender a name of its own
// that the server never reuses.
func TestAVersionCannotTellARecreatedNode(t *testing.T) {
	t.Run("a recreated node is at version 0 again, and a delete of version 0 removes it", func(t *testing.T) {
		lockPath := zktest.Root(t) + "/lock"
		a, b := zktest.Connect(t), zktest.Connect(t)
		acl := zk.WorldACL(zk.PermAll)
		if _, err := a.Create(lockPath, []byte("a"), zk.FlagEphemeral, acl); err != nil {
			t.Fatal(err)
		}
		_, aStat, err := a.Get(lockPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Delete(lockPath, aStat.Version); err != nil {
			t.Fatal(err)
		}
		for _, remove := range []struct {
			how    string
			delete func() error
		}{
			{"Delete(path, 0)", func() error { return a.Delete(lockPath, aStat.Version) }},
			{"Delete(path, -1)", func() error { return a.Delete(lockPath, -1) }},
			{"Multi(check version 0, delete version 0)", func() error {
				_, err := a.Multi(&zk.CheckVersionRequest{Path: lockPath, Version: aStat.Version}, &zk.DeleteRequest{Path: lockPath, Version: aStat.Version})
				return err
			}},
		} {
			if _, err := b.Create(lockPath, []byte("b"), zk.FlagEphemeral, acl); err != nil {
				t.Fatal(err)
			}
			_, bStat, err := b.Get(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			if bStat.Version != aStat.Version {
				t.Fatalf("B's recreated node is at version %d, A's was at %d: want the same version", bStat.Version, aStat.Version)
			}
			if bStat.Czxid == aStat.Czxid || bStat.EphemeralOwner == aStat.EphemeralOwner {
				t.Fatalf("B's node has czxid %#x and owner %#x, A's had %#x and %#x: want both to differ", bStat.Czxid, bStat.EphemeralOwner, aStat.Czxid, aStat.EphemeralOwner)
			}
			if err := remove.delete(); err != nil {
				t.Fatalf("A's %s on B's node = %v, want it to succeed: a version cannot tell B's node from A's", remove.how, err)
			}
			if ok, _, err := b.Exists(lockPath); err != nil || ok {
				t.Fatalf("after A's %s B's node exists = %v (%v), want it gone", remove.how, ok, err)
			}
			t.Logf("A's %s removed B's node: A's and B's were both at version %d (czxid %#x and %#x)", remove.how, aStat.Version, aStat.Czxid, bStat.Czxid)
		}
	})

	t.Run("a node recreated between Unlock's read and its delete is deleted", func(t *testing.T) {
		lockPath := zktest.Root(t) + "/lock"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		b, _ := naivelock.New(zktest.Connect(t), lockPath)
		var opened atomic.Bool
		var bErr error
		obs := func(e event.Event) {
			if e.Kind != event.Request || e.Op != "delete" || opened.Swap(true) {
				return
			}
			// A has read its node and compared the token; its delete is
			// about to go out. A's node goes (as when A's session expires)
			// and B locks, at the same path, at version 0.
			if bErr = admin.Delete(lockPath, -1); bErr == nil {
				bErr = b.TryLock(ctx)
			}
		}
		a, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(obs))
		if err := a.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		err := a.Unlock(ctx)
		switch {
		case !opened.Load():
			t.Fatalf("A's Unlock (= %v) sent no delete through l.delete: step 4 reads the node (l.get), compares, then deletes with l.delete", err)
		case bErr != nil:
			t.Fatalf("B could not lock in the window: %v", bErr)
		}
		ok, _, gerr := admin.Exists(lockPath)
		if gerr != nil {
			t.Fatal(gerr)
		}
		if ok {
			t.Fatalf("B's node survived A's Unlock (= %v): the window between the read and the delete was expected to stay open on a fixed path", err)
		}
		t.Logf("A's Unlock = %v, and B's lock node is gone: B believes it holds a lock that no node guards (chapter 04's names are never reused, so its delete cannot meet a newcomer's node)", err)
	})
}

func TestConformance(t *testing.T) {
	// The default, ephemeral variant passes the whole suite, including "a
	// waiter gets the lock when the holder's session is closed".
	locktest.Run(t, impl())
}

// The persistent variant passes the suite except for "a waiter gets the lock
// when the holder's session is closed": that is exactly its flaw, proven by
// TestPersistentLockStaysStuckAfterHolderCrash.
func TestPersistentConformance(t *testing.T) {
	i := impl(naivelock.Persistent())
	i.HolderCrashKeepsLock = true
	locktest.Run(t, i)
}

func TestLockOnAHeldLockIsAnErrorNotADeadlock(t *testing.T) {
	root := zktest.Root(t)
	l, _ := naivelock.New(zktest.Connect(t), root+"/lock", naivelock.WithObserver(zktest.Observe(t, "holder")))
	ctx := context.Background()
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctx); !errors.Is(err, naivelock.ErrAlreadyHeld) {
		t.Fatalf("second Lock = %v, want ErrAlreadyHeld", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// The flaw of the persistent variant: a persistent node outlives the
// session that created it, so when the holder crashes (its session expires
// without an Unlock) the lock stays taken. Nothing in ZooKeeper will ever
// delete the node; every waiter polls for ever.
func TestPersistentLockStaysStuckAfterHolderCrash(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	admin := zktest.Connect(t)
	const sessionTimeout = time.Second
	hconn, proxy := zktest.ConnectViaProxy(t, sessionTimeout)
	holder, _ := naivelock.New(hconn, lockPath, naivelock.Persistent())
	if err := holder.Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	crashedSession := hconn.SessionID()

	// The holder "crashes": its link goes silent, so no Unlock and no
	// goodbye reach the server, which expires the session after its timeout.
	zktest.Expire(t, hconn, proxy)
	t.Logf("holder session %#x expired", crashedSession)

	var tally event.Tally
	waiter, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.Persistent(),
		naivelock.WithObserver(tally.Observe))
	const patience = 2 * time.Second
	wctx, wcancel := context.WithTimeout(context.Background(), patience)
	defer wcancel()
	if err := waiter.Lock(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiter.Lock = %v, want DeadlineExceeded: the lock should be stuck", err)
	}
	t.Logf("a waiter sent %d creates in %v after the holder's session died, all in vain",
		tally.Requests("create"), patience)

	ok, stat, err := admin.Exists(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatal("the lock node is gone: the persistent lock was freed after all")
	}
	if stat.EphemeralOwner != 0 {
		t.Fatalf("the lock node has ephemeral owner %#x, want a persistent node", stat.EphemeralOwner)
	}
}

// The ephemeral variant fixes that: the server deletes the node when the
// holder's session expires, and the next waiter's create succeeds. But only
// after the session timeout — until then the lock is held by nobody alive.
func TestEphemeralLockIsFreedWhenTheHoldersSessionExpires(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	const sessionTimeout = time.Second
	hconn, proxy := zktest.ConnectViaProxy(t, sessionTimeout)
	holder, _ := naivelock.New(hconn, lockPath)
	if err := holder.Lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	var tally event.Tally
	waiter, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(tally.Observe))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()

	if err := proxy.Cut(); err != nil { // the holder crashes
		t.Fatal(err)
	}
	crashed := time.Now()
	t.Cleanup(proxy.Restore)
	if err := <-done; err != nil {
		t.Fatalf("waiter.Lock after the holder's session expired: %v", err)
	}
	t.Logf("waiter got the lock %v after the holder crashed (session timeout %v granted), after %d creates",
		time.Since(crashed).Round(time.Millisecond), zktest.SessionTimeout(t, hconn), tally.Requests("create"))
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// Polling: while the lock is held, a waiter keeps sending creates that
// fail. The holder here lets go only once the waiter has sent 20 of them —
// proof that the waiter polls, with no clock in the assertion.
func TestWaiterKeepsPollingWhileTheLockIsHeld(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	holder, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(zktest.Observe(t, "holder")))
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var tally event.Tally
	waiter, _ := naivelock.New(zktest.Connect(t), lockPath, naivelock.WithObserver(zktest.Observe(t, "waiter", tally.Observe)))
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()
	zktest.Eventually(t, 30*time.Second, "the waiter stopped polling", func() bool {
		return tally.Requests("create") >= 20
	})
	held := time.Since(start)
	creates := tally.Requests("create")
	// 20 failed creates, one wait: a waiter says it waits once per Lock
	// (the visualizer draws one waiter, not twenty).
	if n := tally.Count(event.Waiting); n != 1 {
		t.Fatalf("the waiter said it waits %d times in %d tries, want once per Lock", n, creates)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("while the lock was held for %v the waiter sent %d creates (%.0f/s at the default %v interval)",
		held.Round(time.Millisecond), creates, float64(creates)/held.Seconds(), naivelock.DefaultRetryInterval)
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// The price of polling, measured: requests per acquisition for a few
// contenders and many, polling fast and slow. Only the direction is
// asserted (more contenders ⇒ more requests per acquisition; faster
// polling ⇒ more requests per acquisition); the numbers are logged.
func TestRetryLoopCostGrowsWithContentionAndRetryRate(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	type key struct {
		contenders int
		retry      time.Duration
	}
	cost := map[key]float64{}
	for _, contenders := range []int{2, 8} {
		for _, retry := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond} {
			k := key{contenders, retry}
			cost[k] = measure(t, contenders, retry)
		}
	}
	for _, retry := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond} {
		if few, many := cost[key{2, retry}], cost[key{8, retry}]; many <= few {
			t.Errorf("retry %v: %.1f requests per acquisition with 8 contenders, %.1f with 2: want more with more contenders", retry, many, few)
		}
	}
	for _, n := range []int{2, 8} {
		if fast, slow := cost[key{n, 5 * time.Millisecond}], cost[key{n, 50 * time.Millisecond}]; fast <= slow {
			t.Errorf("%d contenders: %.1f requests per acquisition polling every 5ms, %.1f every 50ms: want more when polling faster", n, fast, slow)
		}
	}
}

// measure runs contenders × 4 rounds holding the lock 20 ms each and
// returns ZooKeeper requests (creates, gets, deletes) per acquisition.
func measure(t *testing.T, contenders int, retry time.Duration) float64 {
	t.Helper()
	const rounds, hold = 4, 20 * time.Millisecond
	root := zktest.Root(t)
	var tally event.Tally
	var wg sync.WaitGroup
	start := time.Now()
	for i := range contenders {
		l, err := naivelock.New(zktest.Connect(t), root+"/lock",
			naivelock.WithRetryInterval(retry), naivelock.WithObserver(tally.Observe))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for range rounds {
				if err := l.Lock(ctx); err != nil {
					t.Errorf("contender %d: %v", i, err)
					return
				}
				time.Sleep(hold)
				if err := l.Unlock(ctx); err != nil {
					t.Errorf("contender %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	acq := tally.Count(event.Acquired)
	if acq != contenders*rounds {
		t.Fatalf("%d acquisitions, want %d", acq, contenders*rounds)
	}
	perAcq := float64(tally.Requests("")) / float64(acq)
	t.Logf("%d contenders, retry %-5v: %4d requests (%4d creates) for %2d acquisitions = %5.1f per acquisition, %v",
		contenders, retry, tally.Requests(""), tally.Requests("create"), acq, perAcq, time.Since(start).Round(time.Millisecond))
	return perAcq
}

func ExampleLock() {
	conn := zktest.ExampleConn()
	defer conn.Close()
	ctx := context.Background()

	alice, _ := naivelock.New(conn, "/naivelock-example")
	bob, _ := naivelock.New(conn, "/naivelock-example")

	if err := alice.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("alice holds the lock")
	fmt.Println("bob tries:", bob.TryLock(ctx))
	fmt.Println("bob unlocks:", bob.Unlock(ctx))
	fmt.Println("alice unlocks:", alice.Unlock(ctx))
	fmt.Println("bob tries again:", bob.TryLock(ctx))
	fmt.Println("bob unlocks:", bob.Unlock(ctx))
	// Output:
	// alice holds the lock
	// bob tries: naivelock: locked by someone else
	// bob unlocks: naivelock: not held
	// alice unlocks: <nil>
	// bob tries again: <nil>
	// bob unlocks: <nil>
}
