package leader

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/slot"
)

// nodeName is what our nodes are called: _c_<uuid>-latch-<sequence>, the
// names Curator's LeaderLatch gives its nodes. A LeaderLatch stores its id
// as the node's data, as Campaign stores its value, and it too says the
// lowest node leads: Java LeaderLatches and these candidates can stand in
// one election, and each side's Leader names the same leader.
const nodeName = "latch-"

// Election is one candidate in the election held in a directory. Use one
// Election per candidate; several may share a Session, but each candidate
// that should survive the others' crashes needs its own session. Token,
// Node and Lost may be called from any goroutine. An Election campaigns or
// leads once at a time: Campaign says ErrAlreadyHeld otherwise.
type Election struct {
	s    *seqlock.Session
	conn *zk.Conn // s.Conn()
	dir  string
	opts []seqlock.Option // for each campaign's lock
	obs  event.Observer

	slot slot.Slot[*seqlock.Mutex] // busy, our leadership, the last: the Mutex's bookkeeping (internal/slot)
}

// Leadership is who leads an election, as anyone can read it from
// ZooKeeper: the lowest candidate node of the directory.
type Leadership struct {
	Value string // what the leader passed to Campaign
	Node  string // its node, as a full path
	// Token is the election directory's pzxid in the listing that showed
	// this leader: the same definition as Election.Token, which is the
	// pzxid in the listing in which the leader found itself first. So it is
	// at least the leader's own Token (equal if no candidate came or went
	// in between), below its successor's, and it grows from one reported
	// leader to the next.
	Token int64
}

// New returns a candidate for the election held in dir. Nothing is sent to
// ZooKeeper until Campaign, Leader or Observe. opts are seqlock's: the
// observer of seqlock.WithObserver hears every request and watch, and when
// this candidate leads (Acquired, with its Token), resigns (Released) or
// loses its leadership (Lost); with seqlock.WithoutDisconnectCheck a
// cut-off leader learns it lost only once it reconnects, after another
// candidate may lead.
func New(s *seqlock.Session, dir string, opts ...seqlock.Option) (*Election, error) {
	if _, err := seqlock.NewWithRule(s, dir, nodeName, seqlock.First, opts...); err != nil {
		return nil, fmt.Errorf("leader: %w", err) // a nil Session, a bad directory
	}
	var o seqlock.Options
	for _, opt := range opts {
		opt(&o)
	}
	return &Election{s: s, conn: s.Conn(), dir: dir, opts: opts, obs: o.Observer}, nil
}

// Campaign joins the election and blocks until this candidate leads, ctx
// ends, or something fails. value (who we are: a host name, an address) is
// stored in our node, for Leader and Observe to report. If Campaign returns
// an error, it has left nothing behind in ZooKeeper. It returns
// ErrAlreadyHeld while this Election campaigns or leads, and after a lost
// leadership until Resign.
func (e *Election) Campaign(ctx context.Context, value string) error {
	if !e.slot.Begin() {
		return ErrAlreadyHeld
	}
	m, err := e.campaign(ctx, value)
	if err != nil {
		err = fmt.Errorf("leader: campaign in %s: %w", e.dir, err)
	}
	return e.slot.End(m, err)
}

// Resign ends our leadership by deleting our node: the candidate watching
// it is notified and leads next, without waiting for any timeout. Stop the
// leader's work before calling it. Resign returns ErrNotHeld if this
// Election does not lead, and an error wrapping ErrLost if the leadership
// was lost before Resign (it still makes sure the node is gone).
func (e *Election) Resign(ctx context.Context) error {
	m, ok := e.slot.Take()
	if !ok {
		return ErrNotHeld
	}
	defer e.slot.Free()
	return m.Unlock(ctx)
}

// Token is the fencing token of our leadership, 0 if we do not lead: every
// later leader of the election has a larger one (chapter 04's definition,
// seqlock.Mutex.Token). Stamp what the leader writes with it, and have the
// resource refuse a token lower than one it has seen (chapter 08).
func (e *Election) Token() int64 {
	if m, ok := e.slot.Current(); ok {
		return m.Token()
	}
	return 0
}

// Node is the full path of our node while we lead, "" otherwise.
func (e *Election) Node() string {
	if m, ok := e.slot.Current(); ok {
		return m.Node()
	}
	return ""
}

// Lost returns a channel that is closed when our leadership is lost
// without Resign: the session expired, or the conn has had no session for
// a sixth of the session timeout, or (seen at Resign) our node was deleted.
// A leader's work loop selects on it. Resign does not close it. Each
// leadership has its own channel; between leaderships Lost returns the
// last one's, and nil (which never fires) before the first.
func (e *Election) Lost() <-chan struct{} { return e.slot.Lost() }

func (e *Election) emit(ev event.Event) {
	ev.Lock = e.dir
	e.obs.Emit(ev)
}
