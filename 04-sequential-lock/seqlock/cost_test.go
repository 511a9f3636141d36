package seqlock_test

import (
	"context"
	"errors"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
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
		const rounds = 20
		if n := goroutinesFor(t, ctx, m, rounds); n >= rounds {
			t.Fatalf("%d acquisitions started %d goroutines, want none of their own", rounds, n)
		}
	})
	t.Run("with a context that can end, each request costs one short goroutine, and holding costs none", func(t *testing.T) {
		// A request whose ctx can end runs on a goroutine of its own so
		// that the caller can stop waiting (internal/zkcall); it ends with
		// the request. An uncontended Lock and Unlock send three requests
		// (create, children, delete): three goroutines, and no more.
		s := seqlocktest.Session(t)
		m := newMutex(t, s, zktest.Root(t)+"/lock")
		ctx := zktest.Context(t)
		const rounds = 20
		if n := goroutinesFor(t, ctx, m, rounds); n >= 4*rounds {
			t.Fatalf("%d acquisitions started %d goroutines, want three each (one per request)", rounds, n)
		}
	})
}

// goroutinesFor counts the goroutines the process started during rounds
// of m.Lock and m.Unlock with ctx, after one round that makes the
// directory.
func goroutinesFor(t *testing.T, ctx context.Context, m *seqlock.Mutex, rounds int) uint64 {
	t.Helper()
	round := func() {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	round()
	before := goroutinesCreated()
	for range rounds {
		round()
	}
	n := goroutinesCreated() - before
	t.Logf("%d acquisitions started %d goroutines", rounds, n)
	return n
}

func TestALockCutOffFromTheServerStillHonoursItsContext(t *testing.T) {
	t.Run("a Lock whose context ends while its create is stuck in a partition returns within the clean-up bound", func(t *testing.T) {
		// The create runs on a goroutine and cannot come back while the link
		// is cut: Lock stops waiting for it (after 5 s at most, the core's
		// clean-up bound) and returns ctx's error; whatever the create did
		// is undone in the background when its answer comes.
		root := zktest.Root(t)
		dir := root + "/lock"
		hs := seqlocktest.Session(t)
		holder := newMutex(t, hs, dir)
		ctx := zktest.Context(t)
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		cs, proxy := seqlocktest.SessionViaProxy(t, 4*time.Second)
		knowDir(t, cs, dir)
		m := newMutex(t, cs, dir)
		if err := proxy.Cut(); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- m.Lock(short) }()
		err := zktest.Await(t, done, "Lock never returned while cut off")
		took := time.Since(start)
		t.Logf("Lock returned %v after it began", took.Round(time.Millisecond))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock while cut off = %v, want DeadlineExceeded", err)
		}
		if took > 300*time.Millisecond+5*time.Second+3*time.Second {
			t.Fatalf("Lock returned %v after it began, past its deadline (300 ms) and the clean-up bound (5 s)", took)
		}
		proxy.Restore()
		// Whatever the cut-off create left, the background clean-up or the
		// end of that session removes it: the queue is the holder's again.
		if ps := waitQueue(t, hs.Conn(), dir, 1); ps[0].Node != holder.Node() {
			t.Fatalf("queue = %v, want only the holder", ps)
		}
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
