// Package rwlock is YOUR version of chapter 05's lock: the workshop skeleton
// of 05-rwlock/rwlock, with the same API. The plumbing (the two sides, their
// bookkeeping, upgrade and downgrade refusals, the protected create that
// never orphans its node, the lost-lock watch) is written; the recipe's
// steps are yours. Each one panics with "TODO(workshop): …" until you write
// it, in the order of 05-rwlock/README.md, "The algorithm":
//
//	createSequential  (node.go)    step 1: create "…__READ__" or "…__WRIT__", ephemeral + sequential
//	queueOf           (names.go)   step 2: order the directory by sequence number
//	mustWaitFor       (rwlock.go)  steps 3–4: the writer's rule and the reader's rule
//	waitFor           (rwlock.go)  step 5: watch exactly that node, then look again
//	deleteNode        (rwlock.go)  step 5: to unlock, delete your node
//
// Everything that is not a TODO is a copy of the reference package, on
// purpose: the skeleton must build on its own (the visualizer runs it with
// -impl exercise), and "make exercise" swaps it in for the reference with
// go test -overlay, so the chapter's own tests are the only tests.
//
// Run the chapter's tests against this package with
//
//	make exercise CH=05            (or: scripts/exercise 05)
//
// and against the reference with SOLUTION=1.
//
// What follows is the reference's package comment.
//
// Package rwlock is chapter 05: a read-write lock on ZooKeeper. Many readers
// may hold it at once; a writer holds it alone; everyone is served in the
// order they asked, so a stream of readers cannot starve a writer.
//
// It is the sequential lock of chapter 04 with one change: each node says
// whether it reads or writes, and the rule "am I first?" becomes "is there a
// writer before me?" for readers. The node names are Curator's, so a Java
// InterProcessReadWriteLock on the same path takes part in the same queue.
//
//	m, err := rwlock.New(conn, "/locks/orders")
//	err = m.Read().Lock(ctx)   // shared
//	err = m.Write().Lock(ctx)  // exclusive
package rwlock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// RWMutex is one client's handle on a read-write lock directory. Its two
// sides, Read and Write, are locked and unlocked separately.
type RWMutex struct {
	conn        *zk.Conn
	dir         string
	opts        options
	mu          sync.Mutex // guards both sides' state: upgrade and downgrade look across
	read, write *Side
}

// Side is the read or the write half of an RWMutex.
type Side struct {
	m      *RWMutex
	marker string        // readMarker or writeMarker
	node   string        // our lock node while we hold it
	busy   bool          // a Lock is under way
	lost   chan struct{} // closed when the hold is lost
	stop   chan struct{} // closed by Unlock: the hold ends on purpose
}

// New returns a read-write lock on the directory dir, created on first use.
func New(conn *zk.Conn, dir string, opts ...Option) (*RWMutex, error) {
	if conn == nil {
		return nil, errors.New("rwlock: nil *zk.Conn")
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("rwlock: %w", err)
	}
	m := &RWMutex{conn: conn, dir: dir}
	for _, o := range opts {
		o(&m.opts)
	}
	m.read = &Side{m: m, marker: readMarker, lost: make(chan struct{})}
	m.write = &Side{m: m, marker: writeMarker, lost: make(chan struct{})}
	return m, nil
}

// Read is the shared side. Write is the exclusive side.
func (m *RWMutex) Read() *Side  { return m.read }
func (m *RWMutex) Write() *Side { return m.write }

// Lock waits until this side holds the lock, or ctx ends. A Lock that gives
// up removes its node before returning, so it never blocks anyone later.
func (s *Side) Lock(ctx context.Context) error { return s.lock(ctx, true) }

// TryLock takes the lock if it can be had now, else returns ErrLocked.
func (s *Side) TryLock(ctx context.Context) error { return s.lock(ctx, false) }

