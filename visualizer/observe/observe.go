// Package observe is the visualizer's observe mode on the ZooKeeper side: it
// watches a lock directory it does not own — any recipe whose queue is
// ephemeral-sequential children (lockstep's locks, Curator's
// InterProcessMutex, go-zookeeper's zk.Lock) — and tells the view
// (visualizer/tui's observe model) each state of the queue. It runs no lock
// and creates nothing: it only reads.
//
// It is built on the engine the course teaches: a child watch on the
// directory, re-armed after each event, never a polling loop. A new child is
// read once, for its owner: the node's data when the recipe stored a
// readable one there (seqlock.WithData, Curator's client address), else the
// session that owns the ephemeral node (Stat.EphemeralOwner).
package observe

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// Observer watches one lock directory on a connection the caller owns (and
// closes). Next hands the view what changed, at most once a frame.
type Observer struct {
	conn  *zk.Conn
	dir   string
	frame time.Duration

	lastErr string // the last failure said, so a long outage is one line, not two a second

	box  *worldmsg.Inbox
	done chan struct{} // closed when the watch has ended (ctx done)
}

// Start begins watching dir through conn until ctx ends.
func Start(ctx context.Context, conn *zk.Conn, dir string) *Observer {
	o := &Observer{conn: conn, dir: dir, box: worldmsg.NewInbox(time.Second / 30), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		defer o.box.Close()
		o.watch(ctx)
	}()
	return o
}

// Follow reads conn's session events (zkconn.Dial's channel) until it
// closes or the observer stops, and tells the view when the link to
// ZooKeeper drops and when a session serves again: while it is down, what
// the view shows may be stale.
func (o *Observer) Follow(events <-chan zk.Event) {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Type != zk.EventSession {
				continue
			}
			switch ev.State {
			case zk.StateDisconnected, zk.StateExpired:
				o.put(worldmsg.Link{At: time.Now(), Up: false})
			case zk.StateHasSession:
				o.put(worldmsg.Link{At: time.Now(), Up: true})
			}
		case <-o.done:
			return
		}
	}
}

// Done is closed once the observer has stopped.
func (o *Observer) Done() <-chan struct{} { return o.done }

// watch is the child watch, re-armed after each event (Dir). Each state of
// the directory goes to the view as a worldmsg.Observed, stamped with when
// it was read: the view counts hand-offs per second by these times, not its
// own.
func (o *Observer) watch(ctx context.Context) {
	read := func(name string, cached *worldmsg.QueueNode) (worldmsg.QueueNode, bool) {
		if cached != nil {
			return *cached, true
		}
		return o.read(name)
	}
	put := func(snap worldmsg.QueueSnapshot) {
		if !snap.Missing {
			o.lastErr = ""
		}
		o.put(worldmsg.Observed{At: time.Now(), Queue: snap})
	}
	Dir(ctx, o.conn, o.dir, read, put, func(err error) bool { return o.failed(ctx, err) })
}

// Dir keeps one directory's queue in step with ZooKeeper until ctx ends: a
// children watch on dir, set again after each change, never a polling loop.
// Each state goes to put, sorted; a directory that does not exist yet is a
// snapshot with Missing, and Dir waits on an exists watch for it. read gives
// a child's node, with the one read before (cached, nil the first time);
// false leaves the child out (gone between the list and the read, or not
// wanted). A failed request goes to failed, which waits a moment (the conn
// reconnects meanwhile) and says whether to go on. The observe mode and the
// visualizer's world both watch their queues with it.
func Dir(ctx context.Context, conn *zk.Conn, dir string, read func(name string, cached *worldmsg.QueueNode) (worldmsg.QueueNode, bool), put func(worldmsg.QueueSnapshot), failed func(error) bool) {
	known := map[string]worldmsg.QueueNode{}
	for ctx.Err() == nil {
		children, _, changed, err := conn.ChildrenW(dir)
		if errors.Is(err, zk.ErrNoNode) {
			put(worldmsg.QueueSnapshot{Dir: dir, Missing: true})
			// Nobody has queued yet: wait for the directory to be made.
			ok, _, created, err := conn.ExistsW(dir)
			switch {
			case err != nil:
				if !failed(err) {
					return
				}
			case !ok:
				if !wait(ctx, created) {
					return
				}
			}
			continue
		}
		if err != nil {
			if !failed(err) {
				return
			}
			continue
		}
		snap := worldmsg.QueueSnapshot{Dir: dir}
		seen := map[string]bool{}
		for _, c := range children {
			var cached *worldmsg.QueueNode
			if q, ok := known[c]; ok {
				cached = &q
			}
			q, ok := read(c, cached)
			if !ok {
				continue
			}
			seen[c] = true
			known[c] = q
			snap.Nodes = append(snap.Nodes, q)
		}
		maps.DeleteFunc(known, func(c string, _ worldmsg.QueueNode) bool { return !seen[c] })
		snap.Sort()
		put(snap)
		if !wait(ctx, changed) {
			return
		}
	}
}

