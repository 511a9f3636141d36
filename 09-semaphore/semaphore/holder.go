package semaphore

import (
	"context"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// Holder is one client's hold on a lease, with the Lock and Unlock every
// other lock of the course has: Lock takes a lease, Unlock gives it back.
// With one lease it is a mutex, and the lock conformance suite holds it to
// that; the demo and the visualizer drive the semaphore through it like
// any other lock. One goroutine at a time uses a Holder; make one per
// contender (Semaphore.Holder sends nothing). Its bookkeeping is chapter
// 04's seqlock.Handle, as the Mutex's is: a Lock while a lease is held, or
// being taken, is ErrAlreadyHeld, and no second lease is taken (it would
// leak: Unlock gives back one).
type Holder struct {
	s *Semaphore
	h seqlock.Handle
}

// Holder returns a new Holder on s, holding nothing.
func (s *Semaphore) Holder() *Holder { return &Holder{s: s} }

// Lock is Acquire: it blocks until a lease is ours or ctx ends.
func (h *Holder) Lock(ctx context.Context) error { return h.h.Acquire(ctx, lease(h.s.Acquire)) }

// TryLock is TryAcquire: ErrLocked at once when all n leases are out.
func (h *Holder) TryLock(ctx context.Context) error { return h.h.Acquire(ctx, lease(h.s.TryAcquire)) }

// lease gives the Handle the core's Hold of the lease acquire takes: a
// Lease's Release is its Hold's (the revocation watch ends with the node).
func lease(acquire func(context.Context) (*Lease, error)) func(context.Context) (*seqlock.Hold, error) {
	return func(ctx context.Context) (*seqlock.Hold, error) {
		l, err := acquire(ctx)
		if err != nil {
			return nil, err
		}
		return l.Hold, nil
	}
}

// Unlock releases the lease: ErrNotHeld if none is held.
func (h *Holder) Unlock(ctx context.Context) error { return h.h.Release(ctx) }

// Token is the held lease's fencing token, 0 if none.
func (h *Holder) Token() int64 { return h.h.Token() }

// Node is the held lease's node, "" if none.
func (h *Holder) Node() string { return h.h.Node() }

// Lost is the held lease's lost-hold channel; between leases the last
// one's, and nil (which never fires) before the first, as a Mutex's.
func (h *Holder) Lost() <-chan struct{} { return h.h.Lost() }
