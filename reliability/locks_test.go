package reliability_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/06-reentrant/reentrant"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/event"
)

// holder is what every test needs from a lock, whatever its chapter: take
// it, give it back, its fencing token, a channel that closes when the lock
// is lost behind the holder's back, and the holder's own lock node (for a
// ZooKeeper multi that checks it still exists).
type holder interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
	Token() int64
	Lost() <-chan struct{}
	Node(ctx context.Context) (string, error)
}

// kind is one lock chapter under test.
type kind struct {
	name string
	// new returns a holder on dir, on s. The Session knows the timeout
	// the server granted, so the holder can tell it lost the lock while cut
	// off. obs sees every event.
	new func(s *seqlock.Session, dir string, obs event.Observer) (holder, error)
}

// kinds are the locks every test runs against.
var kinds = []kind{
	{"04-seqlock", newSeqlock},
	{"05-rwlock", newRWLock},
	{"06-reentrant", newReentrant},
	{"07-leader", newLeader},
}

func kindNamed(name string) (kind, error) {
	for _, k := range kinds {
		if k.name == name {
			return k, nil
		}
	}
	return kind{}, fmt.Errorf("no lock kind %q", name)
}

// --- 04: seqlock.Mutex has everything already.

type seqHolder struct{ *seqlock.Mutex }

func (h seqHolder) Node(context.Context) (string, error) { return h.Mutex.Node(), nil }

func newSeqlock(s *seqlock.Session, dir string, obs event.Observer) (holder, error) {
	m, err := seqlock.New(s, dir, seqlock.WithObserver(obs))
	return seqHolder{m}, err
}

// --- 06: reentrant.Mutex, taken once (depth 1).

type reentrantHolder struct{ *reentrant.Mutex }

func (h reentrantHolder) Node(context.Context) (string, error) { return h.Mutex.Node(), nil }

func newReentrant(s *seqlock.Session, dir string, obs event.Observer) (holder, error) {
	m, err := reentrant.New(s, dir, seqlock.WithObserver(obs))
	return reentrantHolder{m}, err
}

// --- 05: the write side of an rwlock.RWMutex (the exclusive one).

type rwHolder struct {
	*rwlock.Side
	conn *zk.Conn
	dir  string
}

func (h rwHolder) Node(context.Context) (string, error) { return h.Side.Node(), nil }

func newRWLock(s *seqlock.Session, dir string, obs event.Observer) (holder, error) {
	m, err := rwlock.New(s, dir, seqlock.WithObserver(obs))
	if err != nil {
		return nil, err
	}
	return rwHolder{m.Write(), s.Conn(), dir}, nil
}

// --- 07: an Election; leading is holding, the leader's token is the token.

type leaderHolder struct{ e *leader.Election }

// Lock campaigns until we lead; on a Session that has ended it returns
// seqlock.ErrSessionExpired at once, as every kind's Lock does.
func (h leaderHolder) Lock(ctx context.Context) error   { return h.e.Campaign(ctx, "reliability") }
func (h leaderHolder) Unlock(ctx context.Context) error { return h.e.Resign(ctx) }
func (h leaderHolder) Token() int64                     { return h.e.Token() }
func (h leaderHolder) Lost() <-chan struct{}            { return h.e.Lost() }
func (h leaderHolder) Node(context.Context) (string, error) {
	if n := h.e.Node(); n != "" {
		return n, nil
	}
	return "", errors.New("not leading")
}

func newLeader(s *seqlock.Session, dir string, obs event.Observer) (holder, error) {
	e, err := leader.New(s, dir, seqlock.WithObserver(obs))
	if err != nil {
		return nil, err
	}
	return leaderHolder{e}, nil
}
