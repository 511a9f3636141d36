// -tags workshop compiles the learner's lock_workshop.go instead of this file.
//go:build !workshop

package watchlock

// This file is chapter 03's lesson: steps 3 to 5 of the README, waiting
// for the lock node's delete with a watch instead of polling. Steps 1, 2
// and 6 are chapter 02's (TryLock and Unlock, in watchlock.go). The
// workshop exercise (lock_workshop.go, next to this file) replaces exactly this
// file.

import (
	"context"
	"errors"
	"fmt"
)

// Lock blocks until this Lock holds the lock or ctx ends.
//
//  1. create the lock node (ephemeral, so a crashed holder's session frees it);
//  2. if that worked, we hold the lock;
//  3. if the node exists, ask "does it exist?" and set a watch, in ONE request;
//  4. if it is already gone, go to 1 at once;
//  5. otherwise block until the watch fires (node deleted), then go to 1.
func (l *Lock) Lock(ctx context.Context) error {
	for {
		err := l.TryLock(ctx) // steps 1 and 2
		if !errors.Is(err, ErrLocked) {
			return err // acquired (nil), or a real error
		}
		// Between our failed create and now, the holder may have let go.
		// Checking with Exists and then setting a watch would leave a gap
		// in which the delete goes unnoticed and we wait for ever. ExistsW
		// does both at once: either the node is gone (and we retry), or the
		// watch is in place before the server answers.
		exists, watch, err := l.existsW(ctx) // step 3
		if err != nil {
			return err
		}
		if !exists {
			continue // step 4: released between our create and our exists
		}
		l.waiting()

		// Step 5. No polling: we sleep until ZooKeeper tells us something
		// happened. Every other waiter watches the same node, so the
		// delete that wakes us wakes all of them — the herd.
		select {
		case <-ctx.Done():
			// The watch stays registered on the server until the node
			// changes; go-zookeeper then drops the event into the
			// one-slot channel nobody reads. Nothing leaks.
			return ctx.Err()
		case ev := <-watch:
			l.notified(ev)
			if ev.Err != nil {
				// Our session expired or the connection was closed: every
				// watch is gone, and waiting longer would wait for ever.
				return fmt.Errorf("watchlock: waiting for %s: %w", l.path, ev.Err)
			}
		}
	}
}
