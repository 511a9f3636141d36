package leader

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Errors, checked with errors.Is. All but ErrNoLeader are chapter 04's
// values, so errors.Is works across chapters (docs/concepts.md).
var (
	// ErrNotHeld: Resign on an Election that does not lead (it never won,
	// or it already resigned).
	ErrNotHeld = seqlock.ErrNotHeld
	// ErrAlreadyHeld: Campaign on an Election that is already campaigning
	// or leading, or whose leadership was lost and not yet resigned. One
	// Election is one candidate; make another for another.
	ErrAlreadyHeld = seqlock.ErrAlreadyHeld
	// ErrLost is wrapped in the error Resign returns when the leadership
	// was lost before Resign.
	ErrLost = seqlock.ErrLost
	// ErrNilSession: New was given a nil *seqlock.Session.
	ErrNilSession = seqlock.ErrNilSession
	// ErrNoLeader: Leader found no candidate in the election directory.
	ErrNoLeader = errors.New("leader: no leader")
)

// Option configures an Election.
type Option func(*config)

type config struct {
	obs     event.Observer
	seqlock []seqlock.Option // passed on to chapter 04's queue core
}

// WithObserver makes the Election report what it does: every request to
// ZooKeeper, every watch, and when it becomes leader (Acquired, with its
// Token), resigns (Released) or loses its leadership (Lost).
func WithObserver(o event.Observer) Option {
	return func(c *config) {
		c.obs = o
		c.seqlock = append(c.seqlock, seqlock.WithObserver(o))
	}
}

// WithoutDisconnectCheck is seqlock.WithoutDisconnectCheck. By default a
// leader steps down (Lost) once its Session has had no session for a sixth
// of the granted timeout — before the server can expire the session and
// elect someone else. Without the check a cut-off leader learns it lost
// only when it reconnects, the flaw
// TestCutOffLeaderWithoutSessionTimeoutStillBelievesItLeads measures.
func WithoutDisconnectCheck() Option {
	return func(c *config) { c.seqlock = append(c.seqlock, seqlock.WithoutDisconnectCheck()) }
}

// WithACL gives the candidates' nodes (and the election directory, if
// missing) the ACL acl (seqlock.WithACL).
func WithACL(acl []zk.ACL) Option {
	return func(c *config) { c.seqlock = append(c.seqlock, seqlock.WithACL(acl)) }
}
