package seqlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// A hold is one acquisition of the lock, from Lock to Unlock. While it
// lasts, a goroutine watches for the ways the lock can be lost behind the
// holder's back and closes lost when one happens.
type hold struct {
	node    string
	token   int64
	session int64 // the session that owns node
	lost    chan struct{}
	ctx     context.Context // ends when Unlock stops watching
	stop    context.CancelFunc
	done    chan struct{} // closed when the watching goroutine has ended

	mu     sync.Mutex
	reason string // why the hold was lost, "" while it is not
}

// hold starts a hold on node, which is now the lowest in the queue.
//
// The fencing token is the node's czxid: the zxid of the transaction that
// created it. zxids only ever grow, across the whole ensemble and across
// leader elections, so a later holder always has a higher token. The
// sequence number in the node's name would be enough as long as the lock
// directory lives, but our directory is a container: when it is empty the
// server deletes it, and the next one starts counting at 0 again.
func (m *Mutex) hold(ctx context.Context, node string, own <-chan ownRead) error {
	for {
		var r ownRead
		select {
		case r = <-own:
		case <-ctx.Done():
			return ctx.Err()
		}
		if errors.Is(r.err, zk.ErrNoNode) {
			return errNodeGone
		}
		if r.err != nil {
			return fmt.Errorf("seqlock: watch our node %s: %w", node, r.err)
		}
		select {
		case <-r.watch:
			// The read was made while we queued, and something has
			// happened to our node since (its data changed, it was
			// deleted, the session ended): read it again.
			own = m.readOwn(node)
			continue
		default:
		}
		if r.stat.EphemeralOwner != m.conn.SessionID() {
			return errNodeGone // a node of a session that has just expired
		}
		h := &hold{node: node, token: r.stat.Czxid, session: r.stat.EphemeralOwner,
			lost: make(chan struct{}), done: make(chan struct{})}
		h.ctx, h.stop = context.WithCancel(context.Background())
		m.mu.Lock()
		m.current, m.last = h, h
		m.mu.Unlock()
		m.opts.observer.Emit(event.Event{Lock: m.dir, Kind: event.Acquired, Node: node, Token: h.token})
		go m.watchHold(h, r.watch)
		return nil
	}
}

// ownRead is the answer to the GetW on our own node.
type ownRead struct {
	stat  *zk.Stat
	watch <-chan zk.Event
	err   error
}

// readOwn sends one GetW on our own node and delivers the answer on the
// returned channel. It gives us the czxid (the token), the session that
// owns the node, and a watch that fires if the node is deleted or the
// session ends (EventNotWatching).
//
// Lock sends it right after the create, beside the first listing of the
// queue, so that it is never on the hand-off path: a waiter that is
// notified lists the queue once and holds the lock, as zk.Lock does, yet
// it still gets a token and a loss watch that zk.Lock has not. The call
// has no ctx: it ends when ZooKeeper answers or the conn fails.
func (m *Mutex) readOwn(node string) <-chan ownRead {
	out := make(chan ownRead, 1)
	go func() {
		m.emit(event.Request, "get", node, "our node")
		_, stat, watch, err := m.conn.GetW(node)
		if err == nil {
			m.emit(event.WatchSet, "get", node, "our node")
		}
		out <- ownRead{stat, watch, err}
	}()
	return out
}

// watchHold closes h.lost when the hold is lost without Unlock:
//
//	(a) our node is deleted (an operator, a buggy client);
//	(b) our session ends: the watch gets EventNotWatching, with
//	    ErrSessionExpired (and the conn silently opens a new session) or
//	    ErrClosing (the conn was closed);
//	(c) with WithSessionTimeout(d): the conn has had no session for d/6.
//
// Why d/6 in (c)? While cut off, the client hears nothing, and a
// disconnection delivers no watch event. go-zookeeper only notices a
// silent partition when nothing has been read for 2/3·d (its receive
// timeout). The server expires the session — and may give the lock to the
// next in line — d after it last heard from us, which is about when we
// last heard from it (a reply leaves the server after the request that
// caused it arrived). So when we first see "no session", about d/3 is
// left; we give up after half of it, keeping the other half as margin for
// a slow poll, a busy machine and the clocks of two processes. A quick
// reconnect (a server restart, a short blip) stays well inside d/6 and
// keeps the lock. We count from the last poll that saw a session, so a
// slow poll only makes us give up earlier, never later.
func (m *Mutex) watchHold(h *hold, watch <-chan zk.Event) {
	defer close(h.done)
	var tick <-chan time.Time
	var grace time.Duration
	if d := m.opts.sessionTimeout; d > 0 {
		// Poll cheaply (State and SessionID are atomic loads), only
		// while held.
		t := time.NewTicker(min(d/20, 100*time.Millisecond))
		defer t.Stop()
		tick, grace = t.C, d/6
	}
	lastSession := time.Now()
	for {
		select {
		case <-h.ctx.Done():
			return
		case ev := <-watch:
			m.emit(event.Notified, "", h.node, ev.Type.String())
			switch ev.Type {
			case zk.EventNotWatching:
				m.lose(h, fmt.Sprintf("session ended: %v", ev.Err))
				return
			case zk.EventNodeDeleted:
				m.lose(h, "our node was deleted")
				return
			}
			// Someone changed our node's data: the node is still
			// there, so we still hold the lock. Watch it again.
			if watch = m.rewatch(h); watch == nil {
				return
			}
		case now := <-tick:
			if m.conn.SessionID() != h.session {
				m.lose(h, "session expired")
				return
			}
			if m.conn.State() == zk.StateHasSession {
				lastSession = now
			} else if now.Sub(lastSession) >= grace {
				m.lose(h, fmt.Sprintf("disconnected for %v, a third of the session timeout", grace))
				return
			}
		}
	}
}

// rewatch sets the watch on our node again; it returns nil if the hold
// ended meanwhile.
func (m *Mutex) rewatch(h *hold) <-chan zk.Event {
	for {
		m.emit(event.Request, "get", h.node, "our node")
		_, _, watch, err := call3(h.ctx, func() ([]byte, *zk.Stat, <-chan zk.Event, error) { return m.conn.GetW(h.node) })
		switch {
		case err == nil:
			m.emit(event.WatchSet, "get", h.node, "our node")
			return watch
		case errors.Is(err, zk.ErrNoNode):
			m.lose(h, "our node was deleted")
			return nil
		case errors.Is(err, zk.ErrClosing), errors.Is(err, zk.ErrSessionExpired):
			m.lose(h, fmt.Sprintf("session ended: %v", err))
			return nil
		case h.ctx.Err() != nil:
			return nil
		}
		select {
		case <-h.ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lose records why the hold was lost, closes lost and says so.
func (m *Mutex) lose(h *hold, reason string) {
	h.mu.Lock()
	h.reason = reason
	h.mu.Unlock()
	close(h.lost)
	m.emit(event.Lost, "", h.node, reason)
}

func (h *hold) lostReason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// stopWatching ends the watching goroutine and waits for it, so that
// nothing Unlock does afterwards can be mistaken for a loss.
func (h *hold) stopWatching() {
	h.stop()
	<-h.done
}
