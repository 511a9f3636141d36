//go:build workshop

// Workshop exercise for chapter 03 (make exercise CH=03). This file takes
// the place of 03-watch-lock/watchlock/lock.go; the rest of the package is
// the reference's, including chapter 02's steps (TryLock creates the node,
// Unlock compares and deletes, in watchlock.go). The new steps, 3 to 5 —
// wait for the delete with a watch instead of polling — are yours.
package watchlock

import "context"

// Lock blocks until this Lock holds the lock or ctx ends. Steps 3 to 5 of
// 03-watch-lock/README.md:
//
//	for {
//		steps 1-2: try once (l.TryLock); anything but ErrLocked is the answer;
//		step 3: ask "does the lock node exist?" AND set a watch, in ONE
//		        request: exists, watch, err := l.existsW(ctx)
//		        (why one request? the README's race);
//		step 4: if it is already gone, try again at once;
//		step 5: otherwise say you wait (l.waiting()) and block until the
//		        watch fires (ev := <-watch; l.notified(ev)) or ctx ends
//		        (return ctx.Err()). A watch event with ev.Err != nil means
//		        the session ended or the conn closed: return an error
//		        wrapping ev.Err, because waiting longer would wait for ever.
//	}
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): loop: TryLock; on ErrLocked set an exists-watch on the lock node (l.existsW), retry at once if it is gone, else block until the watch fires or ctx ends — steps 3-5 of 03-watch-lock/README.md")
}
