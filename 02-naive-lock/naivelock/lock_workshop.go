//go:build workshop

// Workshop exercise for chapter 02 (make exercise CH=02). This file takes
// the place of 02-naive-lock/naivelock/lock.go; the rest of the package
// (the Lock, New, TryLock's guards, Unlock's bookkeeping, create and the
// other helpers in naivelock.go) is the reference's. Read the README's
// four steps, write the three TODO(workshop) parts, and run the chapter's
// own tests against them.
package naivelock

import "context"

// Lock blocks until this Lock holds the lock or ctx ends. Step 3, the
// "While version":
//
//	for {
//		try once (l.TryLock); anything but ErrLocked is the answer;
//		the first time you find it taken, say so once (l.waiting());
//		sleep l.retry — but return ctx.Err() as soon as ctx ends.
//	}
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): loop: TryLock; on ErrLocked say you wait (once), sleep l.retry or return when ctx ends, try again — step 3 of 02-naive-lock/README.md")
}

// attempt is steps 1 and 2 (TryLock calls it once it has checked that this
// Lock holds nothing and ctx is alive):
//
//  1. make a fresh token (newToken()) and create the lock node with it as
//     its data: l.create(ctx, token) sends the create with l.flags, makes
//     missing parents and honours ctx for you;
//  2. if that worked, you hold the lock: keep the token in l.token and say
//     so (l.acquired()).
//
// zk.ErrNodeExists means somebody else holds it: return ErrLocked. If ctx
// has ended, return the error as it is; wrap anything else with %w, saying
// what you were doing.
func (l *Lock) attempt(ctx context.Context) error {
	panic("TODO(workshop): create the lock node with a fresh token as its data (l.create); success = you hold it, NodeExists = ErrLocked — steps 1-2 of 02-naive-lock/README.md")
}

// deleteIfOurs is step 4, the compare-and-delete (Unlock calls it with the
// token it held):
//
//   - read the lock node (l.get()): its data and its Stat;
//   - if it is gone (zk.ErrNoNode) or its data is not token, return
//     ErrNotHeld: it is not ours, and somebody else's lock stays as it is;
//   - delete exactly the version you read (l.delete(stat.Version)); if that
//     fails with zk.ErrNoNode or zk.ErrBadVersion, somebody changed it in
//     between: ErrNotHeld.
//
// Wrap any other error with %w.
func (l *Lock) deleteIfOurs(token string) error {
	panic("TODO(workshop): get the lock node, compare its data with our token, delete exactly that version (else ErrNotHeld) — step 4 of 02-naive-lock/README.md")
}
