package rwlock

import (
	"errors"
	"time"

	"github.com/lockstep-zk/lockstep/event"
)

// The errors a side returns; check them with errors.Is.
var (
	// ErrNotLocked: Unlock on a side that does not hold the lock.
	ErrNotLocked = errors.New("rwlock: not locked")
	// ErrLocked: TryLock found the lock held in a way that excludes this side.
	ErrLocked = errors.New("rwlock: locked by someone else")
	// ErrHeld: Lock or TryLock on a side that already holds the lock. This
	// lock is not reentrant: that is chapter 06.
	ErrHeld = errors.New("rwlock: already held by this side (the lock is not reentrant)")
	// ErrUpgrade: the write side was asked for while this RWMutex holds the
	// read side. Waiting would deadlock (our writer would wait for our own
	// reader), so it is refused at once: release the read lock first.
	ErrUpgrade = errors.New("rwlock: cannot upgrade a read lock to a write lock")
	// ErrDowngrade: the read side was asked for while this RWMutex holds the
	// write side and another writer is already queued behind it. Our reader
	// would queue behind that writer, which waits for our own write lock.
	ErrDowngrade = errors.New("rwlock: cannot downgrade: another writer is already queued")
	// ErrLost: the lock went away without Unlock (session expired, node
	// deleted); whatever was done under it may not have been exclusive.
	ErrLost = errors.New("rwlock: lock lost")
)

// Option configures an RWMutex.
type Option func(*options)

type options struct {
	observer       event.Observer
	sessionTimeout time.Duration
}

// WithObserver makes both sides report every request, watch, notification,
// acquisition and release to o.
func WithObserver(o event.Observer) Option {
	return func(opts *options) { opts.observer = o }
}

// WithSessionTimeout tells the lock the session timeout its connection
// asked for (go-zookeeper has no accessor for it). A holder then declares
// the lock lost once its connection has been down that long: by then the
// server has expired the session and given the lock to someone else, even
// though the client only hears of the expiry after it reconnects.
func WithSessionTimeout(d time.Duration) Option {
	return func(opts *options) { opts.sessionTimeout = d }
}
