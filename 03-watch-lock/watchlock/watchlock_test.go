package watchlock_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Step 4, on purpose. Between a waiter's failed create and its exists the
// holder may let go; the exists then finds no node, and the watch it sets
// waits for a create that nobody may ever send. The window is a round trip
// wide, so the test opens it for sure: the waiter reports its exists
// request before sending it, and the test's observer releases the lock
// right there. A waiter that reads what existsW said tries again at once
// and gets the lock; one that waits anyway says it waits with nobody to
// wait for, and the test fails at that moment.
func TestAReleaseJustBeforeTheWatchIsNotMissed(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	ctx := zktest.Context(t)
	holder, _ := watchlock.New(zktest.Connect(t), lockPath, watchlock.WithObserver(zktest.Observe(t, "holder")))
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	waitsForNobody := make(chan struct{}, 1)
	obs := func(e event.Event) {
		switch {
		case e.Kind == event.Request && e.Op == "exists" && !released.Load():
			// The waiter's create has failed; its exists is not sent yet.
			released.Store(true)
			if err := holder.Unlock(ctx); err != nil {
				t.Errorf("holder.Unlock: %v", err)
			}
		case e.Kind == event.Waiting && released.Load():
			select {
			case waitsForNobody <- struct{}{}:
			default:
			}
		}
	}
	waiter, _ := watchlock.New(zktest.Connect(t), lockPath, watchlock.WithObserver(zktest.Observe(t, "waiter", obs)))
	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("waiter.Lock = %v", err)
		}
	case <-waitsForNobody:
		t.Fatalf("the waiter waits on the watch though existsW said the node is gone: the holder let go between the waiter's failed create and its exists, and a watch on a missing node waits for a create that may never come; when existsW says the node does not exist, try to create it at once")
	case <-time.After(freeLockWithin):
		t.Fatalf("the waiter did not get the lock within %v of the holder letting go between its failed create and its exists: does it wait on the watch even when existsW says the node is gone?", freeLockWithin)
	}
	if !released.Load() {
		t.Fatal("the waiter never sent an exists: it did not watch the lock node")
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatalf("the waiter's Unlock after its Lock returned nil: %v: its Lock returned without creating the lock node (a node that existsW says is gone makes the lock free, not ours)", err)
	}
}

// freeLockWithin bounds how long a waiter takes to get a free lock: a
// create and an exists, milliseconds; 5 s leaves room for a loaded machine.
const freeLockWithin = 5 * time.Second

// A waiter whose own session expires would wait for ever on a watch that
// no longer exists; instead it gets an error.
func TestWaiterWhoseSessionExpiresGetsAnError(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	ctx, cancel := context.WithTimeout(context.Background(), 2*zktest.Patience)
	defer cancel()
	holder, _ := watchlock.New(zktest.Connect(t), lockPath, watchlock.WithObserver(zktest.Observe(t, "holder")))
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	const sessionTimeout = time.Second
	wconn, proxy := zktest.ConnectViaProxy(t, sessionTimeout)
	var tally event.Tally
	waiter, _ := watchlock.New(wconn, lockPath, watchlock.WithObserver(zktest.Observe(t, "waiter", tally.Observe)))
	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()
	zktest.Eventually(t, 30*time.Second, "the waiter never set its watch", func() bool {
		return tally.Count(event.WatchSet) == 1
	})
	zktest.Expire(t, wconn, proxy)
	// The expiry fires the waiter's watch with an error. A waiter that
	// goes round again sets a second watch: that is the mistake, seen at
	// once, rather than after the context's minute.
	var err error
	zktest.Eventually(t, zktest.Patience, "waiter.Lock did not return after its session expired", func() bool {
		select {
		case err = <-done:
			return true
		default:
		}
		if tally.Count(event.WatchSet) > 1 {
			t.Fatalf("after its session expired the waiter set a new watch and waited again: a watch event whose Err is set (%v) means the wait is over", zk.ErrSessionExpired)
		}
		return false
	})
	if !errors.Is(err, zk.ErrSessionExpired) {
		t.Fatalf("waiter.Lock = %v, want an error wrapping zk.ErrSessionExpired", err)
	}
	t.Logf("waiter.Lock: %v", err)
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	locktest.Run(t, locktest.Impl{
		New: func(conn *zk.Conn, path string, obs event.Observer) (locktest.Locker, error) {
			return watchlock.New(conn, path, watchlock.WithObserver(obs))
		},
		ErrNotHeld: watchlock.ErrNotHeld,
		ErrLocked:  watchlock.ErrLocked,
	})
}

