package zkcall

import (
	"context"

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
	l, err := Retry(ctx, c.Conn, c.Session, func() (listing, error) {
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
	l, err := Retry(ctx, c.Conn, c.Session, func() (listing, error) {
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
	e, err := Retry(ctx, c.Conn, c.Session, func() (existence, error) {
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
	r, err := Retry(ctx, c.Conn, c.Session, func() (read, error) {
		data, stat, err := c.Conn.Get(path)
		return read{data, stat}, err
	})
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
	r, err := Retry(ctx, c.Conn, c.Session, func() (read, error) {
		data, stat, changed, err := c.Conn.GetW(path)
		return read{data, stat, changed}, err
	})
	return r.data, r.stat, r.changed, err
}

// Create creates path. It is sent even if ctx has already ended (Send): if
// ctx ends before the reply, Create returns ctx.Err(), and late, if not
// nil, receives the reply once it comes — the place to delete a node that
// was created after all.
func (c Conn) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, late func(string, error)) (string, error) {
	return Send(ctx, func() (string, error) { return c.Conn.Create(path, data, flags, acl) }, late)
}

// CreateContainer creates path as a container node, which the server
// deletes once its last child is gone. A container abandoned when ctx ends
// is harmless: empty, the server reaps it.
func (c Conn) CreateContainer(ctx context.Context, path string, data []byte, acl []zk.ACL) error {
	_, err := Do(ctx, func() (string, error) { return c.Conn.CreateContainer(path, data, zk.FlagContainer, acl) })
	return err
}

// Delete deletes path if its version is version (-1: any).
func (c Conn) Delete(ctx context.Context, path string, version int32) error {
	_, err := Do(ctx, func() (struct{}, error) { return struct{}{}, c.Conn.Delete(path, version) })
	return err
}
