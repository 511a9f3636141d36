//go:build workshop

// Workshop exercise for chapter 04 (make exercise CH=04). This file takes
// the place of 04-sequential-lock/seqlock/acquire.go; the rest of the
// package is the reference's: the queue core (queue.go: join, list,
// waitFor, remove), the Hold, the Mutex and its options. What the chapter
// teaches is yours: the mutex's rule, First, and the loop that asks the
// rule and waits (waitTurn). Acquire, which joins the queue and calls
// waitTurn, is written: a deliberate copy of the reference's, the
// lesson's outer loop, given so that you start with the steps in view.
package seqlock

import (
	"context"
	"errors"
)

// Acquire is the recipe, in the order the articles draw it:
//
//  1. Join the queue: create an EPHEMERAL_SEQUENTIAL node under the lock
//     directory (queue.go: join).
//  2. List the queue, sorted by sequence number.
//  3. Ask the rule. If it says we hold the lock, we do.
//  4. Otherwise watch the one node the rule names, wait for it to change,
//     and go back to step 2.
//  5. Hold.Release deletes our node, which wakes whoever watches it.
//
// With wait false (TryLock) step 4 is "give up": Acquire removes our node
// and returns ErrLocked. If ctx ends, Acquire removes our node and returns
// ctx's error: a node left behind would block the queue.
func (q *Queue) Acquire(ctx context.Context, wait bool) (*Hold, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for {
		node, session, err := q.join(ctx) // step 1
		if err != nil {
			return nil, err
		}
		h, err := q.waitTurn(ctx, node, session, wait)
		if errors.Is(err, errNodeGone) {
			// Our node vanished before we held the lock (our session
			// expired, or someone deleted it): queue up again.
			continue
		}
		if err != nil {
			q.remove(node)
			return nil, err
		}
		return h, nil
	}
}

// First is the mutex's rule. queue is the lock directory's nodes, lowest
// sequence number first; ours is the index of our node in it. Say whether
// we hold the lock and, if not, the Name of the one node we wait for.
//
// Which node? Watching the lowest node would bring back chapter 03's herd:
// one release would wake every waiter.
func First(queue []Node, ours int) (bool, string) {
	panic("TODO(workshop): the lowest node holds the lock; any other watches the node just before its own (return its Name) — steps 3-4 of 04-sequential-lock/README.md")
}

// errNodeGone: our own node is no longer in the queue.
var errNodeGone = errors.New("seqlock: our node is gone")

// waitTurn runs steps 2 to 4 until the rule says we hold the lock:
//
//	for {
//		step 2: queue, pzxid, err := q.list(ctx, session) — sorted, with
//		        the directory's pzxid (the fencing token if we hold);
//		        find our node in it: its Name is event.Short(node);
//		        not there → errNodeGone (Acquire queues up again);
//		step 3: holds, watch := q.rule(queue, ours) — First for a mutex.
//		        If we hold it: q.hold(node, session, pzxid). But a node
//		        that holds while q.conn.SessionID() != session belongs to
//		        a session that has just expired: errNodeGone too.
//		        If we do not and wait is false (TryLock): ErrLocked;
//		step 4: q.waitFor(ctx, q.dir+"/"+watch, session) blocks until
//		        that node changes or goes (or returns at once if it is
//		        already gone); then list again — never assume the lock
//		        is ours: the node we watched may have been a waiter that
//		        gave up while the holder still holds.
//	}
//
// An error from q.list or q.waitFor goes back through
// q.sessionGone(ctx, session, err): if our session ended meanwhile, our
// node died with it, and that is errNodeGone. Acquire removes our node on
// any other error.
func (q *Queue) waitTurn(ctx context.Context, node string, session int64, wait bool) (*Hold, error) {
	panic("TODO(workshop): list the queue (q.list), find our node, ask q.rule; hold (q.hold), or ErrLocked when not waiting, or wait for the node the rule names (q.waitFor) and list again — steps 2-4 of 04-sequential-lock/README.md")
}
