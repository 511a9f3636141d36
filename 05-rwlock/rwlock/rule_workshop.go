//go:build workshop

// Workshop exercise for chapter 05 (make exercise CH=05). This file takes
// the place of 05-rwlock/rwlock/rule.go; the rest of the package (the
// RWMutex and its two sides, downgrade and upgrade) and chapter 04's queue
// core are the reference's. Write the two TODO(workshop) rules, then run
// the chapter's own tests against them.
package rwlock

import (
	"strings"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// Readers and writers queue up in one directory, one EPHEMERAL_SEQUENTIAL
// node each, named as Curator names them: …__READ__<sequence> or
// …__WRIT__<sequence>. Only the sequence orders the queue. A Rule gets the
// queue, lowest sequence first, and our index in it, and says whether we
// hold the lock — and if not, the name of the one node we watch.
//
//   - A writer holds the lock when it is first; else it watches the node
//     just before its own, whatever that node is.
//   - A reader holds the lock unless a writer is ahead of it (readers ahead
//     share with it); else it watches only the last writer ahead of it.

// Curator's markers, so a Java InterProcessReadWriteLock shares the queue.
// Curator depends on both having the same length.
const (
	readMarker  = "__READ__"
	writeMarker = "__WRIT__"
)

// writeRule is the writer's rule. (Chapter 04 has written it already.)
var writeRule seqlock.Rule = func(queue []seqlock.Node, ours int) (bool, string) {
	panic("TODO(workshop): writeRule — a writer holds alone, and waits for exactly one node (chapter 04 has a rule for this)")
}

// readRule is the reader's rule. own is the name of the write node this
// RWMutex holds, "" if none: it does not block our own reader (that is a
// downgrade).
func readRule(queue []seqlock.Node, ours int, own string) (holds bool, watch string) {
	panic("TODO(workshop): readRule — a reader holds unless a writer other than our own is ahead; else it waits for the one writer whose going can let it in")
}

// writer tells a writer's node from a reader's: the marker comes just
// before the 10-digit sequence.
func writer(n seqlock.Node) bool {
	return strings.HasSuffix(n.Name[:len(n.Name)-10], writeMarker)
}
