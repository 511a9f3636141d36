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
// name do we watch? The first n nodes hold; a later one watches the node n
// places ahead of it.
func Leases(n int) seqlock.Rule {
	return func(queue []seqlock.Node, ours int) (bool, string) {
		panic("TODO(workshop): hold if ours < n; else watch queue[ours-n].Name")
	}
}

// Acquire blocks until this client holds one of the n leases, or ctx ends
// (then it leaves nothing behind).
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, true) }

// TryAcquire takes a lease if one is free now, else returns ErrLocked.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, false) }

// acquire is the recipe of the package comment:
//
//  1. take the gate: a chapter 04 mutex on s.gateDir() (seqlock.New(s.conn,
//     s.gateDir(), s.gate...)); Lock if wait, else TryLock; Unlock it when done;
//  2. under the gate, s.count(ctx) the leases; while s.n are out, wait for
//     the children watch count returns (or ctx), then count again — with
//     wait false, return ErrLocked instead;
//  3. take a lease: s.leases.Acquire(ctx, false) returns the core's Hold;
//     wrap it: &Lease{Hold: h, conn: s.conn, revoked: make(chan struct{})},
//     and if s.opts.revocable call l.watchRevocation(s);
//  4. let go of the gate (a deferred Unlock does it).
func (s *Semaphore) acquire(ctx context.Context, wait bool) (*Lease, error) {
	_ = event.Waiting // report waits with s.emit(event.Waiting, "", s.leaseDir(), "…") if you like
	panic("TODO(workshop): the gate (step 1), the wait for a free lease (step 2), the lease (step 3)")
}
