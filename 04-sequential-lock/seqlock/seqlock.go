// Package seqlock is the ZooKeeper lock recipe done properly: every
// contender queues up with an EPHEMERAL_SEQUENTIAL node, the lowest node
// holds the lock, and every other contender watches only the node just
// before its own. A release wakes exactly one waiter (no herd), a crashed
// holder's node vanishes with its session, and the queue is fair (FIFO).
//
// It is the recipe from the ZooKeeper documentation, the one Apache
// Curator's InterProcessMutex and kazoo's Lock implement, with what they
// add on top: protected node names (a GUID in the name, so a create whose
// reply was lost can be found again), container lock directories that
// disappear when empty, a fencing token, and a Lost channel that tells the
// holder when the lock is gone without Unlock.
//
// Node names are compatible with Curator and with go-zookeeper's zk.Lock
// (_c_<guid>-lock-<sequence>), so all three can contend for the same lock.
package seqlock

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

var (
	// ErrNotLocked is returned by Unlock when this Mutex does not hold the lock.
	ErrNotLocked = errors.New("seqlock: not locked")
	// ErrLocked is returned by TryLock when another contender holds the lock.
	ErrLocked = errors.New("seqlock: locked by another client")
	// ErrHeld is returned by Lock and TryLock when this Mutex already holds
	// the lock (or a Lock call on it is in progress, or its last hold was
	// lost and Unlock has not been called yet).
	ErrHeld = errors.New("seqlock: already held by this Mutex")
	// ErrLost is wrapped in the error Unlock returns when the hold was lost
	// before Unlock (session expired, node deleted, disconnected too long).
	ErrLost = errors.New("seqlock: lock lost")
)

// Mutex is one contender for the lock in a ZooKeeper directory. Many
// Mutexes (in one process or many, on one *zk.Conn or many) contend for the
// same directory. A Mutex is used by one goroutine at a time; Token, Node
// and Lost may be called from any goroutine.
type Mutex struct {
	conn *zk.Conn
	dir  string
	opts options

	mu      sync.Mutex
	busy    bool  // a Lock is in progress or a hold exists (until Unlock)
	current *hold // the current hold, nil if none
	last    *hold // the most recent hold, for Lost after Unlock
}

// New returns a Mutex for the lock directory dir (for example
// "/locks/orders"). Nothing is sent to ZooKeeper until Lock.
func New(conn *zk.Conn, dir string, opts ...Option) (*Mutex, error) {
	if conn == nil {
		return nil, errors.New("seqlock: nil *zk.Conn")
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("seqlock: lock directory: %w", err)
	}
	m := &Mutex{conn: conn, dir: dir}
	for _, o := range opts {
		o(&m.opts)
	}
	return m, nil
}

// Lock blocks until this Mutex holds the lock or ctx ends. If ctx ends
// first, Lock deletes its node (so it does not hold up the queue) and
// returns ctx's error.
func (m *Mutex) Lock(ctx context.Context) error { return m.acquire(ctx, true) }

// TryLock takes the lock if nobody holds it and returns ErrLocked at once
// otherwise, leaving nothing behind.
func (m *Mutex) TryLock(ctx context.Context) error { return m.acquire(ctx, false) }

func (m *Mutex) acquire(ctx context.Context, wait bool) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	if m.busy {
		m.mu.Unlock()
		return ErrHeld
	}
	m.busy = true
	m.mu.Unlock()
	defer func() {
		if err != nil {
			m.mu.Lock()
			m.busy = false
			m.mu.Unlock()
		}
	}()

	for {
		// Step 1: join the queue. Our node's name carries a random GUID so
		// that, if the reply to our create is lost, we can find the node
		// again instead of leaving an orphan that would block everyone.
		node, err := m.createNode(ctx)
		if err != nil {
			return err
		}
		// Read (and watch) our own node now, while we queue, so the
		// read is off the hand-off path (see readOwn). TryLock reads it
		// only once it has the lock: a failed TryLock costs nothing more.
		var own <-chan ownRead
		if wait {
			own = m.readOwn(node)
		}
		// Steps 2-4: wait until our node is the lowest.
		err = m.waitTurn(ctx, node, wait)
		if err == nil {
			// Step 5: we hold the lock. The watch on our own node tells
			// us if the lock is lost while we think we hold it.
			if own == nil {
				own = m.readOwn(node)
			}
			err = m.hold(ctx, node, own)
		}
		if errors.Is(err, errNodeGone) {
			// Our node vanished before we held the lock: our session
			// expired while we waited (go-zookeeper then opens a new one
			// on the same conn). Our place in the queue is gone; queue
			// up again, as Curator does.
			continue
		}
		if err != nil {
			m.removeNode(node)
			return err
		}
		return nil
	}
}

// errNodeGone: our own node is no longer in the queue.
var errNodeGone = errors.New("seqlock: our node is gone")

