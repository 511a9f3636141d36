// -tags workshop compiles the learner's acquire_workshop.go instead of this file.
//go:build !workshop

package seqlock

import (
	"context"
	"errors"
	"slices"

	"github.com/lockstep-zk/lockstep/event"
)

// Acquire is the recipe, in the order the articles draw it:
//
//  1. Join the queue: create an EPHEMERAL_SEQUENTIAL node under the lock
//     directory (queue.go: join).
//  2. List the queue, sorted by sequence number.
//  3. Ask the rule. If it says we hold the lock, we do.
//  4. Otherwise watch the one node the rule names, wait for it to change,
//     and go back to step 2. It may have been a waiter that gave up rather
//     than the holder, so we never assume the lock is ours.
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
			// Our node vanished before we held the lock: our session
			// expired while we waited (go-zookeeper then opens a new one
			// on the same conn), or someone deleted it. Our place in the
			// queue is gone; queue up again, as Curator does.
			continue
		}
		if err != nil {
			q.remove(node)
			return nil, err
		}
		return h, nil
	}
}

// First is the mutex's rule: the lowest node holds the lock, and everyone
// else watches only the node just before its own. When that node goes away
// exactly one client wakes up — this is what kills the herd of chapter 03.
func First(queue []Node, ours int) (bool, string) {
	if ours == 0 {
		return true, ""
	}
	return false, queue[ours-1].Name
}

// errNodeGone: our own node is no longer in the queue.
var errNodeGone = errors.New("seqlock: our node is gone")

// waitTurn runs steps 2 to 4 until the rule says we hold the lock.
func (q *Queue) waitTurn(ctx context.Context, node string, session int64, wait bool) (*Hold, error) {
	name := event.Short(node)
	for {
		queue, pzxid, err := q.list(ctx, session) // step 2
		if err != nil {
			return nil, q.sessionGone(ctx, session, err)
		}
		ours := slices.IndexFunc(queue, func(n Node) bool { return n.Name == name })
		if ours < 0 {
			return nil, errNodeGone
		}
		holds, watch := q.rule(queue, ours) // step 3
		switch {
		case holds && q.conn.SessionID() != session:
			return nil, errNodeGone // a node of a session that has just expired
		case holds:
			return q.hold(node, session, pzxid), nil
		case !wait:
			return nil, ErrLocked
		}
		if err := q.waitFor(ctx, q.dir+"/"+watch, session); err != nil { // step 4
			return nil, q.sessionGone(ctx, session, err)
		}
	}
}
