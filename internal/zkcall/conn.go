package zkcall

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Conn is a ctx-aware view of a go-zookeeper conn: each request is one
// call with ctx at its call site, as etcd's client reads
// (client.Get(ctx, key)), instead of a closure handed to Do at every call.
// The tuple each method needs to fit Do is written here, once.
//
// Only reads and watches are here: abandoning them (ctx ends first)
// leaves nothing behind on the server, which is what Do requires.
type Conn struct{ *zk.Conn }

// Children lists path's children.
func (c Conn) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	type listing struct {
		children []string
		stat     *zk.Stat
	}
	l, err := Do(ctx, func() (listing, error) {
		children, stat, err := c.Conn.Children(path)
		return listing{children, stat}, err
	})
	return l.children, l.stat, err
}

// ChildrenW lists path's children and sets a children watch on path.
func (c Conn) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	type listing struct {
		children []string
		stat     *zk.Stat
		changed  <-chan zk.Event
	}
	l, err := Do(ctx, func() (listing, error) {
		children, stat, changed, err := c.Conn.ChildrenW(path)
		return listing{children, stat, changed}, err
	})
	return l.children, l.stat, l.changed, err
}

// ExistsW says whether path exists and sets a watch on it either way.
func (c Conn) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	type existence struct {
		ok      bool
		stat    *zk.Stat
		changed <-chan zk.Event
	}
	e, err := Do(ctx, func() (existence, error) {
		ok, stat, changed, err := c.Conn.ExistsW(path)
		return existence{ok, stat, changed}, err
	})
	return e.ok, e.stat, e.changed, err
}

// Get reads path's data.
func (c Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	type read struct {
		data []byte
		stat *zk.Stat
	}
	r, err := Do(ctx, func() (read, error) {
		data, stat, err := c.Conn.Get(path)
		return read{data, stat}, err
	})
	return r.data, r.stat, err
}
