package semaphore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestAnAcquireWhoseGateWasLostSaysSoAndKeepsNoLease: the gate is what
// makes counting and creating a lease one step; if our hold on it was lost
// meanwhile (here its node is deleted behind our back; a session cut off
// for d/6 does the same), another client may have counted at the same
// time. Acquire must not hand out that lease as if nothing happened: it
// returns the gate's error, ErrLost, and gives the lease back.
func TestAnAcquireWhoseGateWasLostSaysSoAndKeepsNoLease(t *testing.T) {
	dir := zktest.Root(t) + "/sem"
	ctx := zktest.Context(t)
	other := zktest.Connect(t)
	deleteGate := event.Observer(func(e event.Event) {
		if e.Kind == event.Acquired && strings.HasPrefix(e.Node, dir+"/locks/") {
			if err := other.Delete(e.Node, -1); err != nil {
				t.Errorf("delete the gate node %s: %v", e.Node, err)
			}
		}
	})
	s := newSemaphore(t, seqlocktest.Session(t), dir, 2, semaphore.WithLockOptions(seqlock.WithObserver(deleteGate)))
	lease, err := s.Acquire(ctx)
	if lease != nil {
		node := lease.Node()
		lease.Release(ctx)
		t.Fatalf("Acquire returned lease %s (err %v) though its gate was lost before it let go: the gate's Unlock error was dropped", node, err)
	}
	if !errors.Is(err, semaphore.ErrLost) {
		t.Fatalf("Acquire whose gate was lost: %v, want an error wrapping ErrLost", err)
	}
	if left := zktest.Tree(t, other, dir+"/leases"); len(left) > 0 {
		t.Fatalf("Acquire failed but left %s behind", zktest.Describe(left))
	}
}
