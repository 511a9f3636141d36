package zkcall

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// Retry is Do for reads and watches that must survive a dropped
// connection: if the connection drops under f, f is sent again as long as
// conn is still in session (the session f began in) — the reader's node,
// and its place in a queue, are still there, so there is no reason to
// give up. (go-zookeeper queues the new request until it has reconnected;
// while it cycles through the servers it fails queued ones with
// ErrNoServer.) A new session, a closed conn, session 0 or the end of ctx
// ends it. Use it for reads and watches only: a create sent twice would
// create twice. seqlock reads this way, and so does 09's semaphore.
func Retry[T any](ctx context.Context, conn *zk.Conn, session int64, f func() (T, error)) (T, error) {
	for {
		v, err := Do(ctx, f)
		dropped := errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer)
		if !dropped || session == 0 || conn.SessionID() != session || Closed(ctx, conn) {
			if cerr := ctx.Err(); dropped && cerr != nil {
				return v, cerr // the caller gave up while the connection was down
			}
			return v, err
		}
	}
}

// Closed tells a conn that was closed from one that is reconnecting: both
// fail requests with ErrConnectionClosed, but only a closed one stays
// StateDisconnected; a live one is StateConnecting again within moments.
// It also says true once ctx ends.
func Closed(ctx context.Context, conn *zk.Conn) bool {
	for range 4 {
		select {
		case <-ctx.Done():
			return true
		case <-time.After(50 * time.Millisecond):
		}
		if conn.State() != zk.StateDisconnected {
			return false
		}
	}
	return true
}
