package seqlock_test

import (
	"context"
	"runtime/metrics"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// goroutinesCreated is the Go runtime's count of goroutines started so far
// in this process.
func goroutinesCreated() uint64 {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

func TestWhatAnAcquisitionCosts(t *testing.T) {
	t.Run("with a context that cannot end, Lock and Unlock start no goroutine, and holding costs none", func(t *testing.T) {
		// A request runs in a goroutine of its own only so that a ctx that
		// ends can stop the wait (internal/zkcall); context.Background()
		// never ends. A hold learns of its loss from its Session's
		// signals, not from a goroutine of its own. (The count is the
		// whole process's: fewer than one per acquisition leaves room for
		// a stray goroutine of the test harness, not for one per Lock.)
		s := seqlocktest.Session(t)
		m := newMutex(t, s, zktest.Root(t)+"/lock")
		ctx := context.Background()
		if err := m.Lock(ctx); err != nil { // the first Lock makes the directory
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		const rounds = 20
		before := goroutinesCreated()
		for range rounds {
			if err := m.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n := goroutinesCreated() - before; n >= rounds {
			t.Fatalf("%d acquisitions started %d goroutines, want none of their own", rounds, n)
		}
	})
	t.Run("with a context that can end, Lock costs one goroutine, not one per request", func(t *testing.T) {
		// Lock runs the whole acquisition in one goroutine and waits for it
		// or for ctx (Handle.Acquire); Unlock sends its delete in one. An
		// acquisition sends three requests or more, so one goroutine per
		// request would be six per Lock and Unlock; we allow under three.
		s := seqlocktest.Session(t)
		m := newMutex(t, s, zktest.Root(t)+"/lock")
		ctx := zktest.Context(t)
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		const rounds = 20
		before := goroutinesCreated()
		for range rounds {
			if err := m.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n := goroutinesCreated() - before; n >= 3*rounds {
			t.Fatalf("%d acquisitions started %d goroutines, want about 2 each", rounds, n)
		}
	})
}