// failed says what went wrong and waits a moment before the watch is set
// again (a connection lost: go-zookeeper reconnects meanwhile). False when
// ctx ended.
func (o *Observer) failed(ctx context.Context, err error) bool {
	if line := fmt.Sprintf("watch %s: %v", o.dir, err); line != o.lastErr {
		o.lastErr = line
		o.put(worldmsg.Notice{Text: line})
	}
	select {
	case <-time.After(500 * time.Millisecond):
		return true
	case <-ctx.Done():
		return false
	}
}

// read reads one child for the queue: its sequence, whether it is
// ephemeral, and its owner.
func (o *Observer) read(name string) (worldmsg.QueueNode, bool) {
	q, st, ok := Node(o.conn, o.dir, name, 40)
	if ok {
		q.Owner = Owner(q.Data, st.EphemeralOwner)
	}
	return q, ok
}

// Node reads dir/name for a queue: its sequence (-1 if it has none), whether
// it is persistent, and its data if it is printable and at most max bytes;
// with the node's Stat. False if the read failed (the node is gone).
func Node(conn *zk.Conn, dir, name string, max int) (worldmsg.QueueNode, *zk.Stat, bool) {
	data, st, err := conn.Get(dir + "/" + name)
	if err != nil {
		return worldmsg.QueueNode{}, nil, false
	}
	q := worldmsg.QueueNode{Name: name, Seq: -1, Persistent: st.EphemeralOwner == 0}
	if seq, ok := zkpath.SequenceOf(name); ok {
		q.Seq = seq // the view sorts and shortens by it
	}
	if s := string(data); len(s) <= max && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		q.Data = s
	}
	return q, st, true
}

// Owner is how the queue names a node's owner: what its data says, when the
// recipe wrote something readable there, else the session that owns the
// ephemeral node, as ZooKeeper prints session ids; "" for a persistent node
// without data.
func Owner(data string, session int64) string {
	switch {
	case data != "":
		return data
	case session != 0:
		return fmt.Sprintf("0x%x", session)
	}
	return ""
}

// Add hands the view a message read beside the queue (the class arena's
// counter and catches, which the observing side reads on watches of its
// own): it reaches the view in the same batches as the queue's, in the
// order they were added.
func (o *Observer) Add(m worldmsg.Msg) { o.put(m) }

func (o *Observer) put(m worldmsg.Msg) { o.box.Put(m) }

// Pending is what happened since the last call, without waiting (-frames).
func (o *Observer) Pending() []worldmsg.Msg { return o.box.Take() }

// Next blocks until something happened and a frame has passed since the
// last batch; nil once the observer has stopped and its last batch is
// read. It is the view's source, read by a command re-armed after each
// batch.
func (o *Observer) Next() []worldmsg.Msg { return o.box.Next() }

func wait(ctx context.Context, ev <-chan zk.Event) bool {
	select {
	case <-ev:
		return true
	case <-ctx.Done():
		return false
	}
}
