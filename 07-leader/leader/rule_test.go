package leader

import (
	"fmt"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// TestSuccession is the election's rule on paper: no server, no waiting,
// the first thing the workshop checks. The lowest candidate leads; every
// other one watches the candidate just before its own, so a departure
// wakes exactly one.
func TestSuccession(t *testing.T) {
	q := make([]seqlock.Node, 4)
	for i := range q {
		q[i] = seqlock.Node{Name: fmt.Sprintf("_c_%08x-latch-%010d", 0xd0+i, 70+i), Seq: int64(70 + i)}
	}
	for ours, want := range []struct {
		leads bool
		watch string
	}{{true, ""}, {false, q[0].Name}, {false, q[1].Name}, {false, q[2].Name}} {
		t.Run(fmt.Sprintf("candidate %d of 4", ours+1), func(t *testing.T) {
			leads, watch := succession(q, ours)
			// A leader's watch is never used: only a follower's is checked.
			if leads != want.leads || (!leads && watch != want.watch) {
				why := ""
				if ours > 1 && watch == q[0].Name {
					why = ": every candidate watches the leader, so its departure wakes them all (chapter 03's herd, in an election)"
				}
				t.Fatalf("succession(queue of 4, ours %d) = (%v, %q), want (%v, %q)%s", ours, leads, watch, want.leads, want.watch, why)
			}
		})
	}
}
