package semaphore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
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
	holder, err := newSemaphore(t, seqlocktest.Session(t), dir, 1).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var waits event.Tally
	waiter := newSemaphore(t, seqlocktest.Session(t), dir, 1, semaphore.WithLockOptions(seqlock.WithObserver(waits.Observe)))
	got := make(chan error, 1)
	go func() {
		l, err := waiter.Acquire(ctx)
		if err == nil {
			err = l.Release(ctx)
		}
		got <- err
	}()
	zktest.Eventually(t, zktest.Patience, "the second Acquire waits for a lease, holding the gate", func() bool {
		return waits.Count(event.Waiting) > 0
	})

	tctx, cancel := context.WithTimeout(ctx, 3*zktest.Patience/10)
	defer cancel()
	_, err = newSemaphore(t, seqlocktest.Session(t), dir, 1).TryAcquire(tctx)
	if !errors.Is(err, semaphore.ErrLocked) {
		t.Fatalf("TryAcquire while another client waits at the gate = %v, want ErrLocked at once (it queued at the gate like Acquire)", err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiting Acquire: %v", err)
	}
}

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
	s := newSemaphore(t, seqlocktest.Session(t), dir, 2, semaphore.WithLockOptions(seqlock.WithObserver(cut)))
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