func (s *Side) lock(ctx context.Context, wait bool) error {
	m := s.m
	m.mu.Lock()
	switch {
	case s.node != "" || s.busy:
		m.mu.Unlock()
		return ErrHeld
	case s == m.write && m.read.node != "":
		// A writer must wait for every reader before it, ours included:
		// our own read lock would never be released. Curator waits for
		// ever here; we say no at once.
		m.mu.Unlock()
		return ErrUpgrade
	}
	s.busy = true
	m.mu.Unlock()

	node, err := s.acquire(ctx, wait)
	if err == nil {
		err = s.hold(node)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s.busy = false
	if err != nil {
		return err
	}
	s.node = node
	s.emit(event.Event{Kind: event.Acquired, Node: node, Token: tokenOf(node)})
	return nil
}

// acquire is the recipe from the ZooKeeper docs:
//
//  1. create an EPHEMERAL_SEQUENTIAL node "…__READ__" or "…__WRIT__";
//  2. list the directory;
//  3. if nothing we must wait for comes before our node, we hold the lock;
//  4. else watch exactly the one node we wait for, and go back to 2 when it changes.
func (s *Side) acquire(ctx context.Context, wait bool) (string, error) {
	node, err := s.create(ctx)
	if err != nil {
		return "", err
	}
	for {
		blocker, err := s.blocker(node)
		switch {
		case err != nil:
			return "", s.abandon(node, err)
		case blocker == "":
			return node, nil
		case !wait:
			return "", s.abandon(node, ErrLocked)
		}
		if err := s.waitFor(ctx, blocker); err != nil {
			return "", s.abandon(node, err)
		}
	}
}

// waitFor is step 5 of 05-rwlock/README.md: watch exactly blocker, the one
// node we must wait for, and return nil when it is gone — acquire then
// lists the queue again (step 2).
//
//   - Set the watch and learn whether blocker still exists in one request:
//     s.getW(blocker). Already gone? Return nil at once.
//   - Say you wait: s.emit(event.Event{Kind: event.Waiting, Node: blocker}).
//   - Block until the watch fires or ctx ends (return ctx.Err()). When it
//     fires, report it: s.emit(event.Event{Kind: event.Notified, Node:
//     blocker, Detail: ev.Type.String()}). An EventNotWatching means the
//     session expired (our node with it) or the conn closed: return an
//     error wrapping ev.Err.
//
// acquire deletes our node whenever waitFor returns an error.
func (s *Side) waitFor(ctx context.Context, blocker string) error {
	panic("TODO(workshop): watch exactly the blocker (s.getW), return nil if it is gone, else wait until the watch fires or ctx ends — step 5 of 05-rwlock/README.md")
}

// blocker lists the queue and returns the node we must wait for, or "" if
// we may hold the lock now. Here is the whole difference between the sides:
//
//   - a writer waits until it is first; it watches only the node just
//     before it (as in chapter 04), whatever that node is;
//   - a reader waits only for writers; it watches only the last writer
//     before it. Readers before it don't matter: they share with it.
//
// When a writer leaves, the readers behind it wake; when a reader leaves,
// only a writer right behind it wakes. Nobody else is disturbed.
func (s *Side) blocker(node string) (string, error) {
	s.emit(event.Event{Kind: event.Request, Op: "children", Node: s.m.dir})
	children, _, err := s.m.conn.Children(s.m.dir)
	if err != nil {
		return "", fmt.Errorf("list %s: %w", s.m.dir, err)
	}
	queue := queueOf(children)
	me := -1
	for i, c := range queue {
		if s.m.dir+"/"+c.name == node {
			me = i
		}
	}
	if me < 0 {
		return "", fmt.Errorf("%w: our node %s is gone", ErrLost, node)
	}
	s.m.mu.Lock()
	ownWrite := s.m.write.node
	s.m.mu.Unlock()
	wait := s.mustWaitFor(queue, me, strings.TrimPrefix(ownWrite, s.m.dir+"/"))
	switch {
	case wait == "":
		return "", nil
	case s.marker == readMarker && ownWrite != "":
		return "", ErrDowngrade // we'd wait for a writer that waits for us
	}
	return s.m.dir + "/" + wait, nil
}

// mustWaitFor is steps 3 and 4 of 05-rwlock/README.md. queue is the lock
// directory in order (your queueOf), queue[me] is our node. Return the name
// of the ONE node this side must wait for (queue[i].name), or "" if it
// holds the lock now:
//
//   - step 3, a writer (s.marker == writeMarker): first in the queue → "";
//     otherwise the node just before ours, whatever it is (as in chapter 04);
//   - step 4, a reader: the LAST writer (c.write) before ours, "" if there
//     is none — readers before us don't matter, we share with them. A writer
//     node named ownWrite is our own write lock (a downgrade): it does not
//     block our reader. ownWrite is "" when we hold no write lock.
//
// Why the last writer before us, and not the node just before us?
func (s *Side) mustWaitFor(queue []contender, me int, ownWrite string) string {
	panic("TODO(workshop): a writer waits for the node just before its own; a reader for the last writer before its own (not ownWrite); empty = you hold it — steps 3-4 of 05-rwlock/README.md")
}

// Unlock releases this side. It returns ErrNotLocked if the side does not
// hold the lock, and ErrLost if the lock had been lost before.
func (s *Side) Unlock(ctx context.Context) error {
	s.m.mu.Lock()
	node, stop, lost := s.node, s.stop, s.lost
	s.node = ""
	s.m.mu.Unlock()
	if node == "" {
		return ErrNotLocked
	}
	close(stop)
	s.emit(event.Event{Kind: event.Request, Op: "delete", Node: node})
	done := make(chan error, 1)
	go func() { done <- s.deleteNode(node) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		return fmt.Errorf("delete %s (it goes when the session ends): %w", node, ctx.Err())
	}
	select {
	case <-lost:
		return fmt.Errorf("%w: %s", ErrLost, node)
	default:
	}
	if errors.Is(err, zk.ErrNoNode) {
		s.emit(event.Event{Kind: event.Lost, Node: node, Detail: "node was gone at Unlock"})
		return fmt.Errorf("%w: %s was already gone", ErrLost, node)
	}
	if err != nil {
		return fmt.Errorf("delete %s (it goes when the session ends): %w", node, err)
	}
	s.emit(event.Event{Kind: event.Released, Node: node})
	return nil
}

// deleteNode is the end of step 5 of 05-rwlock/README.md: to unlock,
// delete your node (any version: -1). Unlock has already told the observer
// (the "delete" request event). Return the error as it is: Unlock tells a
// node that was already gone (zk.ErrNoNode, the lock was lost) from a
// failed delete.
func (s *Side) deleteNode(node string) error {
	panic("TODO(workshop): delete our node (version -1) — step 5 of 05-rwlock/README.md")
}

// getW sets a data watch on node and tells the observer about the request
// and the watch. gone == true: the node no longer exists. Then GetW failed
// with zk.ErrNoNode and the server keeps no watch for us — an ExistsW there
// would leave a watch for the node's creation, which for a sequential node
// never happens (chapter 04's "a predecessor gone before our watch").
func (s *Side) getW(node string) (gone bool, changed <-chan zk.Event, err error) {
	s.emit(event.Event{Kind: event.Request, Op: "get", Node: node})
	_, _, changed, err = s.m.conn.GetW(node)
	if errors.Is(err, zk.ErrNoNode) {
		return true, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("watch %s: %w", node, err)
	}
	s.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: node})
	return false, changed, nil
}

// Token is the sequence number of the node this side holds plus one, 0 if
// none: the first node of a directory has sequence 0, and its holder must
// not look like nobody. For writers it only ever grows (the directory is
// persistent, so its counter never restarts): a fencing token for whatever
// the lock guards.
func (s *Side) Token() int64 {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.node == "" {
		return 0
	}
	return tokenOf(s.node)
}

func (s *Side) emit(e event.Event) {
	e.Lock = s.m.dir
	s.m.opts.observer.Emit(e)
}
