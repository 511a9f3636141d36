package zkcall

import (
	"context"
	"errors"
	"runtime/metrics"
	"testing"
	"time"
)

func TestDoDoesNotSendWhenCtxHasEnded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sent := false
	_, err := Do(ctx, func() (int, error) { sent = true; return 1, nil })
	if !errors.Is(err, context.Canceled) || sent {
		t.Fatalf("Do after cancel: err %v, sent %v; want context.Canceled and nothing sent", err, sent)
	}
}

func TestDoStopsWaitingWhenCtxEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	_, err := Do(ctx, func() (int, error) { close(started); <-release; return 1, nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do while the call hangs: %v, want context.Canceled", err)
	}
}

func TestDoReturnsTheCallsResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	boom := errors.New("boom")
	if v, err := Do(ctx, func() (int, error) { return 7, boom }); v != 7 || err != boom {
		t.Fatalf("Do = %d, %v; want 7, boom", v, err)
	}
	if v, err := Do(context.Background(), func() (int, error) { return 8, nil }); v != 8 || err != nil {
		t.Fatalf("Do with a ctx that never ends = %d, %v; want 8, nil", v, err)
	}
}

func TestSendSendsAnywayAndHandsTheLateResultOver(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release := make(chan struct{})
	late := make(chan int, 1)
	_, err := Send(ctx, func() (int, error) { <-release; return 9, nil }, func(v int, err error) { late <- v })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Send after cancel: %v, want context.Canceled", err)
	}
	close(release)
	select {
	case v := <-late:
		if v != 9 {
			t.Fatalf("late result %d, want 9", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the late result never came")
	}
}

func TestACtxThatNeverEndsCostsNoGoroutine(t *testing.T) {
	before := goroutinesCreated()
	for range 100 {
		Do(context.Background(), func() (int, error) { return 1, nil })
		Send(context.Background(), func() (int, error) { return 1, nil }, func(int, error) {})
	}
	if n := goroutinesCreated() - before; n != 0 {
		t.Fatalf("200 calls with context.Background() started %d goroutines, want 0", n)
	}
}

func TestARequestWhoseCtxCanEndCostsOneGoroutine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := goroutinesCreated()
	for i := range 100 {
		if v, err := Do(ctx, func() (int, error) { return i, nil }); v != i || err != nil {
			t.Fatalf("Do = %d, %v; want %d, nil", v, err, i)
		}
	}
	// One goroutine per request, so that the caller can stop waiting; it
	// ends with its request (zktest's leak check would say otherwise).
	if n := goroutinesCreated() - before; n < 100 || n > 110 {
		t.Fatalf("100 requests one after another started %d goroutines, want one each", n)
	}
}

func goroutinesCreated() uint64 {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}
