// Package leader elects one leader among candidates: ZooKeeper's
// leader-election recipe (Curator's LeaderLatch), which is the sequential
// lock of chapter 04 used for something else, with the shape Go users know
// from etcd's concurrency.Election:
//
//	e, _ := leader.New(conn, "/services/billing/election", leader.WithSessionTimeout(4*time.Second))
//	if err := e.Campaign(ctx, "host-a"); err != nil { … } // blocks until we lead
//	defer e.Resign(ctx)
//	for { select { case <-e.Done(): return /* we no longer lead */ ; case … } }
//
// The algorithm, in the order this file runs it:
//
//  1. Each candidate creates an EPHEMERAL_SEQUENTIAL node under the election
//     directory, holding its identity (Campaign's value).
//  2. It lists the directory. The lowest sequence number leads.
//  3. Anyone else watches only the node just before its own, waits for it
//     to go, and goes back to step 2.
//  4. The leader watches its own node and its connection, so it learns when
//     its leadership is over (Done closes).
//  5. Resign deletes the leader's node: exactly one waiter wakes up and leads.
//
// The leader's sequence number (plus one) is its term: every new leader of a
// directory has a larger one, so it can serve as a fencing token (chapter 08).
package leader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// Election is one candidate in the election held in a directory. Use one
// Election per candidate; several may share a *zk.Conn, but each candidate
// that should survive the others' crashes needs its own session.
type Election struct {
	conn           *zk.Conn
	dir            string
	obs            event.Observer
	sessionTimeout time.Duration

	mu   sync.Mutex
	busy bool          // a Campaign is running, or we lead
	node string        // our node while we lead, else ""
	term int64         // its sequence number while we lead, else 0
	done chan struct{} // closed when the current leadership ends
	stop chan struct{} // closed to stop watching over the leadership
}

// New returns a candidate for the election held in dir. Nothing is sent to
// ZooKeeper until Campaign, Leader or Observe.
func New(conn *zk.Conn, dir string, opts ...Option) (*Election, error) {
	if conn == nil {
		return nil, ErrNilConn
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("leader: election directory: %w", err)
	}
	e := &Election{conn: conn, dir: dir, done: make(chan struct{})}
	close(e.done) // no leadership yet, so none to wait for
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// Campaign joins the election and blocks until this candidate leads, ctx
// ends, or something fails. value (who we are: a host name, an address) is
// stored in our node, for Leader and Observe to report. If Campaign returns
// an error, it has left nothing behind in ZooKeeper.
func (e *Election) Campaign(ctx context.Context, value string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("leader: campaign in %s: %w", e.dir, err)
	}
	e.mu.Lock()
	if e.busy {
		e.mu.Unlock()
		return ErrCampaigning
	}
	e.busy = true
	e.mu.Unlock()
	err := e.campaign(ctx, value)
	if err != nil {
		e.mu.Lock()
		e.busy = false
		e.mu.Unlock()
		return fmt.Errorf("leader: campaign in %s: %w", e.dir, err)
	}
	return nil
}

func (e *Election) campaign(ctx context.Context, value string) error {
	// Step 1: join the queue.
	node, err := e.join(ctx, value)
	if err != nil {
		return err
	}
	for {
		// Step 2: who is first? Sequence numbers, not names, give the order.
		// Our reads go through retryRead (node.go): if the connection drops
		// under one, it is sent again once the client is back in the same
		// session — our node, and our place in the queue, are still there.
		children, err := retryRead(ctx, e, "children", e.dir, func() ([]string, error) {
			c, _, err := e.conn.Children(e.dir)
			return c, err
		})
		if err != nil {
			return e.abandon(node, fmt.Errorf("list candidates: %w", err))
		}
		queue := candidates(children)
		i := slices.Index(queue, node[len(e.dir)+1:])
		switch {
		case i < 0:
			// Our ephemeral node is gone: our session expired while we waited.
			return ErrSessionLost
		case i == 0:
			return e.lead(ctx, node)
		}

		// Step 3: as in chapter 04, watch only the node just before ours, so
		// a change wakes one candidate, not the whole herd. A data watch
		// (GetW) fires when that node is deleted; if it is already gone,
		// GetW fails with ErrNoNode and we simply look again.
		predecessor := e.dir + "/" + queue[i-1]
		watch, err := retryRead(ctx, e, "get", predecessor, func() (<-chan zk.Event, error) {
			_, _, w, err := e.conn.GetW(predecessor)
			return w, err
		})
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return e.abandon(node, fmt.Errorf("watch %s: %w", predecessor, err))
		}
		e.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: predecessor})
		e.emit(event.Event{Kind: event.Waiting, Node: predecessor})
		select {
		case ev := <-watch:
			e.emit(event.Event{Kind: event.Notified, Node: predecessor, Detail: ev.Type.String()})
			if ev.Type == zk.EventNotWatching {
				return e.abandon(node, fmt.Errorf("watch %s: %w", predecessor, ev.Err))
			}
		case <-ctx.Done():
			return e.abandon(node, ctx.Err())
		}
	}
}

