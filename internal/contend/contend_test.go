package contend_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// recorder is a lock that writes down what is done to it.
type recorder struct {
	calls   []string
	lockErr error
	// unlockCtxErr is the error Unlock's context had when it was called.
	unlockCtxErr error
}

func (r *recorder) Lock(ctx context.Context) error {
	r.calls = append(r.calls, "lock")
	return r.lockErr
}

func (r *recorder) Unlock(ctx context.Context) error {
	r.calls = append(r.calls, "unlock")
	r.unlockCtxErr = ctx.Err()
	return nil
}

func TestLoop(t *testing.T) {
	t.Run("each round locks, runs the critical section, unlocks", func(t *testing.T) {
		r := &recorder{}
		s, err := contend.Loop(context.Background(), r, 2, func(context.Context) error {
			r.calls = append(r.calls, "critical")
			return nil
		})
		if err != nil || s.Acquired != 2 || s.Released != 2 || len(s.Waits) != 2 {
			t.Fatalf("stats %+v, err %v", s, err)
		}
		if got := strings.Join(r.calls, " "); got != "lock critical unlock lock critical unlock" {
			t.Fatalf("calls: %s", got)
		}
	})
	t.Run("a failed critical section still unlocks, and stops the loop with the round in the error", func(t *testing.T) {
		r := &recorder{}
		boom := errors.New("boom")
		s, err := contend.Loop(context.Background(), r, 3, func(context.Context) error { return boom })
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "round 1") {
			t.Fatalf("err = %v", err)
		}
		if s.Released != 1 || strings.Join(r.calls, " ") != "lock unlock" {
			t.Fatalf("stats %+v, calls %v", s, r.calls)
		}
	})
	t.Run("a hold that ends with the context is released on a context that has not ended", func(t *testing.T) {
		r := &recorder{}
		ctx, cancel := context.WithCancel(context.Background())
		_, err := contend.Loop(ctx, r, 5, func(ctx context.Context) error {
			cancel() // Ctrl-C while the lock is held
			return contend.Hold(time.Hour)(ctx)
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if strings.Join(r.calls, " ") != "lock unlock" || r.unlockCtxErr != nil {
			t.Fatalf("calls %v; Unlock's context: %v", r.calls, r.unlockCtxErr)
		}
	})
	t.Run("a failed Lock stops the loop without an Unlock", func(t *testing.T) {
		r := &recorder{lockErr: errors.New("no")}
		s, err := contend.Loop(context.Background(), r, 3, func(context.Context) error { return nil })
		if err == nil || s.Acquired != 0 || strings.Join(r.calls, " ") != "lock" {
			t.Fatalf("stats %+v, err %v, calls %v", s, err, r.calls)
		}
	})
	t.Run("without a lock the critical section runs unguarded", func(t *testing.T) {
		n := 0
		s, err := contend.Loop(context.Background(), nil, 3, func(context.Context) error { n++; return nil })
		if err != nil || n != 3 || s.Acquired != 0 {
			t.Fatalf("ran %d times, stats %+v, err %v", n, s, err)
		}
	})
}

func TestIncrement(t *testing.T) {
	root := zktest.Root(t)
	conn := zktest.Connect(t)
	counter := root + "/counter"
	if _, err := conn.Create(counter, []byte("41"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	t.Run("reads, thinks, writes back one more", func(t *testing.T) {
		if v, err := contend.Increment(zktest.Context(t), conn, counter, time.Millisecond); err != nil || v != 41 {
			t.Fatalf("read %d, err %v", v, err)
		}
		if v, err := contend.ReadCounter(conn, counter); err != nil || v != 42 {
			t.Fatalf("counter %d, err %v", v, err)
		}
	})
	t.Run("a context that ends while it thinks leaves the counter as it was", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := contend.Increment(ctx, conn, counter, time.Hour); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if v, _ := contend.ReadCounter(conn, counter); v != 42 {
			t.Fatalf("counter %d, want 42", v)
		}
	})
	t.Run("a counter that is not a number is a clear error", func(t *testing.T) {
		conn.Set(counter, []byte("forty"), -1)
		if _, err := contend.ReadCounter(conn, counter); err == nil || !strings.Contains(err.Error(), "not a number") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestOccupancyKeepsTheMostThatWereEverInsideAtOnce(t *testing.T) {
	var o contend.Occupancy
	if n := o.Enter(); n != 1 {
		t.Fatalf("first Enter = %d, want 1", n)
	}
	o.Enter()
	o.Leave()
	o.Enter()
	o.Leave()
	o.Leave()
	if o.Inside() != 0 || o.Peak() != 2 {
		t.Fatalf("inside %d, peak %d: want 0 and 2", o.Inside(), o.Peak())
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.Enter()
		}()
	}
	wg.Wait()
	if o.Inside() != 50 || o.Peak() != 50 {
		t.Fatalf("after 50 concurrent Enters: inside %d, peak %d, want 50 and 50", o.Inside(), o.Peak())
	}
}
