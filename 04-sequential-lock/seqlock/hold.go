package seqlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// A Hold is one acquisition, from Acquire to Release. While it lasts, its
// Session tells it when its ZooKeeper session is lost (session.go:
// handle), and it closes Lost then.
type Hold struct {
	q       *Queue
	node    string
	token   int64
	session int64 // the session that owns node
	lost    chan struct{}
	// What the Session tells it by: expired when its session is over,
	// silent when the conn has been without it for d/6 (nil with
	// WithoutDisconnectCheck). Release stops listening to both.
	expired, silent *signal

	released atomic.Bool
	mu       sync.Mutex
	ended    bool   // Release has begun: the Session's word no longer counts
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
	h := &Hold{q: q, node: node, token: pzxid, session: session, lost: make(chan struct{})}
	q.opts.Observer.Emit(event.Event{Lock: q.dir, Kind: event.Acquired, Node: node, Token: h.token})
	h.expired, h.silent = q.s.watch(session)
	if q.opts.NoDisconnectCheck {
		h.silent = nil // lost only when the session is known to be over
	}
	h.listen()
	return h
}

// Node is the full path of the node that holds the lock.
func (h *Hold) Node() string { return h.node }

// Token is the hold's fencing token (see hold).
func (h *Hold) Token() int64 { return h.token }

// Lost is closed when the hold is lost without Release.
func (h *Hold) Lost() <-chan struct{} { return h.lost }

// listen has h.lost closed when the Session says the hold's session is
// over, or (unless WithoutDisconnectCheck) that it has been without it for
// d/6. Holding the lock costs no request, no watch, no polling and no
// goroutine: the Session's signals call loseWhileHeld if they fire.
//
// A node deleted by someone else (an operator, a buggy client) is not
// watched for — that would cost a request and a notification per hold —
// but Release notices it and reports ErrLost.
func (h *Hold) listen() {
	h.expired.tell(h)
	if h.silent != nil {
		h.silent.tell(h)
	}
}

// stopListening undoes listen: Release has begun.
func (h *Hold) stopListening() {
	h.expired.forget(h)
	if h.silent != nil {
		h.silent.forget(h)
	}
}

// loseWhileHeld is lose for the Session's signals: once Release has begun,
// what they say is Release's own doing, not a loss.
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
	// Stop listening first, so nothing we do now is taken for a loss. A
	// signal that fired just before may still be telling us:
	// loseWhileHeld checks ended under mu before it speaks.
	h.mu.Lock()
	h.ended = true
	h.mu.Unlock()
	h.stopListening()

	q := h.q
	q.emit(event.Request, "delete", h.node, "")
	_, err := call(ctx, func() (struct{}, error) { return struct{}{}, q.conn.Delete(h.node, -1) })
	// Our node already gone, or a new session on the conn, means the hold
	// was lost even if the Session had not said so yet.
	switch {
	case errors.Is(err, zk.ErrNoNode):
		h.lose("our node was gone at Unlock (deleted by someone else, or our session expired)")
		err = nil
	case q.conn.SessionID() != h.session:
		h.lose("our session was gone at Unlock")
	case errors.Is(err, zk.ErrConnectionClosed) && zkcall.Closed(ctx, q.conn):
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
