// Package watch keeps watching one znode, which ZooKeeper itself never does.
//
// Every lock in this course waits with a watch, so the rules of watches come
// first:
//
//  1. A watch fires once. After it has delivered its event it is gone; a
//     second change is only seen by a client that set the watch again.
//  2. The event carries no data: only the path, the event type
//     (EventNodeCreated, EventNodeDataChanged, EventNodeChildrenChanged,
//     EventNodeDeleted) and the session state. To learn the new value the
//     client reads the node again — and sets the next watch with that read.
//  3. So a watcher sees the value of the node when it reads it, not every
//     value it ever had: changes made between the event and the re-read are
//     folded into one. A watcher can skip values; it never sees them out of
//     order.
//  4. When the session expires, every watch of the client fires with
//     EventNotWatching and is gone; the connection opens a new session and
//     the client must set its watches again.
//
// Loop is the "helper that loops" of the lesson: it re-reads and re-watches
// after every event so its caller sees one Value per read.
package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// ErrNilConn is returned by Loop when it is given no connection.
var ErrNilConn = errors.New("watch: nil *zk.Conn")

// ErrNilFunc is returned by Loop when it is given no function to call.
var ErrNilFunc = errors.New("watch: nil func")

// Value is what one read of the watched node found.
type Value struct {
	Path    string
	Exists  bool   // false: the node is not there (yet, or any more)
	Data    []byte // nil when !Exists
	Version int32  // Stat.Version: how many times it was Set (the CAS version)
	Zxid    int64  // Stat.Mzxid: the transaction that wrote this value
}

func (v Value) String() string {
	if !v.Exists {
		return "(no node)"
	}
	return fmt.Sprintf("%q (version %d)", v.Data, v.Version)
}

// Option configures Loop.
type Option func(*options)

type options struct {
	obs event.Observer
}

// WithObserver makes Loop emit an event for every request it sends, every
// watch it sets and every notification it receives.
func WithObserver(o event.Observer) Option {
	return func(opts *options) { opts.obs = o }
}

// maxRetries is how many requests in a row may fail because the connection
// is between sessions or servers before Loop gives up and returns the error.
const maxRetries = 5

// retryPause is how long Loop waits before it retries such a request.
const retryPause = 200 * time.Millisecond

// Loop reads path, calls fn with what it found, waits for the node to
// change, and starts over, until ctx is done (it returns ctx.Err()), fn
// returns an error (Loop returns it), or ZooKeeper stays unreachable or the
// connection is closed (Loop returns that error).
//
// fn is called from Loop's goroutine, one Value at a time. While fn runs,
// the watch set by the read can fire at most once: however many writes
// happen meanwhile, the next read sees only the last one. That is rule 3 of
// the package comment, and no helper can undo it.
//
// When the session expires, the watch fires with EventNotWatching; Loop
// reads again on the connection's new session and calls fn with what it
// finds, changed or not (rule 4).
func Loop(ctx context.Context, conn *zk.Conn, path string, fn func(Value) error, opts ...Option) error {
	if conn == nil {
		return ErrNilConn
	}
	if fn == nil {
		return ErrNilFunc
	}
	if err := zkpath.Validate(path); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	obs := o.obs
	emit := func(kind event.Kind, op event.Op, detail string) {
		obs.Emit(event.Event{Lock: path, Kind: kind, Op: op, Node: path, Detail: detail})
	}

	failures := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}

		// Read and watch in one request: GetW returns the data and leaves a
		// watch that fires on the next change after this read, so no change
		// can slip between the read and the watch.
		emit(event.Request, "get", "")
		data, stat, changed, err := conn.GetW(path)
		v := Value{Path: path}
		if errors.Is(err, zk.ErrNoNode) {
			// GetW sets no watch on a missing node. ExistsW does: it
			// fires when the node is created.
			emit(event.Request, "exists", "")
			var exists bool
			exists, _, changed, err = conn.ExistsW(path)
			if err == nil && exists {
				// Created between our two requests: read it properly. The
				// watch ExistsW just left fires once, later, unread.
				continue
			}
			if err == nil {
				emit(event.WatchSet, "exists", "")
			}
		} else if err == nil {
			emit(event.WatchSet, "get", "")
			v = Value{Path: path, Exists: true, Data: data, Version: stat.Version, Zxid: stat.Mzxid}
		}
		if err != nil {
			if !transient(err) || failures >= maxRetries {
				return fmt.Errorf("watch %s: read: %w", path, err)
			}
			failures++
			if err := pause(ctx); err != nil {
				return err
			}
			continue
		}
		failures = 0

		if err := fn(v); err != nil {
			return err
		}

		// Wait for the one event this watch will ever deliver.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-changed:
			emit(event.Notified, "", ev.Type.String())
			if ev.Type == zk.EventNotWatching {
				// The session expired (the connection is opening a new one:
				// read again, which sets a new watch) or the connection was
				// closed (nothing more will ever come).
				if errors.Is(ev.Err, zk.ErrClosing) || errors.Is(ev.Err, zk.ErrConnectionClosed) {
					return fmt.Errorf("watch %s: %w", path, ev.Err)
				}
			}
		}
	}
}

// transient says whether a request failed only because the connection was
// between servers or sessions; the same request can succeed a moment later.
func transient(err error) bool {
	return errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) ||
		errors.Is(err, zk.ErrSessionExpired)
}

func pause(ctx context.Context) error {
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
