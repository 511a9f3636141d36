package leader

import (
	"errors"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
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
