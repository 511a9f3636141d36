package naivelock

import (
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// DefaultRetryInterval is how long a waiter sleeps between two attempts
// unless WithRetryInterval says otherwise.
const DefaultRetryInterval = 20 * time.Millisecond

// Option configures a Lock.
type Option func(*Lock)

// Persistent makes the lock node persistent instead of ephemeral: it then
// outlives the session that created it. Nobody should want this — if the
// holder crashes before Unlock, the node stays and the lock is taken for
// ever. It exists so this chapter can show exactly that; the default,
// ephemeral, is the variant the articles end up with.
func Persistent() Option {
	return func(l *Lock) { l.flags = zk.FlagPersistent }
}

// WithRetryInterval sets how long a waiter sleeps after a failed create
// before it tries again. Values ≤ 0 keep the default.
func WithRetryInterval(d time.Duration) Option {
	return func(l *Lock) {
		if d > 0 {
			l.retry = d
		}
	}
}

// WithObserver makes the lock report what it does (see package event).
func WithObserver(o event.Observer) Option {
	return func(l *Lock) { l.obs = o }
}

// WithACL gives the lock node (and any parent the lock creates) the ACL
// acl. The default is open to anyone (zk.WorldACL); a session with
// credentials may want creator-only nodes (zk.AuthACL).
func WithACL(acl []zk.ACL) Option {
	return func(l *Lock) { l.acl = acl }
}
