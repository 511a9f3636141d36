// Package naivelock is the first ZooKeeper lock anyone writes, the articles'
// "While version": every client tries to create the same znode, the lock
// path itself. ZooKeeper lets exactly one create succeed, so whoever
// created it holds the lock. Everybody else gets "node exists", sleeps a
// little, and tries again — for ever, in a for loop.
//
// It is correct (two clients never hold it at once) and it teaches the one
// thing every later chapter relies on: a create is atomic. But it has two
// flaws this chapter measures:
//
//   - With a persistent node (Persistent()), a holder that crashes never
//     deletes the node, so the lock stays taken for ever.
//   - Waiters poll. Every waiter sends a create every retry interval while
//     the lock is held, so the requests per acquisition grow with the number
//     of contenders and with the retry rate.
//
// Chapter 03 replaces the polling with a watch.
package naivelock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

var (
	// ErrNotLocked is returned by Unlock when this Lock does not hold the lock.
	ErrNotLocked = errors.New("naivelock: not locked")
	// ErrLocked is returned by TryLock when someone else holds the lock.
	ErrLocked = errors.New("naivelock: locked by someone else")
	// ErrAlreadyHeld is returned by Lock and TryLock on a Lock that already
	// holds the lock: it is not reentrant (chapter 06 is), and waiting for
	// ourselves would wait for ever.
	ErrAlreadyHeld = errors.New("naivelock: already held by this Lock")
	// ErrNilConn is returned by New for a nil connection.
	ErrNilConn = errors.New("naivelock: nil *zk.Conn")
)

// Lock is a lock on one znode path. Each contender makes its own Lock (one
// goroutine at a time uses it), usually each with its own ZooKeeper session.
type Lock struct {
	conn  *zk.Conn
	path  string
	flags int32         // zk.FlagEphemeral, or zk.FlagPersistent with Persistent()
	retry time.Duration // how long a waiter sleeps between two creates
	obs   event.Observer

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
		return nil, fmt.Errorf("naivelock: %w", err)
	}
	l := &Lock{conn: conn, path: path, flags: zk.FlagEphemeral, retry: DefaultRetryInterval}
	for _, o := range opts {
		o(l)
	}
	return l, nil
}

// Lock blocks until this Lock holds the lock or ctx ends.
//
// This is the whole algorithm:
//
//  1. create the lock node;
//  2. if that worked, we hold the lock;
//  3. if the node already exists, somebody else holds it: sleep, go to 1.
func (l *Lock) Lock(ctx context.Context) error {
	waiting := false
	for {
		err := l.TryLock(ctx)
		if !errors.Is(err, ErrLocked) {
			return err // acquired (nil), or a real error
		}
		if !waiting {
			// Say it once per Lock; the requests that follow tell the rest.
			l.obs.Emit(event.Event{Lock: l.path, Kind: event.Waiting, Node: l.path})
			waiting = true
		}
		// The "while" of the While version. We have no idea when the
		// holder will let go, so we guess: too short and we flood
		// ZooKeeper with creates that fail, too long and the lock sits
		// free while we sleep.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(l.retry):
		}
	}
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
		return fmt.Errorf("naivelock: create lock node %s: %w", l.path, zksession.Explain(l.conn, err))
	}
}

// create sends one create of the lock node with our token as its data.
//
// go-zookeeper's calls take no context, so the create runs in a goroutine
// and we stop waiting for it when ctx ends. But the create is already on its
// way: if it still succeeds, nobody would ever delete that node — with a
// persistent node the lock would be stuck for ever. So whoever stops waiting
// leaves a goroutine behind that deletes the node if it turns out ours.
func (l *Lock) create(ctx context.Context, token string) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: l.path})
	done := make(chan error, 1)
	go func() {
		_, err := l.conn.Create(l.path, []byte(token), l.flags, zksession.ACL(l.conn))
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

// Unlock deletes the lock node, but only if it is still ours: it reads the
// node, compares the data with our token, and deletes that exact version of
// the node. Anything else — we never locked, we already unlocked, our
// ephemeral node went with our session — is ErrNotLocked.
func (l *Lock) Unlock(ctx context.Context) error {
	if l.token == "" {
		return ErrNotLocked
	}
	token := l.token
	// We forget the lock whatever happens next: if the delete fails, the
	// node is not ours any more or our session is in trouble, and calling
	// Unlock again would not help.
	l.token = ""
	done := make(chan error, 1)
	go func() { done <- l.deleteIfOurs(token) }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return fmt.Errorf("naivelock: unlock %s: %w", l.path, ctx.Err())
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Released, Node: l.path})
	return nil
}

// deleteIfOurs is the compare-and-delete: get the node, check the token,
// delete with the version we read. If somebody changed or recreated the
// node in between, the version no longer matches and the delete fails
// instead of removing their lock.
func (l *Lock) deleteIfOurs(token string) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "get", Node: l.path})
	data, stat, err := l.conn.Get(l.path)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return ErrNotLocked
	case err != nil:
		return fmt.Errorf("naivelock: read lock node %s: %w", l.path, err)
	case string(data) != token:
		return ErrNotLocked
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "delete", Node: l.path})
	err = l.conn.Delete(l.path, stat.Version)
	switch {
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
		return ErrNotLocked
	case err != nil:
		return fmt.Errorf("naivelock: delete lock node %s: %w", l.path, err)
	}
	return nil
}

// createParents makes the lock path's missing ancestors, as persistent
// nodes (they are shared by every contender and stay after us).
func (l *Lock) createParents() error {
	var missing []string
	for p := path.Dir(l.path); p != "/"; p = path.Dir(p) {
		missing = append([]string{p}, missing...)
	}
	for _, p := range missing {
		l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: p})
		_, err := l.conn.Create(p, nil, zk.FlagPersistent, zksession.ACL(l.conn))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("naivelock: create parent %s: %w", p, zksession.Explain(l.conn, err))
		}
	}
	return nil
}

func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
