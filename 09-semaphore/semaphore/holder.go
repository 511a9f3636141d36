package semaphore

import (
	"context"
	"sync"
)

// Holder is one client's hold on a lease, with the Lock and Unlock every
// other lock of the course has: Lock takes a lease, Unlock gives it back.
// With one lease it is a mutex, and the lock conformance suite holds it to
// that; the demo and the visualizer drive the semaphore through it like
// any other lock. One goroutine at a time uses a Holder; make one per
// contender (Semaphore.Holder sends nothing).
type Holder struct {
	s *Semaphore

	mu    sync.Mutex
	busy  bool   // a Lock is in progress or a lease is held (until Unlock)
	lease *Lease // nil while nothing is held
}

// Holder returns a new Holder on s, holding nothing.
func (s *Semaphore) Holder() *Holder { return &Holder{s: s} }

// Lock is Acquire: it blocks until a lease is ours or ctx ends.
func (h *Holder) Lock(ctx context.Context) error { return h.take(ctx, h.s.Acquire) }

// TryLock is TryAcquire: ErrLocked at once when all n leases are out.
func (h *Holder) TryLock(ctx context.Context) error { return h.take(ctx, h.s.TryAcquire) }

// take acquires a lease with acquire, unless this Holder already holds one
// or is acquiring one: then ErrAlreadyHeld, as every lock of the course
// says it, and no second lease is taken (it would leak: Unlock gives back
// one).
func (h *Holder) take(ctx context.Context, acquire func(context.Context) (*Lease, error)) error {
	h.mu.Lock()
	if h.busy {
		h.mu.Unlock()
		return ErrAlreadyHeld
	}
	h.busy = true
	h.mu.Unlock()

	l, err := acquire(ctx)

	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.busy = false
		return err
	}
	h.lease = l
	return nil
}

// Unlock releases the lease: ErrNotHeld if none is held.
func (h *Holder) Unlock(ctx context.Context) error {
	h.mu.Lock()
	l := h.lease
	h.lease = nil // claim it: a second Unlock gets ErrNotHeld
	h.mu.Unlock()
	if l == nil {
		return ErrNotHeld
	}
	err := l.Release(ctx)
	h.mu.Lock()
	h.busy = false
	h.mu.Unlock()
	return err
}

func (h *Holder) held() *Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease
}

// Token is the held lease's fencing token, 0 if none.
func (h *Holder) Token() int64 {
	if l := h.held(); l != nil {
		return l.Token()
	}
	return 0
}

// Lost is the held lease's lost-hold channel, nil if none is held.
func (h *Holder) Lost() <-chan struct{} {
	if l := h.held(); l != nil {
		return l.Lost()
	}
	return nil
}
