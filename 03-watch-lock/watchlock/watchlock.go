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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

var (
	// ErrNotHeld is returned by Unlock when this Lock does not hold the lock.
	ErrNotHeld = errors.New("watchlock: not held")
	// ErrLocked is returned by TryLock when someone else holds the lock.
	ErrLocked = errors.New("watchlock: locked by someone else")
	// ErrAlreadyHeld is returned by Lock and TryLock on a Lock that already
	// holds the lock: it is not reentrant (chapter 06 is), and waiting for
	// ourselves would wait for ever.
	ErrAlreadyHeld = errors.New("watchlock: already held by this Lock")
	// ErrNilConn is returned by New for a nil connection.
	ErrNilConn = errors.New("watchlock: nil *zk.Conn")
)

// Lock is a lock on one znode path. Each contender makes its own Lock (one
// goroutine at a time uses it), usually each with its own ZooKeeper session.
type Lock struct {
	conn *zk.Conn
	path string
	obs  event.Observer

	// token is what we wrote into the lock node: it proves the node is ours
	// when we unlock. Empty when we do not hold the lock.
	token string
}

// New returns a lock on path. Nothing is sent to ZooKeeper until Lock.
func New(conn *zk.Conn, path string, opts ...Option) (*Lock, error) {
	if conn == nil {
		return nil, ErrNilConn
	}
	if err := zkpath.Validate(path); err != nil {
		return nil, fmt.Errorf("watchlock: %w", err)
	}
	l := &Lock{conn: conn, path: path}
	for _, o := range opts {
		o(l)
	}
	return l, nil
}

// TryLock makes one attempt: it creates the lock node and returns nil if
// that worked, or ErrLocked if somebody else holds the lock.
func (l *Lock) TryLock(ctx context.Context) error {
	if l.token != "" {
		return ErrAlreadyHeld
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// A fresh random token per attempt: it goes into the node as its data,
	// so Unlock can tell our node from one somebody else created later.
	token := newToken()
	err := l.create(ctx, token)
	if errors.Is(err, zk.ErrNoNode) {
		// The parent of the lock path is missing: make it, then try again.
		if err = l.createParents(); err == nil {
			err = l.create(ctx, token)
		}
	}
	switch {
	case err == nil:
		l.token = token
		l.obs.Emit(event.Event{Lock: l.path, Kind: event.Acquired, Node: l.path})
		return nil
	case errors.Is(err, zk.ErrNodeExists):
		return ErrLocked
	case ctx.Err() != nil:
		return err
	default:
		return fmt.Errorf("watchlock: create lock node %s: %w", l.path, zksession.Explain(l.conn, err))
	}
}

// create sends one create of the ephemeral lock node with our token as its
// data. go-zookeeper's calls take no context, so the create runs in a
// goroutine and we stop waiting when ctx ends; if the create still
// succeeds after that, the goroutine deletes the node again, so a Lock we
// gave up on never holds the lock behind our back.
func (l *Lock) create(ctx context.Context, token string) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: l.path})
	done := make(chan error, 1)
	go func() {
		_, err := l.conn.Create(l.path, []byte(token), zk.FlagEphemeral, zksession.ACL(l.conn))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		go func() {
			if err := <-done; err == nil {
				l.deleteIfOurs(token)
			}
		}()
		return ctx.Err()
	}
}

// existsW asks whether the lock node exists and sets a watch on it, in one
// request (conn.ExistsW), and reports the request and the watch to the
// observer. It gives up when ctx ends: a watch the request still sets is
// harmless (see Lock).
func (l *Lock) existsW(ctx context.Context) (bool, <-chan zk.Event, error) {
	type result struct {
		exists bool
		watch  <-chan zk.Event
		err    error
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "exists", Node: l.path})
	done := make(chan result, 1)
	go func() {
		exists, _, watch, err := l.conn.ExistsW(l.path)
		done <- result{exists, watch, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return false, nil, fmt.Errorf("watchlock: watch lock node %s: %w", l.path, r.err)
		}
		if r.exists {
			l.obs.Emit(event.Event{Lock: l.path, Kind: event.WatchSet, Op: "exists", Node: l.path})
		}
		return r.exists, r.watch, nil
	case <-ctx.Done():
		return false, nil, ctx.Err()
	}
}

// Unlock deletes the lock node, but only if it is still ours (same token,
// same version). Deleting it is what fires every waiter's watch.
func (l *Lock) Unlock(ctx context.Context) error {
	if l.token == "" {
		return ErrNotHeld
	}
	token := l.token
	l.token = "" // forget it whatever happens: retrying would not help
	done := make(chan error, 1)
	go func() { done <- l.deleteIfOurs(token) }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return fmt.Errorf("watchlock: unlock %s: %w", l.path, ctx.Err())
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Released, Node: l.path})
	return nil
}

// deleteIfOurs is the compare-and-delete of chapter 02: get the node, check
// the token, delete exactly the version we read.
func (l *Lock) deleteIfOurs(token string) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "get", Node: l.path})
	data, stat, err := l.conn.Get(l.path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return ErrNotHeld
	case err != nil:
		return fmt.Errorf("watchlock: read lock node %s: %w", l.path, err)
	case string(data) != token:
		return ErrNotHeld
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "delete", Node: l.path})
	err = l.conn.Delete(l.path, stat.Version)
	switch {
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
		return ErrNotHeld
	case err != nil:
		return fmt.Errorf("watchlock: delete lock node %s: %w", l.path, err)
	}
	return nil
}

// waiting and notified report those moments to the observer.
func (l *Lock) waiting() { l.obs.Emit(event.Event{Lock: l.path, Kind: event.Waiting, Node: l.path}) }
func (l *Lock) notified(ev zk.Event) {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Notified, Node: l.path, Detail: ev.Type.String()})
}

// createParents makes the lock path's missing ancestors, as persistent nodes.
func (l *Lock) createParents() error {
	var missing []string
	for p := path.Dir(l.path); p != "/"; p = path.Dir(p) {
		missing = append([]string{p}, missing...)
	}
	for _, p := range missing {
		l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: p})
		_, err := l.conn.Create(p, nil, zk.FlagPersistent, zksession.ACL(l.conn))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("watchlock: create parent %s: %w", p, zksession.Explain(l.conn, err))
		}
	}
	return nil
}

func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
