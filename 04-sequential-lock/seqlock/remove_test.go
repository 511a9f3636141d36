package seqlock_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestADeleteThatCannotSucceedIsNotRetried: ZooKeeper checks DELETE on the
// parent, so a lock directory whose ACL lets anyone create and list but not
// delete takes our node and keeps it. Sending the delete again cannot
// change that: the lock must return the server's answer (ErrNoAuth) after
// one try, not retry in the background for a minute while its caller
// waits out the clean-up bound.
func TestADeleteThatCannotSucceedIsNotRetried(t *testing.T) {
	t.Run("Unlock", func(t *testing.T) {
		dir, ctx := noDeleteDir(t)
		deletes, retrying := countDeletes()
		m := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(deletes))
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		answersAtOnce(t, "Unlock", retrying, func() error { return m.Unlock(ctx) })
	})
	t.Run("a Lock whose ctx ends while it waits", func(t *testing.T) {
		dir, ctx := noDeleteDir(t)
		if err := newMutex(t, seqlocktest.Session(t), dir).Lock(ctx); err != nil {
			t.Fatal(err) // the holder, until its Session closes
		}
		deletes, retrying := countDeletes()
		waiting := make(chan struct{})
		obs := event.Tee(deletes, func(e event.Event) {
			if e.Kind == event.Waiting {
				close(waiting)
			}
		})
		m := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(obs))
		lctx, cancel := context.WithCancel(ctx)
		go func() { <-waiting; cancel() }()
		answersAtOnce(t, "a cancelled Lock", retrying, func() error { return m.Lock(lctx) })
	})
}

// noDeleteDir makes a lock directory anyone may create nodes in and list,
// but not delete from.
func noDeleteDir(t *testing.T) (string, context.Context) {
	t.Helper()
	dir := zktest.Root(t) + "/no-delete"
	admin := zktest.Connect(t)
	if _, err := admin.Create(dir, nil, 0, zk.WorldACL(zk.PermRead|zk.PermCreate|zk.PermAdmin)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.SetACL(dir, zk.WorldACL(zk.PermAll), -1) }) // before the root's clean-up deletes it
	return dir, zktest.Context(t)
}

// countDeletes is an observer whose retrying channel closes at the second
// delete request: for one node, evidence enough of a retry.
func countDeletes() (event.Observer, <-chan struct{}) {
	var n atomic.Int64
	retrying := make(chan struct{})
	return func(e event.Event) {
		if e.Kind == event.Request && e.Op == "delete" && n.Add(1) == 2 {
			close(retrying)
		}
	}, retrying
}

// answersAtOnce runs call, which must fail with ErrNoAuth after one delete.
func answersAtOnce(t *testing.T, what string, retrying <-chan struct{}, call func() error) {
	t.Helper()
	got := make(chan error, 1)
	start := time.Now()
	go func() { got <- call() }()
	select {
	case err := <-got:
		if !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("%s, whose node it may not delete: %v, want an error wrapping zk.ErrNoAuth", what, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v to say it may not delete its node, want about one round trip", what, d.Round(time.Millisecond))
		}
		t.Logf("%s: %v", what, err)
	case <-retrying:
		t.Fatalf("%s sent the delete of its node again after ErrNoAuth: a delete that cannot succeed is retried", what)
	}
}
