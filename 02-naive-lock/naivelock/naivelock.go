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
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

var (
	// ErrNotHeld is returned by Unlock when this Lock does not hold the lock.
	ErrNotHeld = errors.New("naivelock: not held")
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
	acl   []zk.ACL // WithACL; zk.WorldACL(zk.PermAll) by default

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
	l := &Lock{conn: conn, path: path, flags: zk.FlagEphemeral, retry: DefaultRetryInterval, acl: zk.WorldACL(zk.PermAll)}
	for _, o := range opts {
		o(l)
	}
	return l, nil
}

// TryLock makes one attempt: nil if this Lock now holds the lock, ErrLocked
// if somebody else does. The attempt itself is the lesson (lock.go).
func (l *Lock) TryLock(ctx context.Context) error {
	if l.token != "" {
		return ErrAlreadyHeld
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.attempt(ctx)
}

// create creates the lock node with token as its data (flags l.flags),
// and the lock path's missing parents first if the server says they are
// missing. Its errors are go-zookeeper's (errors.Is(err, zk.ErrNodeExists)
// holds), or ctx's.
func (l *Lock) create(ctx context.Context, token string) error {
	err := l.createNode(ctx, token)
	if errors.Is(err, zk.ErrNoNode) {
		if err = l.createParents(ctx); err == nil {
			err = l.createNode(ctx, token)
		}
	}
	return zksession.Explain(nil, err)
}

// createNode sends one create of the lock node.
//
// go-zookeeper's calls take no context, so zkcall.Send runs the create in a
// goroutine and we stop waiting for it when ctx ends. But the create is
// already on its way: if it still succeeds, nobody would ever delete that
// node — with a persistent node the lock would be stuck for ever. So Send
// hands the late answer to a goroutine that deletes the node if it turns
// out ours.
func (l *Lock) createNode(ctx context.Context, token string) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: l.path})
	_, err := zkcall.Send(ctx,
		func() (string, error) { return l.conn.Create(l.path, []byte(token), l.flags, l.acl) },
		func(_ string, err error) {
			if err == nil {
				l.deleteIfOurs(token)
			}
		})
	return err
}

// Unlock deletes the lock node, but only if it is still ours: it reads the
// node, compares the data with our token, and deletes that exact version of
// the node. Anything else — we never locked, we already unlocked, our
// ephemeral node went with our session — is ErrNotHeld.
func (l *Lock) Unlock(ctx context.Context) error {
	if l.token == "" {
		return ErrNotHeld
	}
	token := l.token
	// We forget the lock whatever happens next: if the delete fails, the
	// node is not ours any more or our session is in trouble, and calling
	// Unlock again would not help.
	l.token = ""
	// The delete goes out even when ctx has already ended (zkcall.Send,
	// unlike zkcall.Do): we have just forgotten the token, so no later
	// Unlock would send it. We stop waiting for it when ctx ends.
	_, err := zkcall.Send(ctx, func() (struct{}, error) { return struct{}{}, l.deleteIfOurs(token) }, nil)
	if ctxErr := ctx.Err(); err != nil && ctxErr != nil && errors.Is(err, ctxErr) {
		return fmt.Errorf("naivelock: unlock %s: %w", l.path, err)
	}
	if err != nil {
		return err
	}
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Released, Node: l.path})
	return nil
}

// get reads the lock node: its data and its Stat.
func (l *Lock) get() ([]byte, *zk.Stat, error) {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "get", Node: l.path})
	return l.conn.Get(l.path)
}

// delete deletes the lock node if its version is still version.
func (l *Lock) delete(version int32) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "delete", Node: l.path})
	return l.conn.Delete(l.path, version)
}

// acquired and waiting report those moments to the observer.
func (l *Lock) acquired() { l.obs.Emit(event.Event{Lock: l.path, Kind: event.Acquired, Node: l.path}) }
func (l *Lock) waiting()  { l.obs.Emit(event.Event{Lock: l.path, Kind: event.Waiting, Node: l.path}) }

// createParents makes the lock path's missing ancestors, as persistent
// nodes (they are shared by every contender and stay after us), reporting
// each create to the observer.
func (l *Lock) createParents(ctx context.Context) error {
	err := znode.CreateParents(ctx, l.conn, l.path, l.acl, func(p string) {
		l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: p})
	})
	if err != nil {
		return fmt.Errorf("naivelock: %w", err) // "create parent /a: …"; create explains a NoAuth
	}
	return nil
}

// newToken is 32 random hex digits (16 random bytes): in practice no other
// client ever writes the same into the lock node.
func newToken() string { return randhex.String(16) }
