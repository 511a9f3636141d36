// -tags workshop compiles the learner's acquire_workshop.go instead of this file.
//go:build !workshop

package seqlock

import (
	"context"
	"slices"

	"github.com/lockstep-zk/lockstep/event"
)

// This file is the lesson: steps 2 to 4 of the recipe (waitTurn) and the
// mutex's rule (First). Queue.Acquire, in queue.go, is the loop around
// them: it joins the queue (step 1), calls waitTurn, and queues up again
// when waitTurn says our node is gone.

// First is the mutex's rule: the lowest node holds the lock, and everyone
// else watches only the node just before its own. When that node goes away
// exactly one client wakes up — this is what kills the herd of chapter 03.
func First(queue []Node, ours int) (bool, string) {
	if ours == 0 {
		return true, ""
	}
	return false, queue[ours-1].Name
}

// waitTurn runs steps 2 to 4 until the rule says we hold the lock. If our
// node is no longer ours (gone from the queue, or left in a session that
// has ended) it returns errNodeGone, and Acquire queues up again; on any
// other error Acquire removes our node.
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
