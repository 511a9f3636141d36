package reentrant

import (
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
)

// RWMutex is chapter 05's read/write lock with a hold count on each side,
// the way Curator's InterProcessReadWriteLock is reentrant. One *RWMutex is
// one owner (Go has no thread to be the owner, see the package comment):
//
//   - each side re-enters: a read holder's Read().Lock, a write holder's
//     Write().Lock only count, with no request;
//   - a write holder may take the read side: its own writer does not block
//     its reader, and releasing the write side then leaves it reading (the
//     downgrade Curator documents). If another owner's writer is already
//     queued behind ours, 05 refuses at once with rwlock.ErrDowngrade —
//     Curator lets that reader in, and the queued writer then shares the
//     lock with it when ours is released;
//   - a read holder asking for the write side gets rwlock.ErrUpgrade at
//     once: our writer would wait for our own reader for ever (Curator
//     waits; we say no, never a deadlock).
type RWMutex struct {
	read, write *Mutex
}

// ErrUpgrade and ErrDowngrade are chapter 05's.
var (
	ErrUpgrade   = rwlock.ErrUpgrade
	ErrDowngrade = rwlock.ErrDowngrade
)

// NewRW returns a reentrant read/write lock on the directory dir. Nothing
// is sent to ZooKeeper until a side's Lock. opts are chapter 04's, as for New.
func NewRW(s *seqlock.Session, dir string, opts ...seqlock.Option) (*RWMutex, error) {
	rw, err := rwlock.New(s, dir, opts...)
	if err != nil {
		return nil, err
	}
	conn, obs := s.Conn(), observerOf(opts)
	return &RWMutex{read: counted(rw.Read(), conn, dir, obs), write: counted(rw.Write(), conn, dir, obs)}, nil
}

// Read is the shared side, Write the exclusive side; each is a Mutex with
// its own depth (Lock, TryLock, Unlock, Depth, Token, Lost).
func (rw *RWMutex) Read() *Mutex  { return rw.read }
func (rw *RWMutex) Write() *Mutex { return rw.write }
