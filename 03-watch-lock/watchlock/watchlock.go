// Package watchlock is chapter 02's lock without the busy loop: every
// client still tries to create the same ephemeral znode, the lock path
// itself, but a client that finds it taken does not sleep and retry. It
// sets an exists-watch on the node and blocks until ZooKeeper says the node
// was deleted, then tries again.
//
// A waiter now sends a handful of requests however long the lock is held.
// The flaw this chapter measures is the herd effect: every waiter watches
// the same node, so one release wakes them all, and they all rush to
// create the node when only one of them can win. Chapter 04 gives each
// waiter its own node to watch.
package watchlock

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// Chapter 02's errors: this lock is chapter 02's, and a caller can test
// errors.Is(err, naivelock.ErrLocked) or watchlock.ErrLocked alike.
var (
	// ErrNotHeld is returned by Unlock when this Lock does not hold the lock.
	ErrNotHeld = naivelock.ErrNotHeld
	// ErrLocked is returned by TryLock when someone else holds the lock.
	ErrLocked = naivelock.ErrLocked
	// ErrAlreadyHeld is returned by Lock and TryLock on a Lock that already
	// holds the lock: it is not reentrant (chapter 06 is).
	ErrAlreadyHeld = naivelock.ErrAlreadyHeld
	// ErrNilConn is returned by New for a nil connection.
	ErrNilConn = naivelock.ErrNilConn
)

// Lock is chapter 02's lock with a different wait. TryLock (steps 1–2:
// create the ephemeral lock node with a random token) and Unlock (step 6:
// compare the token, delete that version) are chapter 02's, promoted from
// the embedded *naivelock.Lock; Lock, in lock.go, is this chapter's lesson.
// Each contender makes its own Lock (one goroutine at a time uses it),
// usually each with its own ZooKeeper session.
type Lock struct {
	*chapter02
	conn *zk.Conn
	path string
	obs  event.Observer
}

// chapter02 names the embedded lock (a field named Lock would clash with
// the method).
type chapter02 = naivelock.Lock

// New returns a lock on path. Nothing is sent to ZooKeeper until Lock.
func New(conn *zk.Conn, path string, opts ...Option) (*Lock, error) {
	l := &Lock{conn: conn, path: path}
	for _, o := range opts {
		o(l)
	}
	// Chapter 02's lock checks conn and path, with its defaults: an
	// ephemeral node. Its retry interval is never used: Lock below waits on
	// a watch instead of sleeping.
	inner, err := naivelock.New(conn, path, naivelock.WithObserver(l.obs))
	if err != nil {
		return nil, err
	}
	l.chapter02 = inner
	return l, nil
}

// existsW asks whether the lock node exists and sets a watch on it, in one
// request (conn.ExistsW), and reports the request and the watch to the
// observer. It gives up when ctx ends: a watch the request still sets is
// harmless (see Lock).
func (l *Lock) existsW(ctx context.Context) (bool, <-chan zk.Event, error) {
	type result struct {
		exists bool
		watch  <-chan zk.Event
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "exists", Node: l.path})
	// go-zookeeper's calls take no context: zkcall.Do runs the request in
	// a goroutine and stops waiting for it when ctx ends.
	r, err := zkcall.Do(ctx, func() (result, error) {
		exists, _, watch, err := l.conn.ExistsW(l.path)
		return result{exists, watch}, err
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return false, nil, err
		}
		return false, nil, fmt.Errorf("watchlock: watch lock node %s: %w", l.path, err)
	}
	if r.exists {
		l.obs.Emit(event.Event{Lock: l.path, Kind: event.WatchSet, Op: "exists", Node: l.path})
	}
	return r.exists, r.watch, nil
}

// waiting and notified report those moments to the observer.
func (l *Lock) waiting() { l.obs.Emit(event.Event{Lock: l.path, Kind: event.Waiting, Node: l.path}) }
func (l *Lock) notified(ev zk.Event) {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Notified, Node: l.path, Detail: ev.Type.String()})
}
