//go:build workshop

// Workshop exercise for chapter 09 (make exercise CH=09). This file takes
// the place of 09-semaphore/semaphore/acquire.go; the rest of the package
// (the Semaphore, its Lease, revocation) and chapter 04's queue core are
// the reference's. Write the two TODO(workshop) parts, then run the
// chapter's own tests against them.
package semaphore

import (
	"context"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Leases is the rule of the lease queue: given the queue (lowest sequence
// first) and our index in it, do we hold a lease, and if not, which node's
// name do we watch? At most n hold at once, the first to have asked; and a
// waiter must wake when a lease it can take is freed, not before.
func Leases(n int) seqlock.Rule {
	return func(queue []seqlock.Node, ours int) (bool, string) {
		panic("TODO(workshop): Leases — who holds one of the n leases, and which one node each waiter watches")
	}
}

// Acquire blocks until this client holds one of the n leases, or ctx ends
// (then it leaves nothing behind).
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, true) }

// TryAcquire takes a lease if one is free now, else returns ErrLocked.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, false) }

// acquire is the recipe of the package comment. What each step must
// achieve:
//
//  1. Be the only client counting and taking leases: hold the gate (a
//     chapter 04 mutex on s.gateDir(); TryLock's when wait is false), and
//     let it go however acquire returns.
//  2. Under the gate, wait until fewer than s.n leases are out — woken
//     when a lease goes, not by clients joining the gate; with wait false,
//     ErrLocked instead of waiting.
//  3. Take a lease in the lease queue and return it as a *Lease (watching
//     for revocation if the Semaphore is revocable).
//
// What must hold: never more than n leases out; a cancelled ctx leaves
// nothing behind. The tools are in semaphore.go and lease.go; which ones,
// and why, are the hints' business (scripts/exercise 09 --hint).
func (s *Semaphore) acquire(ctx context.Context, wait bool) (*Lease, error) {
	_ = event.Waiting // report waits with s.emit(event.Waiting, "", s.leaseDir(), "…") if you like
	panic("TODO(workshop): acquire — the gate, the wait for a free lease, the lease (steps 1-3 of 09-semaphore/README.md)")
}
