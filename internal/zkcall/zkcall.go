// Package zkcall lets a go-zookeeper request honour a context.
//
// go-zookeeper's calls take no context. So that a caller can stop waiting
// when its ctx ends, a request whose ctx can end runs on a goroutine of its
// own, and the caller waits for it or for ctx, whichever comes first; the
// request itself is not taken back: it may still reach the server. A ctx
// that can never end (context.Background(), context.TODO(): Done returns
// nil) needs no other goroutine: the request runs in the caller's.
//
// Conn is the view every lock uses: one method per request, with
// ctx first, as etcd's client takes it. Do, Send and Retry are the same
// for a request of one's own.
package zkcall

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// Conn is a ctx-aware view of a go-zookeeper conn: each request is one
// call with ctx first at its call site, as etcd's client takes it
// (client.Get(ctx, key)), instead of a closure handed to Do at every call.
// What each method needs to fit Do is written here, once.
//
// Reads and watches are sent again if the connection drops under them,
// for as long as the conn is still in Session (Retry): the reader's node,
// and its place in a queue, are still there, so there is no reason to
// give up. With Session 0 they are sent once.
type Conn struct {
	*zk.Conn
	Session int64
}

// Children lists path's children.
func (c Conn) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	type listing struct {
		children []string
		stat     *zk.Stat
	}
	l, err := call(ctx, c, func() (listing, error) {
		children, stat, err := c.Conn.Children(path)
		return listing{children, stat}, err
	}, nil, false)
	return l.children, l.stat, err
}

// ChildrenW lists path's children and sets a children watch on path.
func (c Conn) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	type listing struct {
		children []string
		stat     *zk.Stat
		changed  <-chan zk.Event
	}
	l, err := call(ctx, c, func() (listing, error) {
		children, stat, changed, err := c.Conn.ChildrenW(path)
		return listing{children, stat, changed}, err
	}, nil, false)
	return l.children, l.stat, l.changed, err
}

// ExistsW says whether path exists and sets a watch on it either way.
func (c Conn) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	type existence struct {
		ok      bool
		stat    *zk.Stat
		changed <-chan zk.Event
	}
	e, err := call(ctx, c, func() (existence, error) {
		ok, stat, changed, err := c.Conn.ExistsW(path)
		return existence{ok, stat, changed}, err
	}, nil, false)
	return e.ok, e.stat, e.changed, err
}

// Get reads path's data.
func (c Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	type read struct {
		data []byte
		stat *zk.Stat
	}
	r, err := call(ctx, c, func() (read, error) {
		data, stat, err := c.Conn.Get(path)
		return read{data, stat}, err
	}, nil, false)
	return r.data, r.stat, err
}

// GetW reads path's data and sets a data watch on it. If path does not
// exist it fails with zk.ErrNoNode and sets no watch (ExistsW would leave
// one behind on a name that may never come back).
func (c Conn) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	type read struct {
		data    []byte
		stat    *zk.Stat
		changed <-chan zk.Event
	}
	r, err := call(ctx, c, func() (read, error) {
		data, stat, changed, err := c.Conn.GetW(path)
		return read{data, stat, changed}, err
	}, nil, false)
	return r.data, r.stat, r.changed, err
}

// Create creates path. It is sent even if ctx has already ended, as Send
// sends: if ctx ends before the reply, Create returns ctx.Err(), and late,
// if not nil, receives the reply once it comes — the place to delete a
// node that was created after all.
func (c Conn) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, late func(string, error)) (string, error) {
	return call(ctx, Conn{}, func() (string, error) { return c.Conn.Create(path, data, flags, acl) }, late, true)
}

// CreateContainer creates path as a container node, which the server
// deletes once its last child is gone. A container abandoned when ctx ends
// is harmless: empty, the server reaps it.
func (c Conn) CreateContainer(ctx context.Context, path string, data []byte, acl []zk.ACL) error {
	_, err := call(ctx, Conn{}, func() (string, error) { return c.Conn.CreateContainer(path, data, zk.FlagContainer, acl) }, nil, false)
	return err
}

// Delete deletes path if its version is version (-1: any).
func (c Conn) Delete(ctx context.Context, path string, version int32) error {
	_, err := call(ctx, Conn{}, func() (struct{}, error) { return struct{}{}, c.Conn.Delete(path, version) }, nil, false)
	return err
}

// call is Do, Send and Retry, and every request of Conn: it sends f
// (unless ctx has ended, or always), on a goroutine of its own when ctx can
// end, and waits for the answer or for ctx. A read on a Conn with a
// Session is sent again while its connection drops (c.dropped). late gets
// an answer that comes after ctx ended.
func call[T any](ctx context.Context, c Conn, f func() (T, error), late func(T, error), always bool) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil && !always {
		return zero, err
	}
	send := func() (T, error) {
		for {
			v, err := f()
			if !c.dropped(ctx, err) {
				return v, err
			}
		}
	}
	if ctx.Done() == nil {
		return send() // a ctx that never ends: nothing can come late
	}
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := send()
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		if c.Session != 0 && ctx.Err() != nil && isDrop(a.err) {
			return zero, ctx.Err() // the caller gave up while the connection was down
		}
		return a.v, a.err
	case <-ctx.Done():
		if late != nil {
			go func() {
				a := <-done
				late(a.v, a.err)
			}()
		}
		return zero, ctx.Err()
	}
}

// dropped says whether a read that failed with err is sent again: the
// connection dropped under it, c keeps the session it began in, and ctx
// lives.
func (c Conn) dropped(ctx context.Context, err error) bool {
	return c.Session != 0 && isDrop(err) && ctx.Err() == nil &&
		c.Conn.SessionID() == c.Session && !Closed(ctx, c.Conn)
}

// isDrop: the connection dropped after the request was sent
// (ErrConnectionClosed), or before (ErrNoServer: go-zookeeper fails the
// requests it has not sent each time it has tried every server).
func isDrop(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer)
}

// Do runs f unless ctx has already ended, and waits for it or for ctx,
// whichever comes first. If ctx ends first Do returns ctx.Err() and f's
// result is dropped: use it for reads, watches and deletes, which leave
// nothing behind when abandoned; a call that creates something needs Send.
func Do[T any](ctx context.Context, f func() (T, error)) (T, error) {
	return call(ctx, Conn{}, f, nil, false)
}

// Send always runs f, even when ctx has already ended, and waits for it or
// for ctx, whichever comes first. If ctx ends first Send returns ctx.Err(),
// and late, if not nil, receives f's result once it comes, in the
// background: the place to undo a create that landed after all.
func Send[T any](ctx context.Context, f func() (T, error), late func(T, error)) (T, error) {
	return call(ctx, Conn{}, f, late, true)
}

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
	return call(ctx, Conn{conn, session}, f, nil, false)
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
