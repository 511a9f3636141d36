package seqlock_test

import (
	"fmt"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// queueOf builds a queue of n nodes, lowest sequence first, named as the
// core names them.
func queueOf(n int) []seqlock.Node {
	q := make([]seqlock.Node, n)
	for i := range q {
		q[i] = seqlock.Node{Name: fmt.Sprintf("_c_%08x-lock-%010d", 0xa0+i, 40+i), Seq: int64(40 + i)}
	}
	return q
}

// TestFirst is the mutex's rule on paper: no server, no waiting, so it is
// the first thing the workshop checks. The lowest node holds; every other
// node watches the one just before its own, never the lowest (that would be
// chapter 03's herd: one release waking every waiter).
func TestFirst(t *testing.T) {
	q := queueOf(5)
	for _, c := range []struct {
		name      string
		queue     []seqlock.Node
		ours      int
		holds     bool
		watch     string
		wrongSays string
	}{
		{"alone in the queue, we hold", q[:1], 0, true, "", ""},
		{"first of five, we hold", q, 0, true, "", ""},
		{"second, we watch the holder", q, 1, false, q[0].Name, ""},
		{"third, we watch the second, not the holder", q, 2, false, q[1].Name,
			"every waiter watches the lowest node: one release would wake them all (the herd of chapter 03)"},
		{"last of five, we watch the fourth", q, 4, false, q[3].Name,
			"every waiter watches the lowest node: one release would wake them all (the herd of chapter 03)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			holds, watch := seqlock.First(c.queue, c.ours)
			if holds != c.holds || watch != c.watch {
				why := ""
				if watch == c.queue[0].Name && c.ours > 1 {
					why = ": " + c.wrongSays
				}
				t.Fatalf("First(queue of %d, ours %d) = (%v, %q), want (%v, %q)%s",
					len(c.queue), c.ours, holds, watch, c.holds, c.watch, why)
			}
		})
	}
}
