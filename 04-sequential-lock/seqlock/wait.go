package seqlock

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Step 4 of the recipe: wait for the one node the rule names to change or go.

// waitFor sets a data watch on node and blocks until it fires or ctx ends.
// It returns at once, with no watch left behind, if node is already gone.
//
// Why GetW and not ExistsW: if node left between our listing and this call,
// GetW fails with ErrNoNode and registers nothing, whereas ExistsW would
// leave a creation watch on a name that will never come back.
func (q *Queue) waitFor(ctx context.Context, node string, session int64) error {
	q.emit(event.Request, "get", node, "")
	_, _, watch, err := retry3(ctx, q.conn, session, func() ([]byte, *zk.Stat, <-chan zk.Event, error) { return q.conn.GetW(node) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil // it left between our listing and our watch: look again
	}
	if err != nil {
		return fmt.Errorf("seqlock: watch %s: %w", node, err)
	}
	q.emit(event.WatchSet, "get", node, "")
	q.emit(event.Waiting, "", node, "")
	select {
	case <-ctx.Done():
		return ctx.Err()
	case ev := <-watch:
		q.emit(event.Notified, "", node, ev.Type.String())
		if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
			return fmt.Errorf("seqlock: wait for %s: %w", node, ev.Err)
		}
		// Deleted, changed, or the session ended: in every case the caller
		// lists the queue again rather than assume anything.
		return nil
	}
}
