// -tags workshop compiles the learner's acquire_workshop.go instead of this file.
//go:build !workshop

package seqlock

import "context"

// First is the mutex's rule: the lowest node holds the lock, and everyone
// else watches only the node just before its own. When that node goes away
// exactly one client wakes up — this is what kills the herd of chapter 03.
func First(queue []Node, ours int) (bool, string) {
	if ours == 0 {
		return true, ""
	}
	return false, queue[ours-1].Name
}

// waitTurn runs steps 2 to 4 of the recipe for our node until the rule
// says we hold the lock, and returns our hold. With First above, it is the
// lesson of this file. acquire, in queue.go, is the loop around it: it
// joins the queue (step 1), calls waitTurn, and queues up again or gives
// up when waitTurn returns an error.
func (q *queue) waitTurn(ctx context.Context, node string, wait bool) (*hold, error) {
	for {
		queue, ours, pzxid, err := q.list(ctx, node) // step 2
		if err != nil {
			return nil, err
		}
		holds, watch := q.rule(queue, ours) // step 3
		if holds {
			return q.hold(node, pzxid), nil
		}
		if !wait {
			return nil, ErrLocked
		}
		if err := q.waitFor(ctx, watch); err != nil { // step 4
			return nil, err
		}
	}
}
