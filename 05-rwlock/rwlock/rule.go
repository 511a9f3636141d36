// -tags workshop compiles the learner's rule_workshop.go instead of this file.
//go:build !workshop

package rwlock

import (
	"strings"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// This file is chapter 05's lesson: the rule that decides who holds a
// read-write lock. Everything else — creating our node, finding it again
// after a lost reply, listing, watching, deleting, noticing a lost hold —
// is chapter 04's queue core.
//
// Readers and writers queue up in one directory, one EPHEMERAL_SEQUENTIAL
// node each, named as Curator names them: …__READ__<sequence> or
// …__WRIT__<sequence>. Only the sequence orders the queue.
//
//   - A writer holds the lock when it is first; else it watches the node
//     just before its own, whatever that node is. That is chapter 04's
//     rule, seqlock.First.
//   - A reader holds the lock unless a writer is ahead of it: readers ahead
//     share with it. Else it watches only the last writer ahead of it.
//
// So a release wakes exactly who can move: when a writer leaves, the
// readers right behind it wake, all of them; when a reader leaves, only a
// writer right behind it wakes. A reader behind a waiting writer waits for
// that writer: the queue is fair, and readers cannot starve a writer.

// Curator's markers, so a Java InterProcessReadWriteLock shares the queue.
// Curator depends on both having the same length.
const (
	readMarker  = "__READ__"
	writeMarker = "__WRIT__"
)

// writeRule is the writer's rule: first in the queue, as in chapter 04.
var writeRule seqlock.Rule = seqlock.First

// readRule is the reader's rule. own is the name of the write node this
// RWMutex holds, "" if none: it does not block our own reader (that is a
// downgrade, see RWMutex).
func readRule(queue []seqlock.Node, ours int, own string) (holds bool, watch string) {
	for i := ours - 1; i >= 0; i-- {
		if writer(queue[i]) && queue[i].Name != own {
			return false, queue[i].Name
		}
	}
	return true, ""
}

// writer tells a writer's node from a reader's: the marker comes just
// before the 10-digit sequence.
func writer(n seqlock.Node) bool {
	return strings.HasSuffix(n.Name[:len(n.Name)-10], writeMarker)
}
