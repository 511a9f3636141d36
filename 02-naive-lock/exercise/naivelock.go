// Package naivelock is YOUR version of chapter 02's lock: the workshop
// skeleton of 02-naive-lock/naivelock, with the same API. The plumbing is
// written (errors, options, New, a create that honours ctx, the parents of
// the lock path, the Unlock bookkeeping); the steps of the lesson are
// yours. Each one panics with "TODO(workshop): …" until you write it.
//
// Read ../README.md ("The algorithm", steps 1–4), then fill in, in order:
//
//	attempt        steps 1–2: create the lock node; success means you hold it
//	Lock           step 3:    on NodeExists sleep and try again
//	deleteIfOurs   step 4:    unlock = read the node, compare the token, delete that version
//
// Everything that is not a TODO is a copy of the reference package, on
// purpose: the skeleton must build on its own (the visualizer runs it with
// -impl exercise), and "make exercise" swaps it in for the reference with
// go test -overlay, so the chapter's own tests are the only tests.
//
// Run the chapter's tests against this package with
//
//	make exercise CH=02            (or: scripts/exercise 02)
//
// and against the reference with SOLUTION=1. The package is called
// naivelock, like the reference, so that the reference's tests compile
// against it unchanged.
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
)

var (
	// ErrNotLocked is returned by Unlock when this Lock does not hold the lock.
	ErrNotLocked = errors.New("naivelock: not locked")
	// ErrLocked is returned by TryLock when someone else holds the lock.
	ErrLocked = errors.New("naivelock: locked by someone else")
	// ErrAlreadyHeld is returned by Lock and TryLock on a Lock that already
	// holds the lock: it is not reentrant, and waiting for ourselves would
	// wait for ever.
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

// TryLock makes one attempt: nil if this Lock now holds the lock, ErrLocked
// if somebody else does. The guards are written; the attempt is yours.
func (l *Lock) TryLock(ctx context.Context) error {
	if l.token != "" {
		return ErrAlreadyHeld
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.attempt(ctx)
}

// attempt is steps 1 and 2 of the README.
//
//  1. Make a fresh token (newToken) and create the lock node with it as its
//     data: l.create(ctx, token) sends the create (with l.flags) and
//     honours ctx for you.
//  2. If that worked, you hold the lock: remember the token in l.token and
//     emit event.Acquired (l.acquired()).
//
// Other answers: zk.ErrNodeExists means somebody else holds it → return
// ErrLocked. zk.ErrNoNode means the parent of the lock path is missing →
// l.createParents(), then create once more. If ctx has ended, return the
// error as it is; wrap anything else with %w, saying what you were doing.
func (l *Lock) attempt(ctx context.Context) error {
	panic("TODO(workshop): create the lock node with a fresh token as its data (l.create); success = you hold it, NodeExists = ErrLocked — steps 1-2 of 02-naive-lock/README.md")
}

// Lock blocks until this Lock holds the lock or ctx ends. Step 3 of the
// README, the "While version":
//
//	for {
//		try once (l.TryLock); anything but ErrLocked is the answer;
//		the first time you find it taken, emit event.Waiting (l.waiting());
//		sleep l.retry — but return ctx.Err() as soon as ctx ends.
//	}
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): loop: TryLock; on ErrLocked say you wait (once), sleep l.retry or return when ctx ends, try again — step 3 of 02-naive-lock/README.md (write attempt, steps 1-2, too)")
}

// Unlock deletes the lock node, but only if it is still ours. The
// bookkeeping is written; the compare-and-delete is deleteIfOurs.
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

// deleteIfOurs is step 4 of the README, the compare-and-delete:
//
//   - read the lock node (l.get()): its data and its Stat;
//   - if it is gone (zk.ErrNoNode) or its data is not token → ErrNotLocked:
//     it is not ours, and somebody else's lock must stay as it is;
//   - delete exactly the version you read (l.delete(stat.Version)); if
//     that fails with zk.ErrNoNode or zk.ErrBadVersion, somebody changed
//     it in between → ErrNotLocked.
//
// Wrap any other error with %w.
func (l *Lock) deleteIfOurs(token string) error {
	panic("TODO(workshop): get the lock node, compare its data with our token, delete exactly that version (else ErrNotLocked) — step 4 of 02-naive-lock/README.md")
}

// ---------------------------------------------------------------------------
// Plumbing: you call these, you do not need to change them.

// create sends one create of the lock node with token as its data (flags
// l.flags). go-zookeeper's calls take no context, so the create runs in a
// goroutine and we stop waiting for it when ctx ends. The create is
// already on its way then: if it still succeeds, the goroutine left behind
// deletes the node, so a Lock we gave up on never holds the lock.
func (l *Lock) create(ctx context.Context, token string) error {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Request, Op: "create", Node: l.path})
	done := make(chan error, 1)
	go func() {
		_, err := l.conn.Create(l.path, []byte(token), l.flags, zk.WorldACL(zk.PermAll))
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

// get reads the lock node (and says so to the observer).
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
func (l *Lock) acquired() {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Acquired, Node: l.path})
}

func (l *Lock) waiting() {
	l.obs.Emit(event.Event{Lock: l.path, Kind: event.Waiting, Node: l.path})
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
		_, err := l.conn.Create(p, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("naivelock: create parent %s: %w", p, err)
		}
	}
	return nil
}

// newToken returns a fresh random token (32 hex digits).
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
