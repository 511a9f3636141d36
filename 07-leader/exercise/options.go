package leader

import (
	"errors"
	"time"

	"github.com/lockstep-zk/lockstep/event"
)

// Errors, checked with errors.Is.
var (
	// ErrNotLeader: Resign on an Election that does not lead (it never won,
	// it already resigned, or it lost its leadership).
	ErrNotLeader = errors.New("leader: not the leader")
	// ErrNoLeader: Leader found no candidate in the election directory.
	ErrNoLeader = errors.New("leader: no leader")
	// ErrCampaigning: Campaign on an Election that is already campaigning or
	// leading. One Election is one candidate; make another for another.
	ErrCampaigning = errors.New("leader: already campaigning or leading")
	// ErrNilConn: New was given a nil *zk.Conn.
	ErrNilConn = errors.New("leader: nil *zk.Conn")
	// ErrSessionLost: the candidate's node disappeared while it campaigned
	// (its session expired), so the campaign is over.
	ErrSessionLost = errors.New("leader: candidate node lost while campaigning")
)

// Option configures an Election.
type Option func(*Election)

// WithObserver makes the Election report what it does: every request to
// ZooKeeper, every watch, and when it becomes leader (Acquired, Token = the
// term), resigns (Released) or loses its leadership (Lost).
func WithObserver(o event.Observer) Option {
	return func(e *Election) { e.obs = o }
}

// WithSessionTimeout tells the Election the session timeout its *zk.Conn
// was dialled with (the client has no way to ask). With it, a leader whose
// connection stays down steps down on its own, before the server can expire
// its session and elect someone else (see stepDownAfter in election.go).
// Without it, a cut-off leader learns it lost only when it reconnects.
//
// It must not be longer than the timeout the server really granted.
func WithSessionTimeout(d time.Duration) Option {
	return func(e *Election) { e.sessionTimeout = d }
}
