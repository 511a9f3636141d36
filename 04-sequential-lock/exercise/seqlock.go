// Package seqlock is YOUR version of chapter 04's lock: the workshop
// skeleton of 04-sequential-lock/seqlock, with the same API. What the
// chapter adds around the recipe (protected names, lost create replies,
// container directories, cancellation, the fencing token and Lost — see
// "What it adds to the recipe") is written; the recipe's five steps are
// yours. Each one panics with "TODO(workshop): …" until you write it, in
// the order of 04-sequential-lock/README.md, "The algorithm":
//
//	createSequential  (node.go)     step 1: join the queue
//	sortQueue         (node.go)     step 2: order the queue by sequence number
//	waitTurn          (seqlock.go)  steps 2–4: list, lowest holds, else watch the predecessor
//	leaveQueue        (seqlock.go)  step 5: unlock deletes our node
//
// Everything that is not a TODO is a copy of the reference package, on
// purpose: the skeleton must build on its own (the visualizer runs it with
// -impl exercise), and "make exercise" swaps it in for the reference with
// go test -overlay, so the chapter's own tests are the only tests.
//
// Run the chapter's tests against this package with
//
//	make exercise CH=04            (or: scripts/exercise 04)
//
// and against the reference with SOLUTION=1.
//
// What follows is the reference's package comment.
//
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

// waitTurn returns nil once node is the lowest in the queue. Steps 2 to 4
// of 04-sequential-lock/README.md:
//
//	for {
//		step 2: list the queue, ordered by sequence number: m.queue(ctx)
//		        (it uses your sortQueue), and find our place: queue.position(node);
//		        not in it (-1): our node is gone → return errNodeGone;
//		step 3: first (0): the lock is ours → return nil;
//		        not first and !wait (TryLock): return ErrLocked;
//		step 4: watch ONLY the node just before ours,
//		        pred := m.dir + "/" + queue[pos-1].name, with a data watch:
//		        m.getW(ctx, pred). If it is already gone (zk.ErrNoNode), go
//		        back to step 2 at once. Say you wait (m.emit(event.Waiting, "", pred, ""))
//		        and block until the watch fires or ctx ends (return ctx.Err()).
//		        When it fires, report it (m.emit(event.Notified, "", pred, ev.Type.String()));
//		        an EventNotWatching whose ev.Err is zk.ErrClosing means the conn
//		        was closed: return an error wrapping it. Then go back to step 2:
//		        the predecessor may have been a waiter that gave up, not the holder.
//	}
//
// Questions to answer in your comments: why the predecessor and not the
// lowest node? Why GetW and not ExistsW?
func (m *Mutex) waitTurn(ctx context.Context, node string, wait bool) error {
	panic("TODO(workshop): list the queue (m.queue), return nil if our node is first, else watch ONLY the node just before ours with m.getW and wait, then list again — steps 2-4 of 04-sequential-lock/README.md")
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

	err := m.leaveQueue(ctx, h.node) // step 5
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

	if reason := h.lostReason(); reason != "" {
		return fmt.Errorf("seqlock: unlock %s: %w: %s", h.node, ErrLost, reason)
	}
	m.emit(event.Released, "", h.node, "")
	if err != nil {
		return fmt.Errorf("seqlock: unlock %s: delete: %w", h.node, err)
	}
	return nil
}

// leaveQueue is step 5 of 04-sequential-lock/README.md: delete our node
// (any version: -1). That wakes exactly one client, the one whose watch is
// on our node. Say so first (m.emit(event.Request, "delete", node, "")), and
// let ctx cut the wait short: call(ctx, func() error { … }). A node that
// is already gone (zk.ErrNoNode) is no error here: return nil (Unlock
// reports a loss, if any, itself).
func (m *Mutex) leaveQueue(ctx context.Context, node string) error {
	panic("TODO(workshop): delete our node (version -1) through call(ctx, …); zk.ErrNoNode counts as done — step 5 of 04-sequential-lock/README.md")
}

// getW sets a data watch on node: one GetW, given up on when ctx ends. It
// tells the observer about the request and, if it worked, about the watch.
// If node does not exist, it fails with zk.ErrNoNode and leaves no watch.
func (m *Mutex) getW(ctx context.Context, node string) (<-chan zk.Event, error) {
	m.emit(event.Request, "get", node, "")
	_, _, watch, err := call3(ctx, func() ([]byte, *zk.Stat, <-chan zk.Event, error) { return m.conn.GetW(node) })
	if err != nil {
		return nil, err
	}
	m.emit(event.WatchSet, "get", node, "")
	return watch, nil
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
