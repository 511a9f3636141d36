package seqlock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// This file and the few next to it are the queue core every later chapter
// is built on, in the spirit of Curator's LockInternals. Acquire, below,
// joins the queue (join.go creates our node and finds it again if the
// reply was lost; dir.go makes the container directory when it is
// missing), then waits for its turn (waitTurn, acquire.go: the lesson),
// which lists the queue (list.go), waits on one node (wait.go) and holds
// (hold.go); remove.go deletes a node of ours we no longer want. What the
// core does not know is the rule that decides who holds the lock: that is
// a Rule, like Curator's LockInternalsDriver.getsTheLock.

// Node is one contender in the queue, as a Rule sees it.
type Node struct {
	Name string // its name in the lock directory: _c_<uuid>-lock-0000000007
	Seq  int64  // the sequence number ZooKeeper appended
}

// A Rule looks at the queue, lowest sequence first, and at our place in
// it, and says whether we hold the lock; if not, it names the one node we
// wait for. 04's mutex: we hold at index 0, else we watch index-1 (First).
// 05's reader: we hold unless a writer is ahead, else we watch the last
// writer ahead. A semaphore with n leases: hold below n, else watch ours-n.
type Rule func(queue []Node, ours int) (holds bool, watch string)

// Queue is one contender's access to a lock directory: the engine of every
// lockstep lock. It keeps no state between acquisitions; each Acquire
// returns a Hold.
type Queue struct {
	s    *Session
	conn *zk.Conn // s.Conn()
	dir  string
	name string // what comes between the protection prefix and the sequence: "lock-"
	rule Rule
	opts options
}

// NewQueue returns the engine for the directory dir. Its nodes are named
// _c_<uuid>-<name><sequence>, and rule decides who holds. Nothing is sent
// to ZooKeeper until Acquire.
func NewQueue(s *Session, dir, name string, rule Rule, opts ...Option) (*Queue, error) {
	if s == nil {
		return nil, ErrNilSession
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("seqlock: lock directory: %w", err)
	}
	if name == "" || strings.ContainsAny(name, "/\x00") || rule == nil {
		return nil, fmt.Errorf("seqlock: node name %q and a rule are required", name)
	}
	q := &Queue{s: s, conn: s.Conn(), dir: dir, name: name, rule: rule}
	for _, o := range opts {
		o(&q.opts)
	}
	if q.opts.ACL == nil {
		q.opts.ACL = s.acl()
	}
	if !slices.Contains(q.opts.Contenders, name) {
		q.opts.Contenders = append(q.opts.Contenders, name)
	}
	return q, nil
}

// Dir is the lock directory.
func (q *Queue) Dir() string { return q.dir }

// Acquire is the recipe, in the order the articles draw it:
//
//  1. Join the queue: create an EPHEMERAL_SEQUENTIAL node under the lock
//     directory (join.go).
//  2. List the queue, sorted by sequence number.
//  3. Ask the rule. If it says we hold the lock, we do.
//  4. Otherwise watch the one node the rule names, wait for it to change,
//     and go back to step 2. It may have been a waiter that gave up rather
//     than the holder, so we never assume the lock is ours.
//  5. Hold.Release deletes our node, which wakes whoever watches it.
//
// Steps 2 to 4 are waitTurn, and 04's rule is First: the lesson, in
// acquire.go (the workshop's exercise replaces that file). Acquire is the
// loop around them: a node that is no longer ours means queueing up again.
//
// With wait false (TryLock) step 4 is "give up": Acquire removes our node
// and returns ErrLocked. If ctx ends, Acquire removes our node and returns
// ctx's error: a node left behind would block the queue.
func (q *Queue) Acquire(ctx context.Context, wait bool) (*Hold, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for {
		node, session, err := q.join(ctx) // step 1
		if err != nil {
			return nil, err
		}
		h, err := q.waitTurn(ctx, node, session, wait)
		if errors.Is(err, errNodeGone) {
			// Our node vanished before we held the lock: our session
			// expired while we waited (go-zookeeper then opens a new one
			// on the same conn), or someone deleted it. Our place in the
			// queue is gone; queue up again, as Curator does.
			continue
		}
		if err != nil {
			q.remove(node)
			return nil, err
		}
		return h, nil
	}
}

// errNodeGone: our own node is no longer in the queue, or no longer ours
// (it belongs to a session that has ended). waitTurn returns it, and
// Acquire queues up again.
var errNodeGone = errors.New("seqlock: our node is gone")

func (q *Queue) emit(kind event.Kind, op, node, detail string) {
	q.opts.Observer.Emit(event.Event{Lock: q.dir, Kind: kind, Op: op, Node: node, Detail: detail})
}

// sessionGone is errNodeGone if a request failed because our session
// ended meanwhile (our node died with it: queue up again), else err.
func (q *Queue) sessionGone(ctx context.Context, session int64, err error) error {
	if ctx.Err() == nil && q.conn.SessionID() != session {
		return errNodeGone
	}
	return err
}
