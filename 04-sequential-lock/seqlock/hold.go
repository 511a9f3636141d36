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
	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// A hold is one acquisition, from acquire to release: our node, its
// fencing token, and how it is lost. While it lasts, its Session tells it
// when its ZooKeeper session ends or has been out of reach for d/6
// (session.go: handle), and it closes lost then.
type hold struct {
	q     *queue
	node  string
	token int64
	lost  chan struct{}
	told  chan struct{} // closed once the observer has heard of the loss
	// What the Session tells it by: ended when its session ends, silent
	// when the conn has been without it for d/6 (nil with
	// WithoutDisconnectCheck). release stops listening to both.
	ended, silent *signal

	released atomic.Bool
	mu       sync.Mutex
	stopped  bool   // release has begun: the Session's word no longer counts
	reason   string // why the hold was lost, "" while it is not
}

// hold starts a hold on node, which the rule has just said holds the lock
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
//
// Holding costs no request, no watch, no polling and no goroutine: the
// Session's signals call loseWhileHeld if they fire. A node deleted by
// someone else (an operator, a buggy client) is not watched for — that
// would cost a request and a notification per hold — but release notices
// it and reports ErrLost.
func (q *queue) hold(node string, pzxid int64) *hold {
	h := &hold{q: q, node: node, token: pzxid, lost: make(chan struct{}), told: make(chan struct{})}
	q.opts.Observer.Emit(event.Event{Lock: q.dir, Kind: event.Acquired, Node: node, Token: h.token})
	h.ended, h.silent = q.s.signals()
	if q.opts.NoDisconnectCheck {
		h.silent = nil // lost only when the session is known to be over
	}
	h.ended.tell(h)
	if h.silent != nil {
		h.silent.tell(h)
	}
	return h
}

// Lost is closed when the hold is lost without release.
func (h *hold) Lost() <-chan struct{} { return h.lost }

// loseWhileHeld is lose for the Session's signals: once release has begun,
// what they say is release's own doing, not a loss. The signals call it
// under the Session's lock, on go-zookeeper's event goroutine or a timer's:
// it closes lost at once (so that when Done is closed, every hold's Lost
// is too), and tells the observer, which is the caller's code, from a
// goroutine of its own. A loss is rare; this is the only goroutine a hold
// ever costs.
func (h *hold) loseWhileHeld(reason string) {
	h.mu.Lock()
	lost := !h.stopped && h.setLost(reason)
	h.mu.Unlock()
	if !lost {
		return
	}
	if h.q.opts.Observer == nil {
		close(h.told)
		return
	}
	go h.sayLost(h.lostEvent(reason)) // stamped now, told later
}

// lose records why the hold was lost, closes lost and says so (once).
func (h *hold) lose(reason string) {
	h.mu.Lock()
	lost := h.setLost(reason)
	h.mu.Unlock()
	if lost {
		h.sayLost(h.lostEvent(reason))
	}
}

// lostEvent is the Lost event, stamped with the moment the hold was lost.
func (h *hold) lostEvent(reason string) event.Event {
	return event.Event{Time: time.Now(), Lock: h.q.dir, Kind: event.Lost, Node: h.node, Detail: reason}
}

// sayLost has the observer hear of the loss, then closes told.
func (h *hold) sayLost(e event.Event) {
	h.q.opts.Observer.Emit(e)
	close(h.told)
}

// setLost records reason and closes lost, unless the hold was lost
// already; it reports whether it did. h.mu is held.
func (h *hold) setLost(reason string) bool {
	if h.reason != "" {
		return false
	}
	h.reason = reason
	close(h.lost)
	return true
}

func (h *hold) lostReason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason
}

// release lets go of the lock by deleting our node: whoever watches it is
// notified. It returns an error wrapping ErrLost if the hold was lost
// before release (it still makes sure the node is gone), and ErrNotHeld if
// the hold was already released.
func (h *hold) release(ctx context.Context) error {
	if h.released.Swap(true) {
		return ErrNotHeld
	}
	// Stop listening first, so nothing we do now is taken for a loss. A
	// signal that fired just before may still be telling us:
	// loseWhileHeld checks stopped under mu before it speaks.
	h.mu.Lock()
	h.stopped = true
	h.mu.Unlock()
	h.ended.forget(h)
	if h.silent != nil {
		h.silent.forget(h)
	}

	q := h.q
	q.emit(event.Request, "delete", h.node, "")
	err := q.s.calls.Delete(ctx, h.node, -1)
	switch {
	case err == nil:
	case errors.Is(err, zk.ErrNoNode):
		h.lose("our node was gone at Unlock (deleted by someone else, or our session expired)")
		err = nil
	case q.s.alive() != nil:
		h.lose("our session was over at Unlock")
		err = nil
	case errors.Is(err, zk.ErrConnectionClosed) && zkcall.Closed(context.Background(), q.s.conn):
		// (Not ctx: a ctx that ends while we look would pass for a
		// closed conn, and a live session's node would be left behind.)
		h.lose("the conn was closed: our session, and our node with it, are gone")
		err = nil
	}
	if err != nil && mayStillLand(err) && q.remove(h.node) == nil {
		// We could not say whether the delete landed (ctx ended, the
		// connection dropped), but remove made sure of it. (If it is still
		// trying, it keeps at it in the background.)
		err = nil
	}
	if reason := h.lostReason(); reason != "" {
		<-h.told // the observer hears of the loss before Unlock's caller does
		return fmt.Errorf("seqlock: unlock %s: %w: %s", h.node, ErrLost, reason)
	}
	q.emit(event.Released, "", h.node, "")
	if err != nil {
		return fmt.Errorf("seqlock: unlock %s: delete: %w", h.node, q.s.explain(err))
	}
	return nil
}
