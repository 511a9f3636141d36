package rwlock

import (
	"fmt"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// queueOf builds a queue from a pattern such as "RRWR" (R a reader's node,
// W a writer's), lowest sequence first, named as Curator names them.
func queueOf(pattern string) []seqlock.Node {
	q := make([]seqlock.Node, len(pattern))
	for i, c := range pattern {
		marker := readMarker
		if c == 'W' {
			marker = writeMarker
		}
		q[i] = seqlock.Node{Name: fmt.Sprintf("_c_%08x-%s%010d", 0xb0+i, marker, 20+i), Seq: int64(20 + i)}
	}
	return q
}

// TestRules is the chapter's two rules on paper: no server, no waiting,
// the first thing the workshop checks. Each case is a queue, our place in
// it, and what the rule must say.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		pattern string
		ours    int
		writer  bool
		own     int // index of our own write node for a downgrade, -1 if none
		holds   bool
		watch   int // index of the node to watch, -1 if none
	}{
		{"a reader behind readers holds with them", "RRR", 2, false, -1, true, -1},
		{"a reader behind a writer watches that writer", "RWR", 2, false, -1, false, 1},
		{"a reader behind a writer and readers watches the writer, not the reader before it", "WRRR", 3, false, -1, false, 0},
		{"a reader behind two writers watches the last one", "WRWRR", 4, false, -1, false, 2},
		{"a reader behind our own write node holds (a downgrade)", "WR", 1, false, 0, true, -1},
		{"a reader behind our own write node and another writer watches the other", "WWR", 2, false, 0, false, 1},
		{"a writer first holds", "WRR", 0, true, -1, true, -1},
		{"a writer behind readers watches the node just before it", "RRW", 2, true, -1, false, 1},
		{"a writer behind a writer watches it", "RWW", 2, true, -1, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := queueOf(c.pattern)
			var holds bool
			var watch string
			if c.writer {
				holds, watch = writeRule(q, c.ours)
			} else {
				own := ""
				if c.own >= 0 {
					own = q[c.own].Name
				}
				holds, watch = readRule(q, c.ours, own)
			}
			want := ""
			if c.watch >= 0 {
				want = q[c.watch].Name
			}
			if holds != c.holds || watch != want {
				side := "readRule"
				if c.writer {
					side = "writeRule"
				}
				msg := fmt.Sprintf("%s on %s, ours %d = (%v, %q), want (%v, %q)", side, c.pattern, c.ours, holds, watch, c.holds, want)
				if why := diagnose(q, c.ours, c.writer, holds, watch, c.own); why != "" {
					msg += ": " + why
				}
				t.Fatal(msg)
			}
		})
	}
}

// diagnose names, in the lesson's words, what a wrong answer of the reader's
// rule does.
func diagnose(q []seqlock.Node, ours int, isWriter, holds bool, watch string, own int) string {
	if isWriter || holds {
		return ""
	}
	if own >= 0 && watch == q[own].Name {
		return "our own write node blocks our reader: a downgrade would wait for itself"
	}
	if ours > 0 && watch == q[ours-1].Name && !writer(q[ours-1]) {
		for i := ours - 1; i >= 0; i-- {
			if writer(q[i]) && i != own {
				return "a reader behind a writer watches the node just before it, a reader, not the last writer ahead: when that writer goes, the readers behind it come in one at a time instead of together"
			}
		}
		return "a reader waits for the node just before it, like a writer: readers can never share"
	}
	for i := ours - 1; i >= 0; i-- {
		if writer(q[i]) {
			for j := i - 1; j >= 0; j-- {
				if writer(q[j]) && watch == q[j].Name {
					return "a reader watches the writer farthest ahead of it instead of the nearest: it wakes when that one goes, for nothing"
				}
			}
			break
		}
	}
	return ""
}
