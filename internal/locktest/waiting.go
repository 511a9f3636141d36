package locktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func deadline(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	short, cancel := context.WithTimeout(h.ctx, 300*time.Millisecond)
	defer cancel()
	if err := h.other.Lock(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiter.Lock = %v, want context.DeadlineExceeded", err)
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	// The waiter's own node (if it made one) must be gone too, even though
	// its session is still open.
	zktest.Eventually(t, zktest.Patience, "the timed-out waiter left a node behind", func() bool {
		return len(leftBehind(t, h.conn, h.root, h.path)) == 0
	})
	AssertClean(t, h.conn, h.root, h.path)
	// And the lock still works for the waiter afterwards.
	if err := h.other.Lock(h.ctx); err != nil {
		t.Fatalf("Lock after a timed-out Lock: %v", err)
	}
	if err := h.other.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
}

func cancelled(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	wctx, cancel := context.WithCancel(h.ctx)
	done := lockAsync(wctx, h.other)
	// Cancel only once the Lock waits: a Lock cancelled before it queued
	// would test nothing.
	h.awaitWaiting(t, done)
	cancel()
	// "Promptly": a waiter that notices its context only when it next
	// wakes would wait for the holder (30 s here); 5 s is plenty on a
	// loaded machine, and says so long before the test's patience ends.
	var err error
	select {
	case err = <-done:
	case <-time.After(promptly):
		t.Fatalf("Lock did not return within %v of its context being cancelled: the wait must also end when ctx does", promptly)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock = %v, want context.Canceled", err)
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, zktest.Patience, "the cancelled waiter left a node behind", func() bool {
		return len(leftBehind(t, h.conn, h.root, h.path)) == 0
	})
}

func holderClosed(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	done := lockAsync(h.ctx, h.other)
	// Close the holder only once the waiter waits, so what is tested is a
	// waiting Lock being woken, not a Lock that finds the lock free.
	h.awaitWaiting(t, done)
	h.holderConn.Close() // the holder's process goes away; its session ends
	if err := await(t, done, "the waiter never got the lock after the holder's session closed"); err != nil {
		t.Fatalf("waiter.Lock = %v", err)
	}
	if err := h.other.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, h.conn, h.root, h.path)
	// A lock that can say it lost its hold says so when its conn is gone.
	if l, ok := h.holder.(interface{ Lost() <-chan struct{} }); ok {
		select {
		case <-l.Lost():
		case <-time.After(zktest.Patience):
			t.Fatal("the holder whose session was closed was never told: Lost() is still open")
		}
	}
}

func tryLock(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	other, ok := h.other.(TryLocker)
	if !ok {
		t.Fatal("Impl.ErrLocked is set but the lock has no TryLock")
	}
	// A TryLock that waits like Lock would wait as long as its context
	// lets it: give it promptly, and name what it did.
	start := time.Now()
	tctx, cancel := context.WithTimeout(h.ctx, promptly)
	err := other.TryLock(tctx)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryLock on a held lock was still waiting after %v: it must return %v at once, not wait like Lock", promptly, impl.ErrLocked)
	}
	if !errors.Is(err, impl.ErrLocked) {
		t.Fatalf("TryLock on a held lock = %v, want %v", err, impl.ErrLocked)
	}
	if d := time.Since(start); d > promptly {
		t.Errorf("TryLock took %v: it must not wait", d)
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, h.conn, h.root, h.path)
	if err := other.TryLock(h.ctx); err != nil {
		t.Fatalf("TryLock on a free lock: %v", err)
	}
	if err := other.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, h.conn, h.root, h.path)
}
