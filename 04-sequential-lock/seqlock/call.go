package seqlock

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// go-zookeeper's calls take no context. call runs one in its own goroutine
// so that ctx can interrupt the wait (internal/zkcall.Do: if ctx ends
// first, the answer is dropped) — unless ctx can never end, or a Lock's
// whole acquisition already runs in a goroutine its caller waits on with
// ctx (handle.go: run): the call then runs where it is, and still returns
// ctx.Err() if ctx ended meanwhile. Only reads, watches and deletes go
// through it: abandoning those leaves nothing behind. Creates go through
// Queue.create, which cleans up after itself.
func call[T any](ctx context.Context, f func() (T, error)) (T, error) { return zkcall.Do(ctx, f) }

// retry is call for reads: if the connection drops under the read, it is
// sent again as long as the client is still in the same session — our node,
// and our place in the queue, are still there, so there is no reason to
// give up (internal/zkcall.Retry).
func retry[A, B any](ctx context.Context, conn *zk.Conn, session int64, f func() (A, B, error)) (A, B, error) {
	type pair struct {
		a A
		b B
	}
	p, err := zkcall.Retry(ctx, conn, session, func() (pair, error) { a, b, err := f(); return pair{a, b}, err })
	return p.a, p.b, err
}

func retry3[A, B, C any](ctx context.Context, conn *zk.Conn, session int64, f func() (A, B, C, error)) (A, B, C, error) {
	type triple struct {
		a A
		b B
		c C
	}
	t, err := zkcall.Retry(ctx, conn, session, func() (triple, error) { a, b, c, err := f(); return triple{a, b, c}, err })
	return t.a, t.b, t.c, err
}
