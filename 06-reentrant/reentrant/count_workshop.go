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
// Written for you: Lock, TryLock and Unlock (reentrant.go) take this
// Mutex's turn, so one call at a time runs the two functions below; and
// m.depth (an atomic.Int64: Load, Store), m.session (the session that took
// the lock), m.lostReason() ("" while the hold looks real), m.info(detail),
// m.lock (chapter 04's lock underneath), ErrNotHeld and ErrLost.

// acquire is Lock and TryLock, run in this Mutex's turn: take is the lock
// underneath's Lock or TryLock.
func (m *Mutex) acquire(ctx context.Context, take func(context.Context) error) error {
	panic("TODO(workshop): depth ≥ 1: refuse with an error wrapping ErrLost if m.lostReason() says the hold is gone, else depth+1 and no request; depth 0: take(ctx), remember m.conn.SessionID() in m.session, depth 1 — steps 1-3 of 06-reentrant/README.md")
}

// release is Unlock, run in this Mutex's turn: one level down. Only the
// last one (depth 1 → 0) deletes our node. ErrNotHeld at depth 0; an
// error wrapping ErrLost at any depth if the hold was lost (the depth
// still goes down by one).
func (m *Mutex) release(ctx context.Context) error {
	panic("TODO(workshop): depth > 1: count down (an error wrapping ErrLost if m.lostReason() says so); depth 1: depth 0, then m.lock.Unlock(ctx) — steps 4-6 of 06-reentrant/README.md")
}
