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
// underneath's Lock or TryLock. What must hold: the first acquisition
// takes the lock in ZooKeeper (and remembers the session it took it in);
// every further one only counts — no request, no blocking — but never
// on a hold that is no longer real: then it refuses with an error wrapping
// ErrLost.
func (m *Mutex) acquire(ctx context.Context, take func(context.Context) error) error {
	panic("TODO(workshop): acquire — the first Lock takes the lock, a further one only counts, unless the hold is gone (steps 1-3 of 06-reentrant/README.md)")
}

// release is Unlock, run in this Mutex's turn: one level down. What must
// hold: N Locks need N Unlocks before anyone else gets in; only the last
// one deletes our node; Unlock with nothing held is ErrNotHeld; a lost
// hold is reported (an error wrapping ErrLost) and the count still goes
// down by one.
func (m *Mutex) release(ctx context.Context) error {
	panic("TODO(workshop): release — one level down; only the last level lets go of the lock (steps 4-6 of 06-reentrant/README.md)")
}
