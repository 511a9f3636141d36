package seqlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// A Hold is one acquisition, from Acquire to Release. While it lasts, a
// goroutine watches the session for the ways the lock can be lost behind
// the holder's back, and closes Lost when one happens.
type Hold struct {
	q       *Queue
	node    string
	token   int64
	session int64 // the session that owns node
	lost    chan struct{}
	stop    chan struct{} // closed by Release: the hold ends on purpose

	released atomic.Bool
	mu       sync.Mutex
	ended    bool   // Release has begun: the watcher's word no longer counts
	reason   string // why the hold was lost, "" while it is not
}

// hold starts a Hold on node, which the rule has just said holds the lock
// in a listing whose directory pzxid was pzxid.
//
// The fencing token is that pzxid: the id of the last transaction that
// added or removed a child of the lock directory. Between two holders'
// listings the children always changed (the earlier holder's node was
// deleted, or ours created), and zxids only ever grow — across the whole
// ensemble, across leader elections, and across a container directory
// that was reaped and created again, whose sequence numbers restart at 0.
// So a later holder always has a larger token, and it costs no request:
// the Children reply carries the directory's Stat.
func (q *Queue) hold(node string, session, pzxid int64) *Hold {
	h := &Hold{q: q, node: node, token: pzxid, session: session,
		lost: make(chan struct{}), stop: make(chan struct{})}
	q.opts.observer.Emit(event.Event{Lock: q.dir, Kind: event.Acquired, Node: node, Token: h.token})
	go h.watch(q.sessionTimeout())
	return h
}

// sessionTimeout is the session timeout to judge a disconnection by: the
// option if given, else what the server granted a conn lockstep dialled.
func (q *Queue) sessionTimeout() time.Duration {
	if q.opts.timeoutGiven {
		return q.opts.sessionTimeout
	}
	return zksession.Timeout(q.conn)
}

// Node is the full path of the node that holds the lock.
func (h *Hold) Node() string { return h.node }

// Token is the hold's fencing token (see hold).
func (h *Hold) Token() int64 { return h.token }

// Lost is closed when the hold is lost without Release.
func (h *Hold) Lost() <-chan struct{} { return h.lost }

// watch closes h.lost when the hold is lost without Release. It reads only
// the conn's own state, which costs nothing (two atomic loads), so holding
// the lock adds no request and no watch:
//
//	(a) our session expired: go-zookeeper opens a new session on the same
//	    conn, so the conn's session id changes;
//	(b) the conn has had no session for d/6, d the session timeout
//	    (WithSessionTimeout, or what the server granted).
//
// Why d/6 in (b)? While cut off, the client hears nothing, and a
// disconnection delivers no watch event. go-zookeeper only notices a
// silent partition when nothing has been read for 2/3·d (its receive
// timeout). The server expires the session — and may give the lock to the
// next in line — d after it last heard from us, which is about when we
// last heard from it. So when we first see "no session", about d/3 is
// left; we give up after half of it, keeping the other half as margin for
// a slow poll, a busy machine and the clocks of two processes. A quick
// reconnect (a server restart, a short blip) stays well inside d/6 and
// keeps the lock. We count from the last poll that saw a session, so a
// slow poll only makes us give up earlier, never later.
//
// A node deleted by someone else (an operator, a buggy client) is not
// watched for — that would cost a request and a notification per hold —
// but Release notices it and reports ErrLost.
func (h *Hold) watch(d time.Duration) {
	poll, grace := 100*time.Millisecond, time.Duration(0)
	if d > 0 {
		poll, grace = min(d/20, poll), d/6
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	lastSession := time.Now()
	for {
		select {
		case <-h.stop:
			return
		case now := <-t.C:
			switch {
			case h.q.conn.SessionID() != h.session:
				h.loseWhileHeld("session expired")
				return
			case h.q.conn.State() == zk.StateHasSession:
				lastSession = now
			case grace > 0 && now.Sub(lastSession) >= grace:
				h.loseWhileHeld(fmt.Sprintf("no session for %v, a sixth of the session timeout", grace.Round(time.Millisecond)))
				return
			}
		}
	}
}

// loseWhileHeld is lose for the watcher: once Release has begun, what the
// watcher sees is Release's own doing, not a loss.
func (h *Hold) loseWhileHeld(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.ended {
		h.loseLocked(reason)
	}
}

// lose records why the hold was lost, closes lost and says so (once).
func (h *Hold) lose(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loseLocked(reason)
}

func (h *Hold) loseLocked(reason string) {
	if h.reason != "" {
		return
	}
	h.reason = reason
	close(h.lost)
	h.q.emit(event.Lost, "", h.node, reason)
}

func (h *Hold) lostReason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// Release lets go of the lock by deleting our node: whoever watches it is
// notified. It returns an error wrapping ErrLost if the hold was lost
// before Release (it still makes sure the node is gone), and ErrNotHeld if
// the hold was already released.
func (h *Hold) Release(ctx context.Context) error {
	if h.released.Swap(true) {
		return ErrNotHeld
	}
	// Stop the watcher first, so nothing we do now is taken for a loss. We
	// do not wait for it to go: it checks ended under mu before it speaks.
	h.mu.Lock()
	h.ended = true
	h.mu.Unlock()
	close(h.stop)

	q := h.q
	q.emit(event.Request, "delete", h.node, "")
	_, err := call(ctx, func() (struct{}, error) { return struct{}{}, q.conn.Delete(h.node, -1) })
	// Our node already gone, or a new session on the conn, means the hold
	// was lost even if the watcher had not seen it yet.
	switch {
	case errors.Is(err, zk.ErrNoNode):
		h.lose("our node was gone at Unlock (deleted by someone else, or our session expired)")
		err = nil
	case q.conn.SessionID() != h.session:
		h.lose("our session was gone at Unlock")
	case errors.Is(err, zk.ErrConnectionClosed) && closed(ctx, q.conn):
		h.lose("the conn was closed: our session, and our node with it, are gone")
		err = nil
	}
	if err != nil && q.remove(h.node) {
		// We could not say whether the delete landed (ctx ended, the
		// connection dropped), but remove made sure of it. (If it is still
		// trying, it keeps at it in the background.)
		err = nil
	}
	if reason := h.lostReason(); reason != "" {
		return fmt.Errorf("seqlock: unlock %s: %w: %s", h.node, ErrLost, reason)
	}
	q.emit(event.Released, "", h.node, "")
	if err != nil {
		return fmt.Errorf("seqlock: unlock %s: delete: %w", h.node, err)
	}
	return nil
}
