//go:build workshop

// Workshop exercise for chapter 03 (make exercise CH=03). This file takes
// the place of 03-watch-lock/watchlock/lock.go; the rest of the package is
// the reference's, including chapter 02's steps (TryLock creates the node,
// Unlock compares and deletes, in watchlock.go). The new steps, 3 to 5 —
// wait for the delete with a watch instead of polling — are yours.
package watchlock

import "context"

// Lock blocks until this Lock holds the lock or ctx ends: steps 3 to 5 of
// 03-watch-lock/README.md, waiting for the lock node's delete with a watch
// instead of polling. What must hold: a waiter sends a handful of requests
// while it waits, not a stream; it never misses a release (not even one
// that happens between its failed create and its watch); it says once per
// wait that it waits (l.waiting()) and reports each wake-up
// (l.notified(ev)); it returns when ctx ends, and returns an error —
// rather than waiting for ever — when its watch can no longer fire.
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): Lock — try; while the lock is taken, wait for its node to go (a watch, not a sleep) and try again (steps 3-5 of 03-watch-lock/README.md)")
}
