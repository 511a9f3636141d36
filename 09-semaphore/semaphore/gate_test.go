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

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestTryAcquireDoesNotWaitAtTheGate: an Acquire that waits for a free
// lease waits holding the gate. A TryAcquire then must not queue at the
// gate behind it (it would wait as long as every lease stays out): it takes
// the gate with TryLock and says ErrLocked at once.
func TestTryAcquireDoesNotWaitAtTheGate(t *testing.T) {
	dir := zktest.Root(t) + "/sem"
	ctx := zktest.Context(t)
	_, admin := seqlocktest.SessionConn(t)
	holder, err := newSemaphore(t, seqlocktest.Session(t), dir, 1).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The first evidence of a gate never let go: Acquire has returned, and
	// its gate node is still there.
	if gate := zktest.Tree(t, admin, dir+"/locks"); len(gate) != 0 {
		t.Fatalf("Acquire returned a lease and still holds the gate (%s): every later Acquire queues behind it for ever; the gate is let go however acquire returns", zktest.Describe(gate))
	}
	var waits event.Tally
	// listed: when the waiter's count last set its watch on the lease
	// directory (count's WatchSet, sent once the listing's reply is in).
	var listed atomic.Int64
	leases := dir + "/leases"
	onList := func(e event.Event) {
		if e.Kind == event.WatchSet && e.Node == leases {
			listed.Store(time.Now().UnixNano())
		}
	}
	waiter := newSemaphore(t, seqlocktest.Session(t), dir, 1, recorded(t, waits.Observe, onList))
	type acquired struct {
		l   *semaphore.Lease
		err error
	}
	got := make(chan acquired, 1)
	go func() {
		l, err := waiter.Acquire(ctx)
		got <- acquired{l, err}
	}()
	// The first evidence against the wait: the second Acquire returns,
	// with a lease or an error, while the only lease is out; or, holding
	// the gate, it has counted the leases (the only one is out) and does
	// not say that it waits right after.
	var gated time.Time
	zktest.Until(t, zktest.Patience, "the second Acquire of a semaphore of 1 to wait for the lease, holding the gate (event.Waiting)", func() (bool, string) {
		if gated.IsZero() && len(zktest.Tree(t, admin, dir+"/locks")) > 0 {
			gated = time.Now()
		}
		if at := listed.Load(); at != 0 && waits.Count(event.Waiting) == 0 && time.Since(time.Unix(0, at)) > sayWaitingAfterTheCount {
			return false, fmt.Sprintf("it has held the gate for %v, counted the leases (the only one is out) %v ago, and has neither returned nor reported event.Waiting: a gate holder that waits says so, s.emit(event.Waiting, …)",
				time.Since(gated).Round(time.Millisecond), time.Since(time.Unix(0, at)).Round(time.Millisecond))
		}
		select {
		case a := <-got:
			if a.err != nil {
				return false, fmt.Sprintf("it returned %v while the only lease was out: Acquire waits for a free lease (TryAcquire is the one that says ErrLocked)", a.err)
			}
			leases := zktest.Tree(t, admin, dir+"/leases")
			return false, fmt.Sprintf("it got lease %d of 1 while the first still held its lease (%s): never more than n leases out; with n out, the gate holder waits", len(leases), zktest.Describe(leases))
		default:
		}
		if waits.Count(event.Waiting) > 0 {
			return true, ""
		}
		if !gated.IsZero() && time.Since(gated) > sayWaitingWithin {
			return false, fmt.Sprintf("it has held the gate for %v, with the only lease out, and has neither returned nor reported event.Waiting: a gate holder that waits says so, s.emit(event.Waiting, …)", sayWaitingWithin)
		}
		return false, ""
	})

	// A TryAcquire that queues at the gate says so (event.Waiting, from the
	// gate's mutex): that is the first evidence, and the test stops it
	// there. A TryAcquire has no other reason to report a wait.
	tctx, cancel := context.WithTimeout(ctx, 3*zktest.Patience/10)
	defer cancel()
	var queued atomic.Bool
	stop := func(e event.Event) {
		if e.Kind == event.Waiting {
			queued.Store(true)
			cancel()
		}
	}
	_, err = newSemaphore(t, seqlocktest.Session(t), dir, 1, recorded(t, stop)).TryAcquire(tctx)
	if queued.Load() {
		t.Fatalf("TryAcquire while another client waits at the gate queued at the gate behind it (it took the gate with Lock, not TryLock) and would wait as long as every lease stays out; want ErrLocked at once (it returned %v once the test stopped it)", err)
	}
	if !errors.Is(err, semaphore.ErrLocked) {
		t.Fatalf("TryAcquire while another client waits at the gate = %v, want ErrLocked at once (it queued at the gate like Acquire)", err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	a := zktest.Await(t, got, "the waiting Acquire did not return once the only lease was released: it waits for a change of the lease directory (a lease going), and counts again")
	if a.err != nil {
		t.Fatalf("the waiting Acquire: %v", a.err)
	}
	if err := a.l.Release(ctx); err != nil {
		t.Fatalf("the waiting Acquire's lease: Release: %v", err)
	}
}

// sayWaitingWithin bounds the time from taking the gate to the Waiting that
// says the gate holder waits: one count of the leases, milliseconds; 3 s
// leaves room for a loaded machine.
const sayWaitingWithin = 3 * time.Second

// sayWaitingAfterTheCount bounds the time from count's WatchSet on the
// lease directory to the Waiting: count emits WatchSet once the listing's
// reply is in, and returns; acquire compares the count with n and emits
// Waiting, with no request in between. Only the scheduler separates the
// two: 500 ms leaves room for a loaded machine.
const sayWaitingAfterTheCount = 500 * time.Millisecond

// TestAnAcquireWhoseContextEndsWhileItsLeaseIsCreatedReturnsNoLease: the
// context ends just as the lease node is being created (the test's observer
// cancels it there). Acquire must return the error — not a Lease that holds
// nothing — and leave no lease behind.
func TestAnAcquireWhoseContextEndsWhileItsLeaseIsCreatedReturnsNoLease(t *testing.T) {
	dir := zktest.Root(t) + "/sem"
	ctx, cancel := context.WithCancel(zktest.Context(t))
	defer cancel()
	var once sync.Once
	cut := func(e event.Event) {
		if e.Kind == event.Request && e.Op == "create" && strings.Contains(e.Node, "/leases/") {
			once.Do(cancel)
		}
	}
	s := newSemaphore(t, seqlocktest.Session(t), dir, 2, recorded(t, cut))
	l, err := s.Acquire(ctx)
	if err == nil || l != nil {
		t.Fatalf("Acquire = (%v, %v) after its context ended during the lease's create, want (nil, an error)", l, err)
	}
	holders, err := s.Holders(zktest.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(holders) != 0 {
		t.Fatalf("leases left behind: %v", holders)
	}
}
