package seqlock_test

import (
	"fmt"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestAWaiterWhoseNodeIsDeletedQueuesUpAgain: somebody else (an operator
// with zkCli, a cleanup job) deletes a waiter's node. When the waiter wakes
// and lists the queue, its node is not in it: it must not apply the rule to
// a place it does not have, but queue up again with a new node, and take the
// lock once the holder lets go.
func TestAWaiterWhoseNodeIsDeletedQueuesUpAgain(t *testing.T) {
	root := zktest.Root(t)
	dir := root + "/lock"
	ctx := zktest.Context(t)
	_, conn := seqlocktest.SessionConn(t)
	holder := newMutex(t, seqlocktest.Session(t), dir)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	var tally event.Tally
	waiter := newMutex(t, seqlocktest.Session(t), dir, seqlock.WithObserver(zktest.Observe(t, "waiter", tally.Observe)))
	done := make(chan error, 1)
	go func() { done <- waiter.Lock(ctx) }()
	zktest.Until(t, zktest.Patience, "the waiter to queue behind the holder (event.Waiting)", func() (bool, string) {
		select {
		case err := <-done:
			return false, fmt.Sprintf("the waiter's Lock returned %v while the holder held the lock", err)
		default:
		}
		return tally.Count(event.Waiting) == 1, ""
	})

	ps := waitQueue(t, conn, dir, 2)
	deleted := ps[1].Node
	if deleted == holder.Node() {
		t.Fatalf("the holder's node %s is not first in the queue", holder.Node())
	}
	if err := conn.Delete(deleted, -1); err != nil {
		t.Fatalf("delete the waiter's node %s: %v", deleted, err)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := zktest.Await(t, done, "the waiter's Lock never returned after the holder let go"); err != nil {
		t.Fatalf("waiter.Lock = %v: its node was deleted by somebody else, and it should have queued up again", err)
	}
	if waiter.Node() == deleted {
		t.Fatalf("the waiter holds with its deleted node %s", deleted)
	}
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
