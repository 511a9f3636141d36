// Package rwlock is chapter 05: a read-write lock on ZooKeeper. Many readers
// may hold it at once; a writer holds it alone; everyone is served in the
// order they asked, so a stream of readers cannot starve a writer.
//
// It is chapter 04's queue core with another rule (rule.go): each node says
// whether it reads or writes, and for readers "am I first?" becomes "is a
// writer ahead of me?". Each side is a seqlock.Mutex built with its rule,
// as Curator builds its InterProcessReadWriteLock from two
// InterProcessMutexes; the node names are Curator's, so a Java
// InterProcessReadWriteLock on the same path takes part in the same queue.
//
//	m, err := rwlock.New(s, "/locks/orders") // s: a *seqlock.Session
//	err = m.Read().Lock(ctx)   // shared
//	err = m.Write().Lock(ctx)  // exclusive
package rwlock

import (
	"context"
	"errors"
	"path"
	"slices"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// The errors a side returns; check them with errors.Is. All but ErrUpgrade
// and ErrDowngrade are chapter 04's values (docs/concepts.md).
var (
	// ErrNotHeld: Unlock on a side that does not hold the lock.
	ErrNotHeld = seqlock.ErrNotHeld
	// ErrLocked: TryLock found the lock held in a way that excludes this side.
	ErrLocked = seqlock.ErrLocked
	// ErrAlreadyHeld: Lock or TryLock on a side that already holds the lock,
	// or is acquiring it. This lock is not reentrant: that is chapter 06.
	ErrAlreadyHeld = seqlock.ErrAlreadyHeld
	// ErrLost is wrapped in the error Unlock returns when the hold went away
	// without Unlock (session expired, node deleted, cut off too long):
	// whatever was done under it may not have been exclusive.
	ErrLost = seqlock.ErrLost
	// ErrNilSession: New was given a nil *seqlock.Session.
	ErrNilSession = seqlock.ErrNilSession
	// ErrUpgrade: the write side was asked for while this RWMutex holds the
	// read side. Waiting would deadlock (our writer would wait for our own
	// reader), so it is refused at once: release the read lock first.
	ErrUpgrade = errors.New("rwlock: cannot upgrade a read lock to a write lock")
	// ErrDowngrade: the read side was asked for while this RWMutex holds the
	// write side and another writer is already queued behind it. Our reader
	// would queue behind that writer, which waits for our own write lock.
	ErrDowngrade = errors.New("rwlock: cannot downgrade: another writer is already queued")
)

// RWMutex is one client's handle on a read-write lock directory. Its two
// sides, Read and Write, are locked and unlocked separately.
type RWMutex struct {
	read, write *Side
}

// Side is the read or the write half of an RWMutex: a chapter 04 Mutex
// with the reader's or the writer's rule.
type Side struct {
	m  *seqlock.Mutex
	rw *RWMutex
}

// New returns a read-write lock on the directory dir, created on first use
// (as a container, like Curator's). Nothing is sent to ZooKeeper until a
// side's Lock. opts are chapter 04's (seqlock.WithObserver, WithData,
// WithACL, WithoutDisconnectCheck) and apply to both sides.
func New(s *seqlock.Session, dir string, opts ...seqlock.Option) (*RWMutex, error) {
	rw := &RWMutex{}
	read, err := seqlock.NewWithRule(s, dir, readMarker, rw.readRule,
		slices.Concat(opts, []seqlock.Option{seqlock.WithContenders(writeMarker)})...)
	if err != nil {
		return nil, err
	}
	write, err := seqlock.NewWithRule(s, dir, writeMarker, writeRule,
		slices.Concat(opts, []seqlock.Option{seqlock.WithContenders(readMarker)})...)
	if err != nil {
		return nil, err
	}
	rw.read, rw.write = &Side{read, rw}, &Side{write, rw}
	return rw, nil
}

// readRule is the reader's rule with our own held write node, if any.
func (rw *RWMutex) readRule(queue []seqlock.Node, ours int) (bool, string) {
	own := ""
	if n := rw.write.m.Node(); n != "" {
		own = path.Base(n)
	}
	return readRule(queue, ours, own)
}

// Read is the shared side.
func (rw *RWMutex) Read() *Side { return rw.read }

// Write is the exclusive side.
func (rw *RWMutex) Write() *Side { return rw.write }

// Lock waits until this side holds the lock, or ctx ends. A Lock that gives
// up removes its node before returning, so it never blocks anyone later.
//
// Downgrade: the write holder may take the read side (its own writer does
// not block its reader), then release the write side; if another writer is
// already queued behind ours, it returns ErrDowngrade at once. Upgrade: the
// read holder asking for the write side gets ErrUpgrade at once.
func (s *Side) Lock(ctx context.Context) error { return s.lock(ctx, true) }

// TryLock takes the lock if it can be had now, else returns ErrLocked.
func (s *Side) TryLock(ctx context.Context) error { return s.lock(ctx, false) }

func (s *Side) lock(ctx context.Context, wait bool) error {
	rw := s.rw
	switch {
	case s.m.Node() != "":
		return ErrAlreadyHeld
	case s == rw.write && rw.read.m.Node() != "":
		// A writer waits for every reader ahead of it, ours included, and
		// our reader waits for us: Curator waits for ever here; we say no.
		return ErrUpgrade
	case s == rw.read && rw.write.m.Node() != "":
		// We hold the write lock, so our writer is first. The only thing
		// that can stand before our reader is another writer queued behind
		// ours — which waits for us. Look once, never wait.
		err := s.m.TryLock(ctx)
		if errors.Is(err, ErrLocked) {
			return ErrDowngrade
		}
		return err
	case wait:
		return s.m.Lock(ctx)
	}
	return s.m.TryLock(ctx)
}

// Unlock releases this side by deleting its node. It returns ErrNotHeld if
// the side does not hold the lock, and an error wrapping ErrLost if the
// hold was lost before Unlock.
func (s *Side) Unlock(ctx context.Context) error { return s.m.Unlock(ctx) }

// Token returns the fencing token of this side's current hold, 0 if none:
// chapter 04's token (docs/concepts.md), the lock directory's pzxid in the
// listing that let us in. It only grows from one holder to the next, for
// readers and writers alike; pass it to what the lock guards.
func (s *Side) Token() int64 { return s.m.Token() }

// Lost is closed when this side's current (or last) hold ends without
// Unlock: the session expired, or the conn had no session for a sixth of
// the session timeout, or (seen at Unlock) our node was deleted. nil, which
// never fires, before the first hold.
func (s *Side) Lost() <-chan struct{} { return s.m.Lost() }

// Node is the full path of this side's node while it holds the lock, ""
// otherwise.
func (s *Side) Node() string { return s.m.Node() }
