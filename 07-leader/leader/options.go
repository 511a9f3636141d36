package leader

import (
	"errors"
	"time"

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
	// ErrNilConn: New was given a nil *zk.Conn.
	ErrNilConn = seqlock.ErrNilConn
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

// WithSessionTimeout is seqlock.WithSessionTimeout. By default a leader
// uses the session timeout the server granted its conn, and steps down
// (Lost) once the conn has had no session for a sixth of it — before the
// server can expire the session and elect someone else. d <= 0 turns that
// check off: a cut-off leader then learns it lost only when it reconnects,
// the flaw TestCutOffLeaderWithoutSessionTimeoutStillBelievesItLeads
// measures.
func WithSessionTimeout(d time.Duration) Option {
	return func(c *config) { c.seqlock = append(c.seqlock, seqlock.WithSessionTimeout(d)) }
}
