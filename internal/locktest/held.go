package locktest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// held is where several cases start: one session holds the lock, and
// another session has a lock object of its own on the same path.
type held struct {
	root, path       string
	holderConn, conn *zk.Conn
	holder, other    Locker
	ctx              context.Context
	// waiting is closed at other's first event.Waiting: its Lock has
	// queued behind the holder and is waiting for its turn.
	waiting chan struct{}
	// before is the tree under root while only the holder is in it.
	before map[string]bool
}

func holdOne(t *testing.T, impl Impl) held {
	t.Helper()
	root := zktest.Root(t)
	h := held{root: root, path: root + "/lock", ctx: zktest.Context(t), waiting: make(chan struct{})}
	var once sync.Once
	waits := func(e event.Event) {
		if e.Kind == event.Waiting {
			once.Do(func() { close(h.waiting) })
		}
	}
	h.holderConn, h.holder = contender(t, impl, h.path, zktest.Observe(t, "holder"))
	h.conn, h.other = contender(t, impl, h.path, zktest.Observe(t, "waiter", waits))
	if err := h.holder.Lock(h.ctx); err != nil {
		t.Fatalf("holder.Lock: %v", err)
	}
	h.before = map[string]bool{}
	for _, n := range zktest.Tree(t, h.conn, root) {
		h.before[n] = true
	}
	return h
}

// awaitWaiting returns once other's Lock (started with lockAsync) says it
// waits, and fails the test if that Lock returned first or never waited.
//
// The evidence is the waiter's event.Waiting. A lock that does not report
// its waits (09's skeleton leaves that to the learner) gets promptly to say
// so; after that, its node showing in the queue behind the holder's is
// taken as the waiter having queued.
func (h held) awaitWaiting(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case <-h.waiting:
		return
	case err := <-done:
		t.Fatalf("Lock returned %v while another session held the lock: it must wait", err)
	case <-time.After(promptly):
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(zktest.Patience)
	for {
		select {
		case <-h.waiting:
			return
		case err := <-done:
			t.Fatalf("Lock returned %v while another session held the lock: it must wait", err)
		case <-deadline:
			t.Fatalf("after %v: the waiter's Lock neither reported event.Waiting nor queued a node behind the holder's", zktest.Patience+promptly)
		case <-tick.C:
			for _, n := range zktest.Tree(t, h.conn, h.root) {
				if _, seq := zkpath.SequenceOf(n); !h.before[n] && seq {
					return
				}
			}
		}
	}
}

// lockAsync starts l.Lock(ctx) and returns where its result will come.
func lockAsync(ctx context.Context, l Locker) <-chan error {
	done := make(chan error, 1)
	go func() { done <- l.Lock(ctx) }()
	return done
}

// promptly bounds what must happen at once (a cancelled Lock returning, a
// TryLock on a held lock): far less than zktest.Patience, far more than a
// loaded machine needs.
const promptly = 5 * time.Second

// await waits, within zktest.Patience, for what a lockAsync returns.
func await(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(zktest.Patience):
		t.Fatalf("after %v: %s", zktest.Patience, what)
		return nil
	}
}
