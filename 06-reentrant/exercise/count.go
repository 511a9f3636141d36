//go:build workshop

// Workshop exercise for chapter 06 (make exercise CH=06). This file takes
// the place of 06-reentrant/reentrant/count.go; the rest of the package
// (the Mutex with its turn and lostReason, the read/write lock, the
// options) and chapter 04's lock underneath are the reference's. Write the
// two TODO(workshop) steps, then run the chapter's own tests against them.
package reentrant

import (
	"context"
)

// The lesson of chapter 06: a hold count on top of chapter 04's lock.
//
//	Lock   steps 1–3: at depth 0 take the lock underneath (take); at depth ≥ 1
//	       send nothing, but refuse if the hold was lost (m.lostReason()),
//	       else count up
//	Unlock steps 4–6: count down; only the last Unlock (depth 1 → 0) calls
//	       m.lock.Unlock, which deletes our node
//
// Written for you: m.takeTurn / m.endTurn (one call at a time per Mutex),
// m.depth (an atomic.Int64), m.session (the session that took the lock),
// m.lostReason(), m.info(detail), and the errors ErrNotHeld and ErrLost.

// acquire is Lock and TryLock: take is the lock underneath's Lock or TryLock.
func (m *Mutex) acquire(ctx context.Context, take func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.takeTurn(ctx); err != nil {
		return err
	}
	defer m.endTurn()

	panic("TODO(workshop): depth ≥ 1: refuse with an error wrapping ErrLost if m.lostReason() says the hold is gone, else depth+1 and no request; depth 0: take(ctx), remember m.conn.SessionID() in m.session, depth 1 — steps 1-3 of 06-reentrant/README.md")
}

// Unlock undoes one Lock. Only the last one (depth 1 → 0) deletes our node
// in ZooKeeper and lets the next owner in. ErrNotHeld if this Mutex does
// not hold the lock; an error wrapping ErrLost at any depth if the hold
// was lost (the depth still goes down by one).
func (m *Mutex) Unlock(ctx context.Context) error {
	if m.depth.Load() == 0 {
		return ErrNotHeld
	}
	if err := m.takeTurn(ctx); err != nil {
		return err
	}
	defer m.endTurn()

	panic("TODO(workshop): depth > 1: count down (an error wrapping ErrLost if m.lostReason() says so); depth 1: depth 0, then m.lock.Unlock(ctx) — steps 4-6 of 06-reentrant/README.md")
}
