// Package leader is YOUR version of chapter 07's election: the workshop
// skeleton of 07-leader/leader, with the same API. The plumbing (the
// protected create that never orphans its node, the persistent directory,
// the leader's watch over its term, Leader and Observe) is written; the
// recipe's steps are yours. Each one panics with "TODO(workshop): …" until
// you write it, in the order of 07-leader/README.md, "The algorithm":
//
//	createCandidate  (node.go)      step 1: join with an EPHEMERAL_SEQUENTIAL node holding your value
//	candidates       (node.go)      step 2: order the directory by sequence number
//	waitToLead       (election.go)  steps 2–3: lowest leads, else watch only the node before yours
//	lead             (election.go)  step 4: watch your own node, take the term, say you lead
//	Resign           (election.go)  step 5: end the term, then delete your node
//
// Everything that is not a TODO is a copy of the reference package, on
// purpose: the skeleton must build on its own (the visualizer runs it with
// -impl exercise), and "make exercise" swaps it in for the reference with
// go test -overlay, so the chapter's own tests are the only tests.
//
// Run the chapter's tests against this package with
//
//	make exercise CH=07            (or: scripts/exercise 07)
//
// and against the reference with SOLUTION=1.
//
// What follows is the reference's package comment.
//
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
	return e.waitToLead(ctx, node)
}

// waitToLead is steps 2 and 3 of 07-leader/README.md; node is our
// candidate node (step 1 made it).
//
//	for {
//		step 2: list the candidates in queue order: e.listCandidates(ctx)
//		        (names, not paths; it uses your candidates). Find ours
//		        (node[len(e.dir)+1:] is its name).
//		        Not there: our session expired while we waited → ErrSessionLost.
//		        First: we lead → return e.lead(ctx, node) (step 4).
//		step 3: watch ONLY the node just before ours, with a data watch:
//		        e.getW(ctx, predecessor). Already gone (zk.ErrNoNode)? Go
//		        back to step 2. Say you wait (e.emit(event.Event{Kind:
//		        event.Waiting, Node: predecessor})) and block until the watch
//		        fires (report it: Kind event.Notified, Detail ev.Type.String())
//		        or ctx ends; an EventNotWatching means the session is over.
//	}
//
// Whenever you give up with an error (a failed request, ctx ended, the
// session ended), delete our node first: return e.abandon(node, err).
func (e *Election) waitToLead(ctx context.Context, node string) error {
	panic("TODO(workshop): list the candidates (e.listCandidates); lead if ours is first (e.lead), else watch ONLY the node just before ours (e.getW) and wait, then list again — steps 2-3 of 07-leader/README.md")
}

// lead is step 4 of 07-leader/README.md: we are first.
//
//   - Before saying so, set a data watch on our own node, e.getW(ctx, node),
//     so that from the first instant of our term we hear if it goes. If that
//     fails, give up: return e.abandon(node, err).
//   - Our term is termOf(node). Under e.mu, record the leadership: e.node,
//     e.term, a new e.done and a new e.stop channel.
//   - Say it: e.emit(event.Event{Kind: event.Acquired, Node: node, Token: term}).
//   - Keep watching while we lead: go e.watchOver(node, watch, stop) (written
//     for you: it closes Done when the node goes, the session ends, or the
//     connection stays down too long).
func (e *Election) lead(ctx context.Context, node string) error {
	panic("TODO(workshop): watch our own node (e.getW), record node, term (termOf), new done and stop channels under e.mu, emit Acquired, go e.watchOver — step 4 of 07-leader/README.md")
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

// Resign is step 5 of 07-leader/README.md. It returns ErrNotLeader if this
// Election does not lead (e.node == "").
//
//   - Under e.mu, end the term FIRST: e.endTerm() closes Done, so our term
//     is over before the next one can start.
//   - Then delete our node, honouring ctx: call(ctx, func() (struct{}, error)
//     { return struct{}{}, e.deleteOwn(node) }). Wrap an error with %w.
//     The candidate watching our node is notified and leads next — no
//     timeout involved.
//   - Say it: e.emit(event.Event{Kind: event.Released, Node: node}).
func (e *Election) Resign(ctx context.Context) error {
	panic("TODO(workshop): ErrNotLeader if we do not lead; else end the term under e.mu (e.endTerm), then delete our node (e.deleteOwn through call) and emit Released — step 5 of 07-leader/README.md")
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

// listCandidates lists the election directory and returns the candidate
// names in queue order (your candidates), honouring ctx. If the connection
// drops under the listing, retryRead sends it again once the client is back
// in the same session.
func (e *Election) listCandidates(ctx context.Context) ([]string, error) {
	children, err := retryRead(ctx, e, "children", e.dir, func() ([]string, error) {
		c, _, err := e.conn.Children(e.dir)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("list candidates: %w", err)
	}
	return candidates(children), nil
}

// getW sets a data watch on node (a GetW, honouring ctx, sent again by
// retryRead if the connection drops under it) and tells the observer about
// the request and, if it worked, the watch. If node does not exist it
// fails with zk.ErrNoNode and leaves no watch behind.
func (e *Election) getW(ctx context.Context, node string) (<-chan zk.Event, error) {
	watch, err := retryRead(ctx, e, "get", node, func() (<-chan zk.Event, error) {
		_, _, w, err := e.conn.GetW(node)
		return w, err
	})
	if err != nil {
		return nil, err
	}
	e.emit(event.Event{Kind: event.WatchSet, Op: "get", Node: node})
	return watch, nil
}

func (e *Election) emit(ev event.Event) {
	ev.Lock = e.dir
	e.obs.Emit(ev)
}
