// Package zkcall lets a go-zookeeper request honour a context.
//
// go-zookeeper's calls take no context. So that a caller can stop waiting
// when its ctx ends, a request whose ctx can end runs on another
// goroutine, one of a few kept idle between requests (workers.go), and the
// caller waits for it or for ctx, whichever comes first; the request
// itself is not taken back: it may still reach the server. A ctx that can
// never end (context.Background(), context.TODO(): Done returns nil) needs
// no other goroutine: the request runs in the caller's.
//
// Conn (conn.go) is the view every lock uses: one method per request, with
// ctx first, as etcd's client takes it.
package zkcall

import "context"

// Do runs f unless ctx has already ended, and waits for it or for ctx,
// whichever comes first. If ctx ends first Do returns ctx.Err() and f's
// result is dropped: use it for reads, watches and deletes, which leave
// nothing behind when abandoned; a call that creates something needs Send.
func Do[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	return Send(ctx, f, nil)
}

// Send always runs f, even when ctx has already ended, and waits for it or
// for ctx, whichever comes first. If ctx ends first Send returns ctx.Err(),
// and late, if not nil, receives f's result once it comes, in the
// background: the place to undo a create that landed after all.
func Send[T any](ctx context.Context, f func() (T, error), late func(T, error)) (T, error) {
	if ctx.Done() == nil {
		return f() // a ctx that never ends: nothing can come late
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	run(func() {
		v, err := f()
		done <- result{v, err}
	})
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		if late != nil {
			run(func() {
				r := <-done
				late(r.v, r.err)
			})
		}
		var zero T
		return zero, ctx.Err()
	}
}
