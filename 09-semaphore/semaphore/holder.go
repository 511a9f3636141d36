package semaphore

import "context"

// Holder is one client's hold on a lease, with the Lock and Unlock every
// other lock of the course has: Lock takes a lease, Unlock gives it back.
// With one lease it is a mutex, and the lock conformance suite holds it to
// that; the demo and the visualizer drive the semaphore through it like
// any other lock. One goroutine at a time uses a Holder; make one per
// contender (Semaphore.Holder sends nothing).
type Holder struct {
	s     *Semaphore
	lease *Lease // nil while nothing is held
}

// Holder returns a new Holder on s, holding nothing.
func (s *Semaphore) Holder() *Holder { return &Holder{s: s} }

// Lock is Acquire: it blocks until a lease is ours or ctx ends.
func (h *Holder) Lock(ctx context.Context) error { return h.take(h.s.Acquire(ctx)) }

// TryLock is TryAcquire: ErrLocked at once when all n leases are out.
func (h *Holder) TryLock(ctx context.Context) error { return h.take(h.s.TryAcquire(ctx)) }

func (h *Holder) take(l *Lease, err error) error {
	if err == nil {
		h.lease = l
	}
	return err
}

// Unlock releases the lease: ErrNotHeld if none is held.
func (h *Holder) Unlock(ctx context.Context) error {
	l := h.lease
	h.lease = nil
	if l == nil {
		return ErrNotHeld
	}
	return l.Release(ctx)
}

// Token is the held lease's fencing token, 0 if none.
func (h *Holder) Token() int64 {
	if h.lease == nil {
		return 0
	}
	return h.lease.Token()
}

// Lost is the held lease's lost-hold channel, nil if none is held.
func (h *Holder) Lost() <-chan struct{} {
	if h.lease == nil {
		return nil
	}
	return h.lease.Lost()
}
