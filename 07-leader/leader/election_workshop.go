//go:build workshop

// Workshop exercise for chapter 07 (make exercise CH=07). This file takes
// the place of 07-leader/leader/election.go; the rest of the package is the
// reference's: the candidate's bookkeeping (candidate.go: Election, New,
// Campaign's state, Resign, Token, Node, Lost, Leadership) and its options.
// Chapter 04's queue core does every ZooKeeper step of a campaign. What the
// chapter teaches is yours: leading (campaign) and observing (Leader,
// Observe, lookup).
package leader

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// succession is the election's rule: given the queue of candidates (lowest
// sequence first) and our index in it, do we lead, and if not, which one
// node's Name do we watch? A departure must wake one candidate, not all.
var succession seqlock.Rule = func(queue []seqlock.Node, ours int) (bool, string) {
	panic("TODO(workshop): succession — who leads, and whom each other candidate watches")
}

// campaign joins the election and returns our candidacy once we lead:
// chapter 04's lock (seqlock.NewWithRule, then Lock) on e.s and e.dir, with
// value as our node's data (seqlock.WithData, after e.opts), our nodes
// named nodeName, under the rule "the lowest node leads, each other
// candidate watches the one just before its own". On an error it must
// leave no node behind.
func (e *Election) campaign(ctx context.Context, value string) (*seqlock.Mutex, error) {
	panic("TODO(workshop): campaign — a core acquisition whose rule is: the lowest node leads")
}

// Leader says who leads now, or returns ErrNoLeader (no directory, or no
// candidate in it). Any Election can ask, candidate or not.
func (e *Election) Leader(ctx context.Context) (Leadership, error) {
	panic("TODO(workshop): Leader — the lowest candidate node and its data")
}

// Observe streams the leaders of the election, in order, each once, and
// closes the channel when ctx ends or the conn is closed: set a children
// watch on the directory (an exists watch while it does not exist), report
// the lowest node whenever it is a new one, wait for the watch, repeat.
// The reported Tokens must increase.
func (e *Election) Observe(ctx context.Context) <-chan Leadership {
	panic("TODO(workshop): Observe — watch the directory, report each new lowest node once")
}

// lookup reads the lowest candidate node (order the children with
// zkpath.Queue(children, nodeName), as the candidates do) and its data; Token is the pzxid of
// the listing. With watch, it also returns a channel that fires at the
// next change of the directory. Honour ctx on every request: send it
// through zkcall.Conn{Conn: e.conn} (internal/zkcall), whose methods take
// ctx (conn.ChildrenW(ctx, e.dir)); if the leader leaves between the
// listing and the read of its data, look again. Tell the observer what
// you do, as chapter 04's core does (the tests and the visualizer read it):
// e.emit(event.Event{Kind: event.Request, Op: "children", Node: e.dir})
// before each request (Op "children", "exists", "get"), Kind
// event.WatchSet once a watch is set (Op "children" or "exists"), and, in
// Observe, Kind event.Notified when the watch fires.
func (e *Election) lookup(ctx context.Context, watch bool) (Leadership, <-chan zk.Event, error) {
	panic("TODO(workshop): lookup — list (with a watch if asked), sort, read the first node's data")
}
