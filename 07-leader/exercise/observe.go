package leader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Leadership is who leads an election, as anyone can read it from
// ZooKeeper: the lowest candidate node of the directory.
type Leadership struct {
	Value string // what the leader passed to Campaign
	Term  int64  // its node's sequence number + 1, as Election.Term
	Node  string // its node, as a full path
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
// channel is closed when ctx ends.
//
// Like every ZooKeeper watch, this sees snapshots: a leadership that starts
// and ends between two of them (shorter than a round trip) is not reported.
// The terms reported always increase.
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
			case ctx.Err() != nil:
				return
			default:
				// Connection trouble: the watch could not be set. Try again.
				select {
				case <-time.After(100 * time.Millisecond):
					continue
				case <-ctx.Done():
					return
				}
			}
			select {
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

// lookup reads the lowest candidate node and its data. With watch, it also
// returns a channel that fires at the next change of the directory (a
// children watch, or an exists watch while the directory does not exist).
func (e *Election) lookup(ctx context.Context, watch bool) (Leadership, <-chan zk.Event, error) {
	type listing struct {
		children []string
		changed  <-chan zk.Event
	}
	for {
		e.emit(event.Event{Kind: event.Request, Op: "children", Node: e.dir})
		ls, err := call(ctx, func() (listing, error) {
			if !watch {
				c, _, err := e.conn.Children(e.dir)
				return listing{children: c}, err
			}
			c, _, w, err := e.conn.ChildrenW(e.dir)
			return listing{c, w}, err
		})
		if errors.Is(err, zk.ErrNoNode) {
			if !watch {
				return Leadership{}, nil, ErrNoLeader
			}
			e.emit(event.Event{Kind: event.Request, Op: "exists", Node: e.dir})
			ex, err := call(ctx, func() (listing, error) {
				ok, _, w, err := e.conn.ExistsW(e.dir)
				if ok {
					w = nil // it was created meanwhile: list it again
				}
				return listing{changed: w}, err
			})
			if err != nil {
				return Leadership{}, nil, err
			}
			if ex.changed == nil {
				continue
			}
			e.emit(event.Event{Kind: event.WatchSet, Op: "exists", Node: e.dir})
			return Leadership{}, ex.changed, ErrNoLeader
		}
		if err != nil {
			return Leadership{}, nil, err
		}
		if watch {
			e.emit(event.Event{Kind: event.WatchSet, Op: "children", Node: e.dir})
		}
		queue := candidates(ls.children)
		if len(queue) == 0 {
			return Leadership{}, ls.changed, ErrNoLeader
		}
		node := e.dir + "/" + queue[0]
		e.emit(event.Event{Kind: event.Request, Op: "get", Node: node})
		data, err := call(ctx, func() ([]byte, error) {
			d, _, err := e.conn.Get(node)
			return d, err
		})
		if errors.Is(err, zk.ErrNoNode) {
			continue // the leader left between our two reads: look again
		}
		if err != nil {
			return Leadership{}, nil, err
		}
		return Leadership{Value: string(data), Term: termOf(node), Node: node}, ls.changed, nil
	}
}
