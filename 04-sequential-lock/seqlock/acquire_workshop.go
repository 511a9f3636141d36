//go:build workshop

// Workshop exercise for chapter 04 (make exercise CH=04, or make workshop).
// With -tags workshop this file takes the place of acquire.go, next to it;
// the rest of the package is the reference's. What the chapter teaches is
// yours: the mutex's rule, First, and steps 2 to 4 of the recipe, the loop
// that asks the rule and waits (waitTurn). acquire, in queue.go, is
// written: it joins the queue (step 1), calls your waitTurn, and, when
// waitTurn returns an error, queues up again (our node is gone) or removes
// our node and gives up.
package seqlock

import "context"

// First is the mutex's rule. queue is the lock directory's nodes, lowest
// sequence number first; ours is the index of our node in it. Say whether
// we hold the lock and, if not, the Name of the one node we wait for.
//
// What must hold: exactly one node holds, the first to have asked; and
// when the holder lets go, exactly one waiter wakes up (chapter 03 woke
// them all). Stuck? scripts/exercise 04 --hint, or h in make workshop.
func First(queue []Node, ours int) (bool, string) {
	panic("TODO(workshop): First — who holds, and which one node each waiter watches so that one release wakes one waiter (steps 3-4 of 04-sequential-lock/README.md)")
}

// waitTurn runs steps 2 to 4 for our node (its full path) until the rule
// says we hold the lock. What each step must achieve:
//
//  2. Know the queue as it is now, and our place in it.
//  3. Ask the rule (q.rule). If we hold, return our hold, whose token is
//     the directory's pzxid as the listing that showed us first saw it. If
//     we do not hold and may not wait (wait false, TryLock): ErrLocked.
//  4. Otherwise block until the one node the rule named changes or goes,
//     then go back to step 2.
//
// What must hold afterwards: nobody holds while a node ahead of it holds;
// a waiter that wakes up never assumes the lock is its own; an error is
// returned as it is (acquire knows what to do with it). The tools are the
// core's, in queue.go and hold.go next to this one; which ones, and why,
// are the hints' business: scripts/exercise 04 --hint, or h in make
// workshop.
func (q *queue) waitTurn(ctx context.Context, node string, wait bool) (*hold, error) {
	panic("TODO(workshop): waitTurn — steps 2 to 4: know the queue and our place, ask the rule, hold or give up or wait, and after a wait look again (04-sequential-lock/README.md)")
}