// lead is step 4: we are first. Before saying so, we set a watch on our own
// node, so that from the first instant of our term we hear if it goes.
func (e *Election) lead(ctx context.Context, node string) error {
	watch, err := retryRead(ctx, e, "get", node, func() (<-chan zk.Event, error) {
		_, _, w, err := e.conn.GetW(node)
		return w, err
	})
	if err != nil {
		return e.abandon(node, fmt.Errorf("watch own node %s: %w", node, err))
	}
	e.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: node})
	term := termOf(node)
	e.mu.Lock()
	e.node, e.term = node, term
	e.done, e.stop = make(chan struct{}), make(chan struct{})
	stop := e.stop
	e.mu.Unlock()
	e.emit(event.Event{Kind: event.Acquired, Node: node, Token: term})
	go e.watchOver(node, watch, stop)
	return nil
}

// watchOver runs for as long as we lead. Three things end a leadership
// without Resign:
//
//   - our node is deleted (an operator, a test) → EventNodeDeleted;
//   - our session expires, or the conn is closed → EventNotWatching;
//   - with WithSessionTimeout: our connection stays down. This is the one
//     that matters most, and the one ZooKeeper cannot tell us about: while
//     we are cut off, no event reaches us, yet the server will expire our
//     session and elect someone else. So we poll our own connection state.
func (e *Election) watchOver(node string, watch <-chan zk.Event, stop <-chan struct{}) {
	var tick <-chan time.Time
	if e.sessionTimeout > 0 {
		t := time.NewTicker(max(e.sessionTimeout/30, time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	var downSince time.Time
	for {
		select {
		case <-stop:
			return
		case ev := <-watch:
			e.emit(event.Event{Kind: event.Notified, Node: node, Detail: ev.Type.String()})
			switch ev.Type {
			case zk.EventNodeDeleted:
				e.lose(node, "node deleted", false)
				return
			case zk.EventNotWatching:
				e.lose(node, ev.Err.Error(), false)
				return
			}
			// Someone wrote our node: it is still ours. Watch it again.
			e.emit(event.Event{Kind: event.Request, Op: "get", Node: node})
			_, _, w, err := e.conn.GetW(node)
			if err != nil {
				e.lose(node, "watch own node: "+err.Error(), !errors.Is(err, zk.ErrNoNode))
				return
			}
			e.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: node})
			watch = w
		case now := <-tick:
			if e.conn.State() == zk.StateHasSession {
				downSince = time.Time{}
				continue
			}
			if downSince.IsZero() {
				downSince = now
			}
			if down := now.Sub(downSince); down >= stepDownAfter(e.sessionTimeout) {
				e.lose(node, fmt.Sprintf("connection down for %v", down.Round(time.Millisecond)), true)
				return
			}
		}
	}
}

// stepDownAfter is how long a leader may stay disconnected. go-zookeeper
// drops a connection after 2/3 of the session timeout without a word from
// the server; the server expires the session after a full timeout without
// a word from us. So when the conn first reports it is down, at least 1/3 of
// the timeout is left before anyone else can be elected. We keep half of
// that as grace — a server restart followed by a quick reconnect does not
// cost the leadership — and step down with the other half to spare.
func stepDownAfter(sessionTimeout time.Duration) time.Duration { return sessionTimeout / 6 }

// lose ends the leadership without Resign. If our node may still exist (we
// stepped down while disconnected, and the session may survive), we delete
// it once the connection is back, so that a successor can be elected.
func (e *Election) lose(node, why string, deleteNode bool) {
	e.mu.Lock()
	if e.node != node { // Resign got there first
		e.mu.Unlock()
		return
	}
	e.endTerm()
	e.mu.Unlock()
	e.emit(event.Event{Kind: event.Lost, Node: node, Detail: why})
	if deleteNode {
		go e.deleteOwn(node)
	}
}

// endTerm forgets the leadership and wakes whoever waits on Done. e.mu is held.
func (e *Election) endTerm() {
	e.node, e.term, e.busy = "", 0, false
	close(e.done)
	close(e.stop)
}

// Resign is step 5: delete our node. The candidate watching it is notified
// and leads next — no timeout is involved. Done is closed before the node
// is deleted, so our term ends before the next one starts. Resign returns
// ErrNotLeader if this Election does not lead.
func (e *Election) Resign(ctx context.Context) error {
	e.mu.Lock()
	node := e.node
	if node == "" {
		e.mu.Unlock()
		return ErrNotLeader
	}
	e.endTerm()
	e.mu.Unlock()
	if _, err := call(ctx, func() (struct{}, error) { return struct{}{}, e.deleteOwn(node) }); err != nil {
		return fmt.Errorf("leader: resign: %w", err)
	}
	e.emit(event.Event{Kind: event.Released, Node: node})
	return nil
}

// Term is our term while we lead (our node's sequence number + 1), else 0. It is
// larger than the term of every earlier leader of the directory, as long as
// the directory itself is never deleted (a new directory counts from 0).
func (e *Election) Term() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.term
}

// Done returns a channel closed when the current leadership ends: Resign,
// or lost (session expired, node deleted, conn closed, or — with
// WithSessionTimeout — connection down too long). A leader's work loop
// selects on it. Without a leadership, the channel is already closed.
func (e *Election) Done() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done
}

func (e *Election) emit(ev event.Event) {
	ev.Lock = e.dir
	e.obs.Emit(ev)
}
