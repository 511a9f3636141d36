// Package reentrant is chapter 04's lock plus a hold count: the owner that
// holds the lock may take it again without a second znode and without
// waiting, and the lock is released in ZooKeeper only when every Lock has
// been matched by an Unlock.
//
// This is exactly how Apache Curator builds its InterProcessMutex: the
// ZooKeeper part (LockInternals) takes the lock once, and a count per owner
// says how deep the owner is in it. Curator's owner is the Java thread that
// called acquire(). Go has no thread identity — goroutines are anonymous on
// purpose — so here the owner is explicit: one *Mutex is one owner.
//
//	m, _ := reentrant.New(s, "/locks/orders") // s: a *seqlock.Session
//	m.Lock(ctx)   // depth 1: creates our node, waits our turn (chapter 04)
//	m.Lock(ctx)   // depth 2: no request to ZooKeeper, returns at once
//	m.Unlock(ctx) // depth 1: still held
//	m.Unlock(ctx) // depth 0: our node is deleted, the next in line wakes up
//
// Give each goroutine (or each job) that must exclude the others its own
// Mutex; New sends nothing to ZooKeeper, so they are cheap. Goroutines that
// share one Mutex are one owner: the second one's Lock re-enters instead of
// waiting. That is sometimes what you want (a job that hands its lock to the
// helpers it starts), but then it is a decision you make by passing the
// Mutex, never something that happens because two goroutines ran on the
// same thread.
package reentrant

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

var (
	// ErrNotHeld is returned by Unlock when this Mutex does not hold the
	// lock: it never locked, or every Lock has already been unlocked. The
	// count never goes below zero. It is seqlock's value, like the others.
	ErrNotHeld = seqlock.ErrNotHeld
	// ErrLocked is returned by TryLock when another owner holds the lock.
	// It is seqlock's value, so errors.Is works with either.
	ErrLocked = seqlock.ErrLocked
	// ErrLost is wrapped in the error Lock, TryLock and Unlock return once
	// the hold is gone without Unlock (session expired, node deleted). It is
	// seqlock's value, so errors.Is works with either.
	ErrLost = seqlock.ErrLost
)

// Mutex is one owner of a reentrant lock on a ZooKeeper directory. It is
// safe for concurrent use, but every goroutine using the same Mutex is the
// same owner (see the package comment).
type Mutex struct {
	lock lock // chapter 04 (or one side of 05) does all the ZooKeeper work
	conn *zk.Conn
	dir  string
	obs  event.Observer

	// turn lets one call at a time change the hold (a channel rather than
	// a sync.Mutex, so that waiting for it honours ctx). seqlock.Mutex
	// wants one goroutine at a time; turn is what makes sharing ours safe.
	turn chan struct{}
	// depth is how many Locks are not yet matched by an Unlock. Written
	// only while holding turn; atomic so Depth can read it at any time.
	depth atomic.Int64
	// session is the ZooKeeper session that took the lock (guarded by turn).
	session int64
}

// lock is what the hold count sits on: chapter 04's Mutex, or one side of
// chapter 05's read/write lock (rwmutex.go).
type lock interface {
	Lock(ctx context.Context) error
	TryLock(ctx context.Context) error
	Unlock(ctx context.Context) error
	Token() int64
	Node() string
	Lost() <-chan struct{}
}

// New returns a Mutex for the lock directory dir, with depth 0. Nothing is
// sent to ZooKeeper until Lock. opts are seqlock's: the observer of
// seqlock.WithObserver also hears an Info event for each re-entry and each
// Unlock that only lowers the depth; with seqlock.WithoutDisconnectCheck,
// re-entry is allowed during a partition, after the server may have given
// the lock away.
func New(s *seqlock.Session, dir string, opts ...seqlock.Option) (*Mutex, error) {
	lock, err := seqlock.New(s, dir, opts...)
	if err != nil {
		return nil, err // a nil Session or a bad path: seqlock says which
	}
	return counted(lock, s.Conn(), dir, observerOf(opts)), nil
}

// observerOf is the observer opts set (seqlock.WithObserver), if any.
func observerOf(opts []seqlock.Option) event.Observer {
	var o seqlock.Options
	for _, opt := range opts {
		opt(&o)
	}
	return o.Observer
}

