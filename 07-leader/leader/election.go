// -tags workshop compiles the learner's election_workshop.go instead of this file.
//go:build !workshop

// Package leader elects one leader among candidates: ZooKeeper's
// leader-election recipe (Curator's LeaderLatch), with the shape Go users
// know from etcd's concurrency.Election. It is chapter 04's queue with
// another story: the lowest node leads, and everyone else observes.
//
//	e, _ := leader.New(session, "/services/billing/election") // session: a *seqlock.Session
//	if err := e.Campaign(ctx, "host-a"); err != nil { … } // blocks until we lead
//	defer e.Resign(ctx)
//	for { select { case <-e.Lost(): return /* we no longer lead */ ; case … } }
//
// The story, in the order this file tells it:
//
//  1. Each candidate joins the queue: an EPHEMERAL_SEQUENTIAL node under
//     the election directory, holding its identity (Campaign's value).
//  2. The lowest node leads. Everyone else watches only the node just
//     before its own, and looks again when it goes: one departure wakes
//     one candidate. That is chapter 04's rule, seqlock.First, word for
//     word: an election is a lock held for a long time.
//  3. While it leads, chapter 04's core watches the leader's session, and
//     Lost closes when the leadership is over without Resign.
//  4. Resign deletes the leader's node: the candidate watching it leads.
//  5. Anyone, candidate or not, can read who leads (Leader) and follow the
//     leaders as they change (Observe): the lowest node and its data.
//
// Every leader has a fencing token larger than the one before (Token, the
// definition of chapter 04), for the resource to check (chapter 08).
package leader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// succession is the election's rule (step 2): the lowest node leads, and
// every other candidate watches only the node just before its own — chapter
// 04's mutex rule, word for word.
var succession seqlock.Rule = seqlock.First

// campaign is steps 1 to 3: chapter 04's lock with value as our node's
// data, under the rule "the lowest leads, each other candidate watches its
// predecessor". It returns our candidacy once we lead; on an error it has
// left no node behind.
func (e *Election) campaign(ctx context.Context, value string) (*seqlock.Mutex, error) {
	opts := append(slices.Clip(e.opts), seqlock.WithData([]byte(value)))
	m, err := seqlock.NewWithRule(e.s, e.dir, nodeName, succession, opts...)
	if err != nil {
		return nil, err
	}
	if err := m.Lock(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// Leader says who leads now, or returns ErrNoLeader. Any Election can ask,
// candidate or not.
func (e *Election) Leader(ctx context.Context) (Leadership, error) {
	l, _, err := e.lookup(ctx, false)
	if err != nil && !errors.Is(err, ErrNoLeader) {
		return Leadership{}, fmt.Errorf("leader: who leads %s: %w", e.dir, err)
	}
	return l, err
}

// Observe streams the leaders of the election, in order, each once: a
// children watch on the directory fires whenever a candidate joins or
// leaves, and we report the lowest node whenever it is a new one. The
// channel is closed when ctx ends or the Session is over (it expired, or
// it or its conn was closed): nothing more can be reported then.
//
// Like every ZooKeeper watch, this sees snapshots: a leadership that starts
// and ends between two of them (shorter than a round trip) is not reported.
// The tokens reported always increase.
func (e *Election) Observe(ctx context.Context) <-chan Leadership {
	out := make(chan Leadership)
	go func() {
		defer close(out)
		var last string
		for {
			l, changed, err := e.lookup(ctx, true)
			switch {
			case err == nil && l.Node != last:
				select {
				case out <- l:
					last = l.Node
				case <-ctx.Done():
					return
				}
			case err == nil || errors.Is(err, ErrNoLeader):
			case ctx.Err() != nil || e.over(err):
				return
			default:
				// Connection trouble: the watch could not be set. Try again.
				select {
				case <-time.After(100 * time.Millisecond):
					continue
				case <-ctx.Done():
					return
				case <-e.s.Done():
					return
				}
			}
			select {
			case <-e.s.Done():
				return // expired or closed: its watches will not fire
			case ev := <-changed:
				e.emit(event.Event{Kind: event.Notified, Node: e.dir, Detail: ev.Type.String()})
				if errors.Is(ev.Err, zk.ErrClosing) {
					return // the conn was closed: nothing more will come
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// over says whether a request failed because the Session is over: it
// expired or was closed (Done), or its conn was closed behind its back (a
// closed conn fails every request with zk.ErrConnectionClosed, as a
// reconnecting one does, but stays disconnected: zkcall.Closed).
func (e *Election) over(err error) bool {
	select {
	case <-e.s.Done():
		return true
	default:
	}
	return errors.Is(err, zk.ErrClosing) ||
		errors.Is(err, zk.ErrConnectionClosed) && zkcall.Closed(context.Background(), e.conn)
}

// lookup reads the lowest candidate node and its data. With watch, it also
// returns a channel that fires at the next change of the directory (a
// children watch, or an exists watch while the directory does not exist).
// The queue is ordered as the candidates order it (zkpath.Queue).
func (e *Election) lookup(ctx context.Context, watch bool) (Leadership, <-chan zk.Event, error) {
	conn := zkcall.Conn{Conn: e.conn} // each request below is one call with ctx
	for {
		e.emit(event.Event{Kind: event.Request, Op: "children", Node: e.dir})
		var (
			children []string
			stat     *zk.Stat
			changed  <-chan zk.Event
			err      error
		)
		if watch {
			children, stat, changed, err = conn.ChildrenW(ctx, e.dir)
		} else {
			children, stat, err = conn.Children(ctx, e.dir)
		}
		if errors.Is(err, zk.ErrNoNode) {
			if !watch {
				return Leadership{}, nil, ErrNoLeader
			}
			e.emit(event.Event{Kind: event.Request, Op: "exists", Node: e.dir})
			ok, _, appears, err := conn.ExistsW(ctx, e.dir)
			if err != nil {
				return Leadership{}, nil, err
			}
			if ok {
				continue // it was created meanwhile: list it again
			}
			e.emit(event.Event{Kind: event.WatchSet, Op: "exists", Node: e.dir})
			return Leadership{}, appears, ErrNoLeader
		}
		if err != nil {
			return Leadership{}, nil, err
		}
		if watch {
			e.emit(event.Event{Kind: event.WatchSet, Op: "children", Node: e.dir})
		}
		queue := zkpath.Queue(children, nodeName)
		if len(queue) == 0 {
			return Leadership{}, changed, ErrNoLeader
		}
		node := e.dir + "/" + queue[0]
		e.emit(event.Event{Kind: event.Request, Op: "get", Node: node})
		data, _, err := conn.Get(ctx, node)
		if errors.Is(err, zk.ErrNoNode) {
			continue // the leader left between our two reads: look again
		}
		if err != nil {
			return Leadership{}, nil, err
		}
		return Leadership{Value: string(data), Node: node, Token: stat.Pzxid}, changed, nil
	}
}
