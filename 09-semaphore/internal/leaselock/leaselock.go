// Package leaselock drives a semaphore as a lock: Lock takes a lease,
// Unlock gives it back. With one lease it is a mutex, and the lock
// conformance suite holds it to that; the demo and the visualizer drive
// the semaphore through it like any other lock. Users of the semaphore
// take Leases (Acquire, Release); this is the course's adapter.
package leaselock

import (
	"context"

	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/internal/slot"
)

// Holder is one client's hold on a lease. One goroutine at a time uses a
// Holder; make one per contender (New sends nothing). Its bookkeeping is
// chapter 04's Mutex's (internal/slot): a Lock while a lease is held, or
// being taken, is ErrAlreadyHeld, and no second lease is taken (it would
// leak: Unlock gives back one).
type Holder struct {
	s    *semaphore.Semaphore
	slot slot.Slot[*semaphore.Lease]
}

// New returns a Holder on s, holding nothing.
func New(s *semaphore.Semaphore) *Holder { return &Holder{s: s} }

// Lock is Acquire: it blocks until a lease is ours or ctx ends.
func (h *Holder) Lock(ctx context.Context) error { return h.take(ctx, h.s.Acquire) }

// TryLock is TryAcquire: ErrLocked at once when all n leases are out.
func (h *Holder) TryLock(ctx context.Context) error { return h.take(ctx, h.s.TryAcquire) }

func (h *Holder) take(ctx context.Context, acquire func(context.Context) (*semaphore.Lease, error)) error {
	if !h.slot.Begin() {
		return semaphore.ErrAlreadyHeld
	}
	l, err := acquire(ctx)
	return h.slot.End(l, err)
}

// Unlock releases the lease: ErrNotHeld if none is held.
func (h *Holder) Unlock(ctx context.Context) error {
	l, ok := h.slot.Take()
	if !ok {
		return semaphore.ErrNotHeld
	}
	defer h.slot.Free()
	return l.Release(ctx)
}

// Token is the held lease's fencing token, 0 if none.
func (h *Holder) Token() int64 {
	if l, ok := h.slot.Current(); ok {
		return l.Token()
	}
	return 0
}

// Node is the held lease's node, "" if none.
func (h *Holder) Node() string {
	if l, ok := h.slot.Current(); ok {
		return l.Node()
	}
	return ""
}

// Lost is the held lease's lost-hold channel; between leases the last
// one's, and nil (which never fires) before the first, as a Mutex's.
func (h *Holder) Lost() <-chan struct{} { return h.slot.Lost() }
