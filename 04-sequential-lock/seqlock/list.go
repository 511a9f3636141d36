package seqlock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// Step 2 of the recipe: the queue as the lock directory lists it, in the
// order of the sequence numbers ZooKeeper appended, with the directory's
// pzxid (the fencing token of whoever the listing shows holding).

// sequenceOf reads the sequence number ZooKeeper appends to a sequential
// node's name: always its last ten digits (zkpath.SequenceOf). Children
// that do not end in <name><10 digits>, for one of the contenders' names
// (our own, and those given WithContenders), are ignored, as Curator and
// zk.Lock ignore them.
func (q *Queue) sequenceOf(name string) (int64, bool) {
	seq, ok := zkpath.SequenceOf(name)
	if !ok {
		return 0, false
	}
	before := name[:len(name)-zkpath.SequenceDigits]
	if !slices.ContainsFunc(q.opts.Contenders, func(c string) bool { return strings.HasSuffix(before, c) }) {
		return 0, false
	}
	return seq, true
}

// sorted turns a directory listing into the queue, lowest sequence first.
// The protection prefix is random, so only the sequence gives the order.
func (q *Queue) sorted(names []string) []Node {
	nodes := make([]Node, 0, len(names))
	for _, n := range names {
		if seq, ok := q.sequenceOf(n); ok {
			nodes = append(nodes, Node{n, seq})
		}
	}
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Seq, b.Seq) })
	return nodes
}

// Sorted is sorted for readers that list the directory themselves (07's
// Leader and Observe, which set a children watch): the queue as Acquire
// sees it, lowest sequence first, only this queue's contenders.
func (q *Queue) Sorted(names []string) []Node { return q.sorted(names) }

// list reads the queue. It also returns the directory's pzxid, the id of
// the last transaction that added or removed a child: the fencing token of
// whoever this listing shows holding (see Token).
func (q *Queue) list(ctx context.Context, session int64) ([]Node, int64, error) {
	q.emit(event.Request, "children", q.dir, "")
	names, stat, err := retry(ctx, q.conn, session, func() ([]string, *zk.Stat, error) { return q.conn.Children(q.dir) })
	if errors.Is(err, zk.ErrNoNode) {
		return nil, 0, nil // the directory itself is gone, so is our node
	}
	if err != nil {
		return nil, 0, fmt.Errorf("seqlock: list %s: %w", q.dir, q.s.explain(err))
	}
	return q.sorted(names), stat.Pzxid, nil
}