// counted puts a hold count on lock.
func counted(lock lock, conn *zk.Conn, dir string, obs event.Observer) *Mutex {
	return &Mutex{lock: lock, conn: conn, dir: dir, obs: obs, turn: make(chan struct{}, 1)}
}

// Lock takes the lock, or takes it once more if this Mutex already holds it.
//
// At depth 0 it is chapter 04's Lock: create our node, wait behind our
// predecessor, honour ctx. At depth ≥ 1 it sends nothing to ZooKeeper and
// only counts — unless the hold was lost meanwhile: then it returns an
// error wrapping ErrLost and leaves the depth as it is, so the callers
// above learn it from their own Unlock.
func (m *Mutex) Lock(ctx context.Context) error {
	return m.inTurn(ctx, m.lock.Lock)
}

// TryLock is Lock without waiting: ErrLocked at once if another owner holds
// the lock. Re-entry never waits anyway, so at depth ≥ 1 it is Lock.
func (m *Mutex) TryLock(ctx context.Context) error {
	return m.inTurn(ctx, m.lock.TryLock)
}

// inTurn runs acquire (count.go) in this Mutex's turn.
func (m *Mutex) inTurn(ctx context.Context, take func(context.Context) error) error {
	// A finished ctx means "don't take the lock", even for a re-entry.
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.takeTurn(ctx); err != nil {
		return err
	}
	defer m.endTurn()
	return m.acquire(ctx, take)
}

// Unlock undoes one Lock. Only the last one (depth 1 → 0) deletes our node
// in ZooKeeper and lets the next owner in. It returns ErrNotHeld if this
// Mutex does not hold the lock (the depth stays 0), and an error wrapping
// ErrLost if the hold was lost (see release, in count.go).
func (m *Mutex) Unlock(ctx context.Context) error {
	// A Mutex that holds nothing needs no turn: say so at once, even if
	// another goroutine of this owner is busy waiting in Lock.
	if m.depth.Load() == 0 {
		return ErrNotHeld
	}
	if err := m.takeTurn(ctx); err != nil {
		return err
	}
	defer m.endTurn()
	return m.release(ctx)
}

// lostReason says why the current hold is no longer real, "" if it still
// looks held from here.
func (m *Mutex) lostReason() string {
	select {
	case <-m.lock.Lost():
		// seqlock watches our session: it expired, or the conn has had
		// no session for too long.
		return "the lock's session is gone"
	default:
	}
	// A backstop for the moment before seqlock has told us: once the
	// session is gone, the conn's session id is no longer the one that
	// took the lock (0 after an expiry, or a closed conn's), and our
	// ephemeral node died with that session.
	if id := m.conn.SessionID(); id != m.session {
		return fmt.Sprintf("session %#x is gone (now %#x)", m.session, id)
	}
	return ""
}

// takeTurn waits for our turn, or for ctx to end. If the turn is free it
// takes it even when ctx has ended: an Unlock in a defer often runs with
// a cancelled ctx, and it must still release (chapter 04's Unlock then
// deletes our node in the background).
func (m *Mutex) takeTurn(ctx context.Context) error {
	select {
	case m.turn <- struct{}{}:
		return nil
	default:
	}
	select {
	case m.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *Mutex) endTurn() { <-m.turn }

// Depth returns how many Locks are not yet matched by an Unlock: 0 when
// this Mutex does not hold the lock.
func (m *Mutex) Depth() int { return int(m.depth.Load()) }

// Token returns the fencing token of the current hold (chapter 04's, one
// definition for every chapter), 0 if none. Re-entry keeps the token: it is the same
// hold.
func (m *Mutex) Token() int64 { return m.lock.Token() }

// Node returns the full path of our lock node while held, "" otherwise.
func (m *Mutex) Node() string { return m.lock.Node() }

// Lost returns seqlock's channel: closed when the current hold is lost
// without Unlock.
func (m *Mutex) Lost() <-chan struct{} { return m.lock.Lost() }

func (m *Mutex) info(detail string) {
	m.obs.Emit(event.Event{Lock: m.dir, Kind: event.Info, Node: m.lock.Node(), Detail: detail})
}
