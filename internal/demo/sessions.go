package demo

import (
	"context"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// A Session is a chapter's session (zksession.Session: from 04 on, a
// *seqlock.Session), and NewSession its constructor.
type (
	Session               = zksession.Session
	NewSession[S Session] = zksession.NewSession[S]
)

// Dial opens a session with newSession that asks for -session and
// authenticates with ZK_AUTH, then opts; it is closed at the end of the run
// if the story has not closed it.
func Dial[S Session](ctx context.Context, e *Env, newSession NewSession[S], opts ...zksession.Option) (S, error) {
	return dialSession(ctx, e, nil, newSession, opts...)
}

// DialCuttable is Dial over a link of its own (zkproxy.Link, in this process), so the story can cut that
// client alone off (a partition, or a pause as the server sees one). The
// session is closed at the end of the run, its link restored first.
func DialCuttable[S Session](ctx context.Context, e *Env, newSession NewSession[S], opts ...zksession.Option) (S, *zkproxy.Link, error) {
	link := e.link()
	s, err := dialSession(ctx, e, link, newSession, opts...)
	return s, link, err
}

// DialOver is Dial over link (one DialCuttable returned): a client that
// opens its next session after its first ended keeps the link, so that
// the story can still cut it off.
func DialOver[S Session](ctx context.Context, e *Env, link *zkproxy.Link, newSession NewSession[S], opts ...zksession.Option) (S, error) {
	return dialSession(ctx, e, link, newSession, opts...)
}

// Ended says whether s has ended: the server expired it, or Close.
func Ended(s Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// dialSession dials over link when it is not nil.
func dialSession[S Session](ctx context.Context, e *Env, link *zkproxy.Link, newSession NewSession[S], opts ...zksession.Option) (S, error) {
	defaults := func(c *zksession.Config) {
		c.Timeout, c.Auth = e.Session, e.Auth
		if link != nil {
			c.Dialer = link.Dial
		}
	}
	s, err := newSession(ctx, e.Servers, append([]zksession.Option{defaults}, opts...)...)
	if err != nil {
		return s, err
	}
	e.mu.Lock()
	e.closers = append(e.closers, s.Close)
	if len(opts) == 0 && e.granted == nil {
		e.granted = s.Timeout
	}
	e.mu.Unlock()
	return s, nil
}

// Sessions is how a lock chapter from 04 on gives the demo its locks: a
// session per worker (OnSession builds it).
type Sessions struct {
	open           func(ctx context.Context, e *Env) (Session, error)
	lock, readLock func(s Session, path string, obs event.Observer) (Locker, error)
}

// OnSession ties a chapter's session constructor to its lock constructors
// (newReadLock: 05's readers; nil elsewhere).
func OnSession[S Session](newSession NewSession[S], newLock, newReadLock func(s S, path string, obs event.Observer) (Locker, error)) Sessions {
	wrap := func(f func(S, string, event.Observer) (Locker, error)) func(Session, string, event.Observer) (Locker, error) {
		if f == nil {
			return nil
		}
		// s came from open below, so it is an S.
		return func(s Session, path string, obs event.Observer) (Locker, error) { return f(s.(S), path, obs) }
	}
	return Sessions{
		open: func(ctx context.Context, e *Env) (Session, error) { return Dial(ctx, e, newSession) },
		lock: wrap(newLock), readLock: wrap(newReadLock),
	}
}
