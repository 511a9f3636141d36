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
		// As in chapter 04 the watch is a data watch (GetW), not ExistsW:
		// if the blocker left between our listing and now, GetW fails with
		// ErrNoNode and leaves nothing on the server, whereas ExistsW would
		// leave a creation watch on a name that never comes back.
		s.emit(event.Event{Kind: event.Request, Op: "get", Node: blocker})
		_, _, changed, err := s.m.conn.GetW(blocker)
		if errors.Is(err, zk.ErrNoNode) {
			continue // it left between our listing and our watch: look again
		}
		if err != nil {
			return "", s.abandon(node, fmt.Errorf("watch %s: %w", blocker, err))
		}
		s.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: blocker})
		s.emit(event.Event{Kind: event.Waiting, Node: blocker})
		select {
		case ev := <-changed:
			s.emit(event.Event{Kind: event.Notified, Node: blocker, Detail: ev.Type.String()})
			if ev.Type == zk.EventNotWatching {
				// The session expired (our node with it) or the conn closed.
				return "", s.abandon(node, fmt.Errorf("wait for %s: %w", blocker, ev.Err))
			}
		case <-ctx.Done():
			return "", s.abandon(node, ctx.Err())
		}
	}
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
	switch {
	case me < 0:
		return "", fmt.Errorf("%w: our node %s is gone", ErrLost, node)
	case s.marker == writeMarker && me == 0:
		return "", nil
	case s.marker == writeMarker:
		return s.m.dir + "/" + queue[me-1].name, nil
	}
	s.m.mu.Lock()
	ownWrite := s.m.write.node
	s.m.mu.Unlock()
	last := ""
	for _, c := range queue[:me] {
		// Our own write lock doesn't block our reader: that is a downgrade.
		if c.write && s.m.dir+"/"+c.name != ownWrite {
			last = s.m.dir + "/" + c.name
		}
	}
	if last != "" && ownWrite != "" {
		return "", ErrDowngrade // we'd wait for a writer that waits for us
	}
	return last, nil
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
	go func() { done <- s.m.conn.Delete(node, -1) }()
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
