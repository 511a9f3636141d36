package semaphore_test

import (
	"fmt"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
)

// TestLeasesRule is the lease queue's rule on paper: no server, no
// waiting, the first thing the workshop checks. The first n nodes hold a
// lease; a later node watches the one n places ahead of it, whose going
// frees the lease it can take.
func TestLeasesRule(t *testing.T) {
	q := make([]seqlock.Node, 6)
	for i := range q {
		q[i] = seqlock.Node{Name: fmt.Sprintf("_c_%08x-lease-%010d", 0xc0+i, 60+i), Seq: int64(60 + i)}
	}
	for _, c := range []struct {
		n, ours int
		holds   bool
		watch   int // -1: none
	}{
		{1, 0, true, -1}, {1, 1, false, 0}, {1, 5, false, 4},
		{2, 0, true, -1}, {2, 1, true, -1}, {2, 2, false, 0}, {2, 3, false, 1}, {2, 5, false, 3},
		{3, 2, true, -1}, {3, 3, false, 0}, {3, 5, false, 2},
	} {
		t.Run(fmt.Sprintf("n=%d ours=%d", c.n, c.ours), func(t *testing.T) {
			holds, watch := semaphore.Leases(c.n)(q, c.ours)
			want := ""
			if c.watch >= 0 {
				want = q[c.watch].Name
			}
			if holds != c.holds || watch != want {
				why := ""
				switch {
				case c.n > 1 && !c.holds && watch == q[c.ours-1].Name:
					why = ": it watches the node just before its own, like a mutex; with n leases the one that frees ours is n places ahead"
				case c.holds && !holds:
					why = fmt.Sprintf(": the first %d nodes all hold a lease", c.n)
				}
				t.Fatalf("Leases(%d) at index %d = (%v, %q), want (%v, %q)%s", c.n, c.ours, holds, watch, c.holds, want, why)
			}
		})
	}
}
