package seqlock

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Retry is the core's read (call.go: retry) for chapters that read on their
// own beside the core, as 09's semaphore counts its leases and watches for
// revocations: f runs under ctx, and is sent again when the connection
// drops under it, as long as conn is still in the session it had when
// Retry began. A new session, a closed conn or the end of ctx ends it.
// Use it for reads and watches only: a create sent twice would create twice.
func Retry[T any](ctx context.Context, conn *zk.Conn, f func() (T, error)) (T, error) {
	return retryCall(ctx, conn, conn.SessionID(), f)
}
