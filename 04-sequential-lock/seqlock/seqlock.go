// Package seqlock is the ZooKeeper lock recipe done properly: every
// contender queues up with an EPHEMERAL_SEQUENTIAL node, the lowest node
// holds the lock, and every other contender watches only the node just
// before its own. A release wakes exactly one waiter (no herd), a crashed
// holder's node vanishes with its session, and the queue is fair (FIFO).
//
// It is the recipe from the ZooKeeper documentation, the one Apache
// Curator's InterProcessMutex and kazoo's Lock implement, with what they
// add on top: protected node names (a UUID in the name, so a create whose
// reply was lost can be found again), container lock directories that
// disappear when empty, a fencing token, and a Lost channel that tells the
// holder when the lock is gone without Unlock.
//
// The package reads top to bottom in six files, as Curator's locks are
// built: session.go (one ZooKeeper session, and how a hold on it is lost),
// queue.go (the queue core: join, list, wait, remove — the engine every
// lock runs), acquire.go (the lesson: waitTurn and the rule First), hold.go
// (a hold, its fencing token, its loss and release), seqlock.go (the
// Mutex: the core with the rule First) and options.go (the Options).
// Every later chapter is a Mutex with its own Rule (NewWithRule): 05's
// reader waits only for writers, 07's leader is the first candidate, 09's
// semaphore lets n holders in.
//
// Node names are compatible with Curator and with go-zookeeper's zk.Lock
// (_c_<uuid>-lock-<sequence>), so all three can contend for the same lock.
package seqlock

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/slot"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// The errors every lockstep lock returns. Later chapters return these
// same values (05's rwlock.ErrLost is seqlock.ErrLost), so errors.Is works
// across chapters; docs/concepts.md defines them once.
var (
	// ErrNotHeld is returned by Unlock when this handle does not hold the lock.
	ErrNotHeld = errors.New("seqlock: not held")
	// ErrLocked is returned by TryLock when another contender holds the lock.
	ErrLocked = errors.New("seqlock: locked by another contender")
	// ErrAlreadyHeld is returned by Lock and TryLock when this handle
	// already holds the lock, or a Lock on it is in progress, or its last
	// hold was lost and Unlock has not been called yet.
	ErrAlreadyHeld = errors.New("seqlock: already held by this handle")
	// ErrLost is wrapped in the error Unlock returns when the hold was lost
	// before Unlock (session expired, node deleted, disconnected too long).
	ErrLost = errors.New("seqlock: lock lost")
	// ErrNilSession is returned by New for a nil *Session.
	ErrNilSession = errors.New("seqlock: nil *Session")
	// ErrSessionExpired is returned by Lock and TryLock on a Session whose
	// ZooKeeper session the server expired: open a new Session.
	ErrSessionExpired = errors.New("seqlock: session expired")
	// ErrSessionClosed is returned by Lock and TryLock on a closed Session.
	ErrSessionClosed = errors.New("seqlock: session closed")

	// ErrNilConn is returned by Participants, and by any call that takes
	// a plain *zk.Conn, when it is nil.
	ErrNilConn = errors.New("seqlock: nil *zk.Conn")
)

// Mutex is one contender for the lock in a ZooKeeper directory. Many
// Mutexes (in one process or many, on one Session or many) contend for the
// same directory; each lives on a Session. A Mutex is used by one goroutine
// at a time; Token, Node and Lost may be called from any goroutine.
type Mutex struct {
	q    *queue
	slot slot.Slot[*hold] // busy, the current hold, the last (internal/slot)
}

// New returns a Mutex for the lock directory dir (for example
// "/locks/orders"). Nothing is sent to ZooKeeper until Lock.
func New(s *Session, dir string, opts ...Option) (*Mutex, error) {
	return NewWithRule(s, dir, "lock-", First, opts...)
}

// NewWithRule returns a Mutex whose nodes are named …<name><sequence> and
// whose holder is chosen by rule instead of First. It is how later chapters
// build their locks, as Curator builds its read/write lock, semaphore and
// leader latch from the InterProcessMutex with another driver: 05's
// reader and writer, 07's candidate and 09's lease are each a Mutex with a
// rule of their own.
func NewWithRule(s *Session, dir, name string, rule Rule, opts ...Option) (*Mutex, error) {
	q, err := newQueue(s, dir, name, rule, opts)
	if err != nil {
		return nil, err
	}
	return &Mutex{q: q}, nil
}

