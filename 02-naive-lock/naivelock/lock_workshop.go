//go:build workshop

// Workshop exercise for chapter 02 (make exercise CH=02). This file takes
// the place of 02-naive-lock/naivelock/lock.go; the rest of the package
// (the Lock, New, TryLock's guards, Unlock's bookkeeping, create and the
// other helpers in naivelock.go) is the reference's. Read the README's
// four steps, write the three TODO(workshop) parts, and run the chapter's
// own tests against them.
package naivelock

import "context"

// Lock blocks until this Lock holds the lock or ctx ends: step 3, the
// "While version". What must hold: a taken lock is tried again every
// l.retry until it is free; any other answer (we hold it, or a real error)
// ends Lock at once; a cancelled ctx ends it at once too, not one retry
// later; and the waiter says once that it waits (l.waiting()), for the
// visualizer and the tests that count.
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): Lock — try, and while the lock is taken wait and try again; stop at once on anything else or when ctx ends (step 3 of 02-naive-lock/README.md)")
}

// attempt is steps 1 and 2 (TryLock calls it once it has checked that this
// Lock holds nothing and ctx is alive). What must hold afterwards: if the
// lock node now exists because of us, we hold the lock, we know the token
// it carries (l.token; Unlock needs it) and we said so (l.acquired());
// if it already existed, somebody else holds it: ErrLocked; any other
// failure is an error that says what we were doing (ctx's error as it is).
// The helpers (newToken, l.create) are in naivelock.go.
func (l *Lock) attempt(ctx context.Context) error {
	panic("TODO(workshop): attempt — create the lock node carrying a fresh token; created: we hold it; already there: ErrLocked (steps 1-2 of 02-naive-lock/README.md)")
}

// deleteIfOurs is step 4 (Unlock calls it with the token it held). What
// must hold: we delete the lock node only if it is still ours — the one
// carrying our token, unchanged since we looked — and otherwise leave it
// alone and return ErrNotHeld: after our session expired, the node at the
// path may be somebody else's lock. Other errors are wrapped with %w.
func (l *Lock) deleteIfOurs(token string) error {
	panic("TODO(workshop): deleteIfOurs — delete the lock node only if it is still ours, else ErrNotHeld (step 4 of 02-naive-lock/README.md)")
}
