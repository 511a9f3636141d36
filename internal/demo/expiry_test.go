package demo

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// A worker's Session is one ZooKeeper session. When the server expires it
// in the middle of the run, the worker opens a new one and does the rounds
// it has left on a new lock: the run ends, and the count is exact.
func TestAWorkerWhoseSessionExpiresOpensANewOneAndFinishesItsRounds(t *testing.T) {
	// The first session dialled goes through a proxy, and its first Lock
	// waits until the server has expired it for real.
	var once sync.Once
	var doomed *seqlock.Session
	var proxy *zkproxy.Proxy
	newSession := func(ctx context.Context, servers []string, opts ...zksession.Option) (*seqlock.Session, error) {
		first := false
		once.Do(func() { first = true })
		if !first {
			return seqlock.NewSession(ctx, servers, opts...)
		}
		p, err := zkproxy.New(servers[0])
		if err != nil {
			return nil, err
		}
		t.Cleanup(p.Close)
		s, err := seqlock.NewSession(ctx, []string{p.Addr()}, opts...)
		doomed, proxy = s, p
		return s, err
	}
	expired := make(chan error, 1)
	ch := Chapter{Name: "00-test", Title: "a session expires under a worker",
		Sessions: OnSession(newSession, func(s *seqlock.Session, path string, obs event.Observer) (Locker, error) {
			m, err := seqlock.New(s, path, seqlock.WithObserver(obs))
			if s != doomed {
				return m, err
			}
			return expiringLock{m, func(ctx context.Context) {
				expired <- zksession.Expire(ctx, proxy, s.Conn(), s.Timeout())
			}}, err
		}, nil)}

	lo, _ := zktest.SessionBounds(t) // the shortest session the server grants: the quickest expiry
	out, res, err := execute(t, ch, "-workers", "2", "-rounds", "2", "-hold", "1ms", "-session", lo.String())
	t.Log("\n" + out)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-expired; err != nil {
		t.Fatalf("the server never expired the session: %v", err)
	}
	if res.Final != 4 || res.Expected != 4 {
		t.Fatalf("counter=%d expected=%d, want 4 and 4: every round done once", res.Final, res.Expected)
	}
	said := regexp.MustCompile(`(worker-\d) lost its session \(round 1: lock: seqlock: session expired\); it opens a new one and goes on, 0 of 2 rounds done`).FindStringSubmatch(out)
	if said == nil {
		t.Fatalf("the timeline never said that a worker lost its session and went on:\n%s", out)
	}
	after := out[strings.Index(out, said[0]):]
	if n := strings.Count(after, said[1]+" acquired"); n != 2 {
		t.Fatalf("%s acquired %d times on its new session, want its 2 rounds:\n%s", said[1], n, after)
	}
}

// expiringLock is a lock whose Lock waits, before it locks, until expire
// has had the server expire its session. (The worker calls it once: the
// Lock fails, and its next lock is on a new session.)
type expiringLock struct {
	*seqlock.Mutex
	expire func(ctx context.Context)
}

func (l expiringLock) Lock(ctx context.Context) error {
	l.expire(ctx)
	return l.Mutex.Lock(ctx)
}

// Only a session's end makes a worker open a new one: any other error ends
// the run, and says what it was.
func TestAWorkerWhoseLockFailsOnALiveSessionStops(t *testing.T) {
	boom := errors.New("the lock broke")
	ch := Chapter{Name: "00-test", Title: "a lock that fails",
		Sessions: OnSession(seqlock.NewSession, func(s *seqlock.Session, path string, obs event.Observer) (Locker, error) {
			return failingLock{boom}, nil
		}, nil)}
	out, _, err := execute(t, ch, "-workers", "1", "-rounds", "2")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the lock's error", err)
	}
	if strings.Contains(out, "lost its session") {
		t.Fatalf("the worker opened a new session on a live one's error:\n%s", out)
	}
}

type failingLock struct{ err error }

func (l failingLock) Lock(context.Context) error   { return l.err }
func (l failingLock) Unlock(context.Context) error { return nil }
