package leader_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestObserveEndsWithItsSession: once the Session is over, nothing Observe
// could report will ever come, so its channel closes and it sends no more
// requests. (It used to close only on Close, and otherwise retry the
// closed conn every 100 ms until its ctx ended.)
func TestObserveEndsWithItsSession(t *testing.T) {
	t.Run("the session is closed while Observe waits", func(t *testing.T) {
		s := seqlocktest.Session(t)
		observeUntil(t, s, true, s.Close)
	})
	t.Run("the session expires while Observe waits", func(t *testing.T) {
		s, proxy := seqlocktest.SessionViaProxy(t, 2*time.Second)
		observeUntil(t, s, true, func() { zktest.Expire(t, s.Conn(), proxy) })
	})
	t.Run("the session's conn is closed while Observe waits", func(t *testing.T) {
		s := seqlocktest.Session(t)
		observeUntil(t, s, true, s.Conn().Close)
	})
	t.Run("Observe is called on a session already closed", func(t *testing.T) {
		s := seqlocktest.Session(t)
		observeUntil(t, s, false, s.Close)
	})
	t.Run("Observe is called on a session whose conn was closed behind its back", func(t *testing.T) {
		s := seqlocktest.Session(t)
		observeUntil(t, s, false, s.Conn().Close)
	})
}

// observeUntil observes an election that alpha leads, on s, and calls end
// (which ends s) after Observe has reported alpha when first is true, or
// before Observe is called when it is false. Observe's channel must then
// close without another report, and without a request loop.
func observeUntil(t *testing.T, s *seqlock.Session, first bool, end func()) {
	t.Helper()
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t) // lasts the whole test: only the Session ends
	leading := newElection(t, seqlocktest.Session(t), dir)
	if err := leading.Campaign(ctx, "alpha"); err != nil {
		t.Fatal(err)
	}
	// Once the session is over, a third request is evidence of a loop.
	var ended atomic.Bool
	var requests atomic.Int64
	looping := make(chan struct{})
	count := event.Observer(func(e event.Event) {
		if e.Kind == event.Request && ended.Load() && requests.Add(1) == 3 {
			close(looping)
		}
	})
	observer := newElection(t, s, dir, seqlock.WithObserver(count))
	if !first {
		end()
		ended.Store(true)
	}
	changes := observer.Observe(ctx)
	if first {
		select {
		case l := <-changes:
			if l.Value != "alpha" {
				t.Fatalf("Observe reported %q first, want alpha", l.Value)
			}
		case <-time.After(reportWithin):
			t.Fatalf("Observe reported nothing within %v while alpha leads", reportWithin)
		}
		end()
		ended.Store(true)
	}
	select {
	case l, ok := <-changes:
		if ok {
			t.Fatalf("Observe reported %+v after its Session was over", l)
		}
	case <-looping:
		t.Fatal("Observe sent 3 requests after its Session was over, its channel still open: it retries a dead conn until ctx ends")
	case <-time.After(zktest.Patience):
		t.Fatalf("Observe's channel stayed open %v after its Session was over", zktest.Patience)
	}
}