func TestLockOnAHeldLockIsAnErrorNotADeadlock(t *testing.T) {
	root := zktest.Root(t)
	l, _ := watchlock.New(zktest.Connect(t), root+"/lock", watchlock.WithObserver(zktest.Observe(t, "holder")))
	ctx := context.Background()
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctx); !errors.Is(err, watchlock.ErrAlreadyHeld) {
		t.Fatalf("second Lock = %v, want ErrAlreadyHeld", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// The strength of this chapter: a waiter does not poll. Behind a holder
// that holds for a whole second it sends a create, an exists (which sets
// the watch), and after the notification one more create — chapter 02's
// waiter sends about 45 creates per second at its default interval.
func TestWaiterSendsAHandfulOfRequestsNotAStream(t *testing.T) {
	root := zktest.Root(t)
	lockPath := root + "/lock"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	holder, _ := watchlock.New(zktest.Connect(t), lockPath)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var tally event.Tally
	waiter, _ := watchlock.New(zktest.Connect(t), lockPath, watchlock.WithObserver(tally.Observe))
	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()
	zktest.Eventually(t, 30*time.Second, "the waiter never set its watch", func() bool {
		return tally.Count(event.WatchSet) == 1
	})
	const hold = time.Second
	time.Sleep(hold) // the holder holds; the waiter should be silent all along
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	requests := tally.Requests("")
	t.Logf("behind a %v hold the waiter sent %d requests (%d create, %d exists) and got %d notification(s)",
		hold, requests, tally.Requests("create"), tally.Requests("exists"), tally.Count(event.Notified))
	// Expected: create, exists, create = 3. A busy loop would send dozens.
	if requests > 6 {
		t.Errorf("the waiter sent %d requests while the lock was held: want a handful, it should not poll", requests)
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// The flaw, measured: N waiters, each in its own session, all watch the one
// lock node. A single release fires all N watches, and all N rush to create
// the node, though only one can get it; the other N−1 set their watch again.
// Then the test lets the rest through one at a time and counts what the
// whole queue cost.
func TestWatchAllWakesEveryWaiter(t *testing.T) {
	const waiters = 10
	root := zktest.Root(t)
	lockPath := root + "/lock"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	holder, _ := watchlock.New(zktest.Connect(t), lockPath, watchlock.WithObserver(zktest.Observe(t, "holder")))
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}

	var tally event.Tally
	acquired := make(chan int)
	release := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, waiters)
	for i := range waiters {
		l, _ := watchlock.New(zktest.Connect(t), lockPath,
			watchlock.WithObserver(zktest.Observe(t, fmt.Sprint("waiter-", i), tally.Observe)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Lock(ctx); err != nil {
				errs <- err
				return
			}
			acquired <- i
			<-release // hold until the test says so
			if err := l.Unlock(ctx); err != nil {
				errs <- err
			}
		}()
	}
	zktest.Eventually(t, 30*time.Second, "not every waiter set its watch", func() bool {
		return tally.Owners(event.WatchSet) == waiters
	})

	// One release.
	tally.Reset()
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	winner := <-acquired
	// Let the dust settle: every loser has tried its create and set its
	// watch again (the winner holds on, so nothing else is released).
	zktest.Eventually(t, 30*time.Second, "the losers did not set their watches again", func() bool {
		return tally.Count(event.WatchSet) >= waiters-1
	})
	notified, creates := tally.Count(event.Notified), tally.Requests("create")
	t.Logf("one release: %d of %d waiters notified, %d creates, %d exists, 1 winner (waiter-%d)",
		notified, waiters, creates, tally.Requests("exists"), winner)
	if notified < waiters-1 {
		zktest.Recorder(t).Broke(fmt.Sprintf("one release woke %d of %d waiters; watching the one lock node wakes them all", notified, waiters))
		t.Errorf("one release notified %d waiters, want ≥ %d: every waiter watches the same node", notified, waiters-1)
	}
	if creates < waiters-1 {
		t.Errorf("one release caused %d creates, want ≥ %d: every woken waiter tries", creates, waiters-1)
	}
	if t.Failed() {
		// The first release has shown it: draining the queue would only
		// repeat it, nine releases later.
		t.FailNow()
	}

	// Now drain the queue. Before each release, wait until everyone left
	// is watching again, so each release meets the whole herd.
	total := 0
	for left := waiters - 1; left > 0; left-- {
		tally.Reset()
		release <- struct{}{} // the holder lets go…
		<-acquired            // …the next one gets in…
		zktest.Eventually(t, 30*time.Second, "the losers did not set their watches again", func() bool {
			return tally.Count(event.WatchSet) >= left-1
		})
		total += tally.Count(event.Notified) // …and this many were woken for it
	}
	release <- struct{}{}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// 9+8+…+1 = 45 notifications to hand the lock to 9 more waiters.
	t.Logf("draining the other %d waiters one release at a time: %d notifications for %d acquisitions (1+2+…+%d = %d)",
		waiters-1, total, waiters-1, waiters-1, (waiters-1)*waiters/2)
	if least := (waiters - 1) * (waiters - 2) / 2; total < least {
		t.Errorf("draining took %d notifications, want ≥ %d: each release should wake everyone left", total, least)
	}
}

func ExampleLock() {
	aliceConn, bobConn := zktest.ExampleConn(), zktest.ExampleConn()
	defer aliceConn.Close()
	defer bobConn.Close()
	ctx := context.Background()

	// Bob's lock prints what it does (all but the requests), so we can see
	// him wait; it tells us when he is waiting.
	waiting := make(chan struct{})
	say := func(e event.Event) {
		if e.Kind == event.Request {
			return
		}
		fmt.Println(e)
		if e.Kind == event.Waiting {
			close(waiting)
		}
	}
	alice, _ := watchlock.New(aliceConn, "/watchlock-example")
	bob, _ := watchlock.New(bobConn, "/watchlock-example",
		watchlock.WithObserver(event.Observer(say).WithOwner("bob")))

	if err := alice.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	bobDone := make(chan error)
	go func() { bobDone <- bob.Lock(ctx) }()
	<-waiting
	// Alice lets go: deleting the node fires bob's watch.
	if err := alice.Unlock(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println("bob's Lock:", <-bobDone)
	fmt.Println("bob's Unlock:", bob.Unlock(ctx))
	// Output:
	// bob watches watchlock-example (exists)
	// bob waits behind watchlock-example
	// bob notified: EventNodeDeleted watchlock-example
	// bob acquired watchlock-example
	// bob's Lock: <nil>
	// bob released watchlock-example
	// bob's Unlock: <nil>
}
