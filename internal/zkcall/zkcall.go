// Package zkcall lets a go-zookeeper request honour a context.
//
// go-zookeeper's calls take no context. The request runs in its own
// goroutine and the caller stops waiting when ctx ends; the request itself
// is not taken back: it may still reach the server. A ctx that can never
// end (context.Background(), context.TODO(): Done returns nil) needs no
// goroutine: the request then runs in the caller's; so does one whose ctx
// is Watched.
package zkcall

import "context"

type watchedKey struct{}

// Watched marks ctx for a goroutine that nobody waits on except through
// ctx: its caller started it and waits for it or for ctx, whichever comes
// first (seqlock's Handle.Acquire runs a whole acquisition that way). Its
// calls need no goroutine each to honour ctx, since the caller stops
// waiting by itself: with a Watched ctx, Do and Send run f in the calling
// goroutine. They still tell when ctx ended meanwhile, as if the answer
// had come too late: Do returns ctx.Err() and drops it; Send hands it to
// late first.
func Watched(ctx context.Context) context.Context {
	return context.WithValue(ctx, watchedKey{}, true)
}

func watched(ctx context.Context) bool { return ctx.Value(watchedKey{}) != nil }

// Do runs f unless ctx has already ended, and waits for it or for ctx,
// whichever comes first. If ctx ends first Do returns ctx.Err() and f's
// result is dropped: use it for reads, watches and deletes, which leave
// nothing behind when abandoned; a call that creates something needs Send.
func Do[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	return Send(ctx, f, nil) // in this goroutine if ctx never ends or is Watched
}

// Send always runs f, even when ctx has already ended, and waits for it or
// for ctx, whichever comes first. If ctx ends first Send returns ctx.Err(),
// and late, if not nil, receives f's result once it comes, in the
// background (with a Watched ctx: before Send returns): the place to undo a
// create that landed after all.
func Send[T any](ctx context.Context, f func() (T, error), late func(T, error)) (T, error) {
	if ctx.Done() == nil {
		return f() // a ctx that never ends: nothing can come late
	}
	if watched(ctx) {
		v, err := f()
		if cerr := ctx.Err(); cerr != nil {
			if late != nil {
				late(v, err)
			}
			var zero T
			return zero, cerr
		}
		return v, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		if late != nil {
			go func() {
				r := <-done
				late(r.v, r.err)
			}()
		}
		var zero T
		return zero, ctx.Err()
	}
}
