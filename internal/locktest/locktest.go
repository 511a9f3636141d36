// Package locktest is the conformance suite every lock chapter runs, in the
// shape of the 6.5840 lock lab's checker: N contenders, each with its own
// ZooKeeper session, M rounds each; inside the lock they do the articles'
// unguarded read-modify-write of a counter znode (age++), and the final count
// must be exact. An in-process occupancy counter catches any overlap, and
// where the lock has a fencing token, tokens must increase.
//
// Then the bad-input table: every case a clear error, no panic, no hang and
// nothing left behind in ZooKeeper.
//
// The files: locktest.go (Impl, Run), exclusion.go (Exclusion: the counter
// and the tokens), unlock.go (ErrNotHeld), held.go (one session holds, another
// waits), waiting.go (a waiter's deadline, cancel, the holder's session
// closed, TryLock), badinput.go, clean.go (AssertClean).
//
//	func TestConformance(t *testing.T) {
//		locktest.Run(t, locktest.Impl{New: …, ErrNotHeld: mylock.ErrNotHeld})
//	}
package locktest

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// Locker is what every lockstep lock (or one side of it) offers.
type Locker = contend.Locker

// TryLocker is a Locker that can try without waiting.
type TryLocker interface {
	Locker
	TryLock(ctx context.Context) error
}

// Tokener is a Locker whose holder has a fencing token.
type Tokener interface {
	Token() int64
}

// Impl describes a lock implementation to the suite.
type Impl struct {
	// New returns a lock on path over conn that reports to obs (its
	// WithObserver; obs may be nil). It may reject bad input itself or
	// leave that to Lock; either way it must be an error, not a panic.
	// For locks on a plain *zk.Conn (02, 03).
	//
	// The suite listens to a waiter's event.Waiting to know that its Lock
	// is really waiting before it cancels it or closes the holder: a
	// sleep would test nothing on a loaded machine where the waiter has
	// not queued yet.
	New func(conn *zk.Conn, path string, obs event.Observer) (Locker, error)
	// Open is New for locks that live on a session of their own (04 on:
	// seqlock.Session, which locktest cannot name): it opens one
	// contender's session, closed when the test ends, and returns its conn
	// and a constructor for locks on it.
	Open func(tb testing.TB) (conn *zk.Conn, newLock func(path string, obs event.Observer) (Locker, error))
	// ErrNotHeld is what Unlock returns for a lock this object does not hold.
	ErrNotHeld error
	// ErrLocked is what TryLock returns when someone else holds the lock
	// (only for TryLockers).
	ErrLocked error
	// Contenders and Rounds size the exclusion scenario (defaults 5 and 8).
	Contenders, Rounds int
	// HolderCrashKeepsLock marks a lock whose node outlives its holder's
	// session (02's persistent variant): the suite then leaves out "a waiter
	// gets the lock when the holder's session is closed", which is exactly
	// that lock's flaw — its own test must prove it stays stuck instead.
	HolderCrashKeepsLock bool
}

func (impl Impl) sizes() (int, int) {
	n, m := impl.Contenders, impl.Rounds
	if n == 0 {
		n = 5
	}
	if m == 0 {
		m = 8
	}
	return n, m
}

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, impl Impl) {
	t.Run("contenders never hold the lock at once and no update is lost", func(t *testing.T) { Exclusion(t, impl) })
	t.Run("a lock can be taken and released many times on one session", func(t *testing.T) { reuse(t, impl) })
	t.Run("unlocking a lock never locked returns ErrNotHeld", func(t *testing.T) { unlockUnheld(t, impl) })
	t.Run("unlocking twice returns ErrNotHeld the second time", func(t *testing.T) { doubleUnlock(t, impl) })
	t.Run("another lock object cannot unlock the holder's lock", func(t *testing.T) { foreignUnlock(t, impl) })
	t.Run("a Lock whose context expires while waiting returns the context's error and leaves nothing", func(t *testing.T) { deadline(t, impl) })
	t.Run("a Lock whose context is cancelled while waiting returns promptly", func(t *testing.T) { cancelled(t, impl) })
	if !impl.HolderCrashKeepsLock {
		t.Run("a waiter gets the lock when the holder's session is closed, and a holder with Lost() is told", func(t *testing.T) { holderClosed(t, impl) })
	}
	if impl.ErrLocked != nil {
		t.Run("TryLock on a held lock returns ErrLocked at once and leaves nothing", func(t *testing.T) { tryLock(t, impl) })
	}
	t.Run("bad input is a clear error and leaves nothing behind", func(t *testing.T) { BadInput(t, impl) })
}

// contender opens one contender's session and builds its lock on p, which
// reports to obs (nil: to nobody).
func contender(t testing.TB, impl Impl, p string, obs event.Observer) (*zk.Conn, Locker) {
	t.Helper()
	conn, build := impl.contender(t)
	l, err := build(p, obs)
	if err != nil {
		t.Fatalf("New(%q): %v", p, err)
	}
	return conn, l
}

func (impl Impl) contender(t testing.TB) (*zk.Conn, func(string, event.Observer) (Locker, error)) {
	if impl.Open != nil {
		return impl.Open(t)
	}
	conn := zktest.Connect(t)
	return conn, func(p string, obs event.Observer) (Locker, error) { return impl.New(conn, p, obs) }
}
