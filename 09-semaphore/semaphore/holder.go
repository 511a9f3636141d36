package semaphore

import (
	"context"

	"github.com/lockstep-zk/lockstep/internal/slot"
)

// Holder is one client's hold on a lease, with the Lock and Unlock every
// other lock of the course has: Lock takes a lease, Unlock gives it back.
// With one lease it is a mutex, and the lock conformance suite holds it to
// that; the demo and the visualizer drive the semaphore through it like
// any other lock. One goroutine at a time uses a Holder; make one per
// contender (Semaphore.Holder sends nothing). Its bookkeeping is chapter
// 04's, as the Mutex's is (internal/slot): a Lock while a lease is held, or
// being taken, is ErrAlreadyHeld, and no second lease is taken (it would
// leak: Unlock gives back one).
type Holder struct {
	s    *Semaphore
	slot slot.Slot[*Lease] // busy, the current lease, the last: the Mutex's bookkeeping (internal/slot)
}

// Holder returns a new Holder on s, holding nothing.
func (s *Semaphore) Holder() *Holder { return &Holder{s: s} }

// Lock is Acquire: it blocks until a lease is ours or ctx ends.
func (h *Holder) Lock(ctx context.Context) error { return h.take(ctx, h.s.Acquire) }

// TryLock is TryAcquire: ErrLocked at once when all n leases are out.
func (h *Holder) TryLock(ctx context.Context) error { return h.take(ctx, h.s.TryAcquire) }

func (h *Holder) take(ctx context.Context, acquire func(context.Context) (*Lease, error)) error {
	if !h.slot.Begin() {
		return ErrAlreadyHeld
	}
	l, err := acquire(ctx)
	return h.slot.End(l, err)
}

// Unlock releases the lease: ErrNotHeld if none is held.
func (h *Holder) Unlock(ctx context.Context) error {
	l, ok := h.slot.Take()
	if !ok {
		return ErrNotHeld
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