// waitTurn returns nil once node is the lowest in the queue.
func (m *Mutex) waitTurn(ctx context.Context, node string, wait bool) error {
	for {
		// Step 2: list the queue and find our place in it, ordered by
		// the sequence number (the GUID prefix sorts randomly).
		queue, err := m.queue(ctx)
		if err != nil {
			return err
		}
		pos := queue.position(node)
		switch {
		case pos < 0:
			return errNodeGone
		case pos == 0:
			return nil // Step 3: lowest node: the lock is ours.
		case !wait:
			return ErrLocked
		}

		// Step 4: watch ONLY the node just before ours. When it goes
		// away, exactly one client wakes up — this is what kills the herd
		// effect of chapter 03. We use a data watch (GetW), not ExistsW:
		// if the predecessor is already gone, GetW fails with ErrNoNode
		// and leaves no watch behind, whereas ExistsW would leave a
		// creation watch on a node that will never come back.
		pred := m.dir + "/" + queue[pos-1].name
		m.emit(event.Request, "get", pred, "")
		_, _, watch, err := call3(ctx, func() ([]byte, *zk.Stat, <-chan zk.Event, error) { return m.conn.GetW(pred) })
		if errors.Is(err, zk.ErrNoNode) {
			continue // the predecessor left between our list and our watch: look again
		}
		if err != nil {
			return fmt.Errorf("seqlock: watch predecessor %s: %w", pred, err)
		}
		m.emit(event.WatchSet, "get", pred, "")
		m.emit(event.Waiting, "", pred, "")

		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-watch:
			m.emit(event.Notified, "", pred, ev.Type.String())
			if ev.Type == zk.EventNotWatching {
				// The session ended. If it expired, our node died with it
				// (the next listing will not find it); if the conn was
				// closed, the next request fails. Either way, look again.
				if errors.Is(ev.Err, zk.ErrClosing) {
					return fmt.Errorf("seqlock: wait for %s: %w", pred, ev.Err)
				}
			}
			// The predecessor is gone, but it may have been a waiter that
			// gave up rather than the holder: list again (step 2) rather
			// than assume the lock is ours.
		}
	}
}

// Unlock releases the lock by deleting our node; the next contender in
// line is notified. It returns ErrNotLocked if this Mutex does not hold the
// lock, and an error wrapping ErrLost if the hold was lost before Unlock
// (it still deletes the node, in case it exists).
func (m *Mutex) Unlock(ctx context.Context) error {
	m.mu.Lock()
	h := m.current
	m.current = nil // claim the hold: a second Unlock gets ErrNotLocked
	m.mu.Unlock()
	if h == nil {
		return ErrNotLocked
	}
	// Stop watching our own node first, so that our own delete is not
	// mistaken for a loss.
	h.stopWatching()

	m.emit(event.Request, "delete", h.node, "")
	err := call(ctx, func() error { return m.conn.Delete(h.node, -1) })
	// Our node already gone, or a new session on the conn, means the hold
	// was lost even if the watcher had not seen it yet (Unlock can run
	// right after an expiry, before the watch event arrives).
	lostNow := errors.Is(err, zk.ErrNoNode) || m.conn.SessionID() != h.session
	if errors.Is(err, zk.ErrNoNode) {
		err = nil // already gone: the loss is reported below
	}
	if err != nil && m.removeNode(h.node) {
		// We could not say whether the delete landed (ctx ended, the
		// connection dropped), but removeNode made sure of it. (If it
		// is still trying, it keeps at it in the background, so the node
		// does not block the queue while our session lives on.)
		err = nil
	}

	m.mu.Lock()
	m.busy = false
	m.mu.Unlock()

	reason := h.lostReason()
	if reason == "" && lostNow {
		reason = "our node or our session was gone at Unlock"
	}
	if reason != "" {
		return fmt.Errorf("seqlock: unlock %s: %w: %s", h.node, ErrLost, reason)
	}
	m.emit(event.Released, "", h.node, "")
	if err != nil {
		return fmt.Errorf("seqlock: unlock %s: delete: %w", h.node, err)
	}
	return nil
}

// Token returns the fencing token of the current hold, 0 if none. Pass it
// to the resource the lock protects, which must reject any token lower
// than the highest it has seen: a holder that lost the lock without
// knowing it (a long GC pause) is then stopped by the resource itself.
func (m *Mutex) Token() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current == nil {
		return 0
	}
	return m.current.token
}

// Node returns the full path of our node while we hold the lock, "" otherwise.
func (m *Mutex) Node() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current == nil {
		return ""
	}
	return m.current.node
}

// Lost returns a channel that is closed when the current hold is lost
// without Unlock: its node was deleted, the session expired or the conn
// was closed, or (WithSessionTimeout) the conn was disconnected for too
// long. Unlock never closes it. Each hold has its own channel; between
// holds Lost returns the last hold's channel, and nil (which never fires)
// before the first.
func (m *Mutex) Lost() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current != nil {
		return m.current.lost
	}
	if m.last != nil {
		return m.last.lost
	}
	return nil
}

func (m *Mutex) emit(kind event.Kind, op, node, detail string) {
	m.opts.observer.Emit(event.Event{Lock: m.dir, Kind: kind, Op: op, Node: node, Detail: detail})
}