// Lock blocks until this Mutex holds the lock or ctx ends. If ctx ends
// first, Lock deletes its node (so it does not hold up the queue) and
// returns ctx's error. Making sure of that takes a round trip, and Lock may
// return up to 5 s after ctx ends: when the connection is down, or ctx
// ended while the create of our node was unanswered, it waits that long
// for the answer, then leaves the clean-up to a goroutine that retries it
// while the session lives. It returns ErrAlreadyHeld while this Mutex holds
// the lock, is locking, or has lost a hold it has not Unlocked yet (a
// second hold would leak: Unlock lets go of one), and ErrSessionExpired
// once the server has expired its Session's session (ErrSessionClosed
// after Close).
func (m *Mutex) Lock(ctx context.Context) error {
	if !m.slot.Begin() {
		return ErrAlreadyHeld
	}
	h, err := m.q.acquire(ctx, true)
	return m.slot.End(h, err)
}

// TryLock takes the lock if the rule lets us have it now, and returns
// ErrLocked at once otherwise, leaving nothing behind. Like Lock, it may
// return up to 5 s after ctx ends.
func (m *Mutex) TryLock(ctx context.Context) error {
	if !m.slot.Begin() {
		return ErrAlreadyHeld
	}
	h, err := m.q.acquire(ctx, false)
	return m.slot.End(h, err)
}

// Unlock releases the lock by deleting our node; the next contender in
// line is notified. It returns ErrNotHeld if this Mutex does not hold the
// lock, and an error wrapping ErrLost if the hold was lost before Unlock
// (it still deletes the node, in case it exists). If the delete's answer
// is lost (the connection dropped, ctx ended), Unlock retries it for up to
// 5 s, then leaves it to a goroutine that retries it while the session
// lives. The Mutex may Lock again once Unlock has returned. Unlock calls
// the Observer (WithObserver) on its own goroutine, and waits for it.
func (m *Mutex) Unlock(ctx context.Context) error {
	h, ok := m.slot.Take()
	if !ok {
		return ErrNotHeld
	}
	defer m.slot.Free()
	return h.release(ctx)
}

// Token returns the fencing token of the current hold, 0 if none. Pass it
// to the resource the lock protects, which must reject any token lower
// than the highest it has seen: a holder that lost the lock without
// knowing it (a long GC pause) is then stopped by the resource itself.
func (m *Mutex) Token() int64 {
	if h, ok := m.slot.Current(); ok {
		return h.token
	}
	return 0
}

// Node returns the full path of our node while we hold the lock, "" otherwise.
func (m *Mutex) Node() string {
	if h, ok := m.slot.Current(); ok {
		return h.node
	}
	return ""
}

// Lost returns a channel that is closed when the current hold is lost
// without Unlock: the session ended, or the conn has had no session for
// a sixth of the session timeout, or (seen at Unlock) our node was deleted.
// Unlock never closes it otherwise. Each hold has its own channel; between
// holds Lost returns the last hold's channel, and nil (which never fires)
// before the first.
func (m *Mutex) Lost() <-chan struct{} { return m.slot.Lost() }

// Participant is one contender in a lock's queue.
type Participant struct {
	Node string // full path of its node
	Seq  int64  // its sequence number
	Data []byte // what it wrote (WithData)
}

// Participants returns the queue of the lock in dir, in order: [0] holds
// the lock (or is about to notice that it does), the others wait in that
// order. Like Curator's getParticipantNodes and kazoo's contenders. Any
// conn may ask, contender or not; a read whose connection drops is sent
// again while conn keeps its session, as the core's own reads are. Every
// sequential child of dir counts, whatever its name (a reader's, a
// writer's, a lease's).
func Participants(ctx context.Context, conn *zk.Conn, dir string) ([]Participant, error) {
	if conn == nil {
		return nil, ErrNilConn
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("seqlock: lock directory: %w", err)
	}
	c := zkcall.Conn{Conn: conn, Session: conn.SessionID()}
	children, _, err := c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("seqlock: list %s: %w", dir, err)
	}
	var out []Participant
	for _, name := range zkpath.Queue(children, "") {
		p := dir + "/" + name
		data, _, err := c.Get(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue // it left while we looked
		}
		if err != nil {
			return nil, fmt.Errorf("seqlock: read %s: %w", p, err)
		}
		seq, _ := zkpath.SequenceOf(name)
		out = append(out, Participant{Node: p, Seq: seq, Data: data})
	}
	return out, nil
}
