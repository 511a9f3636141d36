// -tags workshop compiles the learner's acquire_workshop.go instead of this file.
//go:build !workshop

package semaphore

import (
	"context"
	"fmt"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// This file is the chapter's lesson — the steps of the package comment —
// and the file the workshop exercise replaces.

// Leases is the rule of the lease queue: the first n nodes hold a lease;
// a later one waits for the node n places ahead (which, under the gate,
// never happens: the gate holder creates its lease only when fewer than n
// are out). Without the gate it is the index rule the package comment
// explains, and its flaw.
func Leases(n int) seqlock.Rule {
	return func(queue []seqlock.Node, ours int) (bool, string) {
		if ours < n {
			return true, ""
		}
		return false, queue[ours-n].Name
	}
}

// Acquire blocks until this client holds one of the n leases, or ctx ends
// (then it leaves nothing behind).
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, true) }

// TryAcquire takes a lease if one is free now, else returns ErrLocked.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, false) }

func (s *Semaphore) acquire(ctx context.Context, wait bool) (l *Lease, err error) {
	// Step 1: the gate. One mutex per acquisition: goroutines sharing the
	// Semaphore queue at the gate like separate clients.
	gate, err := seqlock.New(s.sess, s.gateDir(), s.gate...)
	if err != nil {
		return nil, err
	}
	take := gate.Lock
	if !wait {
		take = gate.TryLock
	}
	if err := take(ctx); err != nil {
		return nil, fmt.Errorf("semaphore: gate: %w", err)
	}
	// Step 4, once we are through: let go of the gate (leaveGate also says
	// what a gate lost meanwhile means for the lease we took).
	defer s.leaveGate(ctx, gate, &l, &err)

	// Step 2: wait, alone, for fewer than n leases.
	for {
		out, changed, err := s.count(ctx)
		if err != nil {
			return nil, err
		}
		if out < s.n {
			break
		}
		if !wait {
			return nil, ErrLocked
		}
		s.emit(event.Waiting, "", s.leaseDir(), fmt.Sprintf("%d of %d leases out", out, s.n))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case ev := <-changed:
			s.emit(event.Notified, "", s.leaseDir(), ev.Type.String())
		}
	}

	// Step 3: our lease. Under the gate nobody else creates one, so the
	// rule lets us hold at once.
	lease, err := seqlock.NewWithRule(s.sess, s.leaseDir(), leaseName, Leases(s.n), s.gate...)
	if err != nil {
		return nil, err
	}
	if err := lease.TryLock(ctx); err != nil {
		return nil, fmt.Errorf("semaphore: lease: %w", err)
	}
	l = &Lease{m: lease, conn: s.conn, revoked: make(chan struct{})}
	if s.opts.revocable {
		l.watchRevocation(s)
	}
	return l, nil
}
