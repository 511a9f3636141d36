package seqlock

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// Handle is what one contender knows about its own holds: whether it is
// busy (acquiring, or holding until it lets go), the current hold, and the
// last one, whose Lost still answers after the release. Mutex keeps one;
// so do 07's Election and 09's Holder, which is why a second Lock, a
// second Campaign and a second lease all get ErrAlreadyHeld the same way.
// The zero Handle holds nothing. Token, Node and Lost may be called from
// any goroutine.
type Handle struct {
	mu      sync.Mutex
	busy    bool  // an Acquire is in progress or a hold exists (until Release)
	current *Hold // the current hold, nil if none
	last    *Hold // the most recent hold, for Lost after Release
}

// Acquire runs acquire and keeps the hold it returns. It returns
// ErrAlreadyHeld, without calling acquire, while another Acquire runs or a
// hold exists — including a hold that was lost and not yet released: the
// caller must Release it (and read ErrLost) before it contends again. A
// second hold would leak, since Release lets go of one.
func (h *Handle) Acquire(ctx context.Context, acquire func(context.Context) (*Hold, error)) error {
	h.mu.Lock()
	if h.busy {
		h.mu.Unlock()
		return ErrAlreadyHeld
	}
	h.busy = true
	h.mu.Unlock()

	hold, err := run(ctx, acquire)

	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.busy = false
		return err
	}
	h.current, h.last = hold, hold
	return nil
}

// run runs acquire and returns what it returns, or stops waiting when ctx
// ends. go-zookeeper's requests take no ctx, so honouring ctx costs a
// goroutine: rather than one per request (zkcall.Do), the whole
// acquisition runs in one goroutine of its own, with ctx marked
// zkcall.Watched so that its requests run in it directly. (A ctx that
// never ends needs none at all.)
//
// When ctx ends, acquire notices at its next step — a wait selects on ctx,
// a request returns — removes its node and returns, and run waits for
// that: Lock returns only once its node is gone, as before. A request cut
// off from the server can take long to fail, so run waits at most
// cleanupWait, the bound the core's own clean-up has; then acquire finishes
// in the background and lets go of a hold it got after all.
func run(ctx context.Context, acquire func(context.Context) (*Hold, error)) (*Hold, error) {
	if ctx.Done() == nil {
		return acquire(ctx)
	}
	type result struct {
		hold *Hold
		err  error
	}
	done := make(chan result, 1)
	go func() {
		hold, err := acquire(zkcall.Watched(ctx))
		done <- result{hold, err}
	}()
	select {
	case r := <-done:
		return r.hold, r.err
	case <-ctx.Done():
	}
	wait := time.NewTimer(cleanupWait)
	defer wait.Stop()
	select {
	case r := <-done:
		return r.hold, r.err
	case <-wait.C:
		go func() {
			if r := <-done; r.err == nil {
				r.hold.Release(context.Background())
			}
		}()
		return nil, ctx.Err()
	}
}

// Release releases the current hold (Hold.Release): ErrNotHeld if there is
// none, an error wrapping ErrLost if it was lost before. The handle is free
// for the next Acquire once the release has finished.
func (h *Handle) Release(ctx context.Context) error {
	h.mu.Lock()
	hold := h.current
	h.current = nil // claim the hold: a second Release gets ErrNotHeld
	h.mu.Unlock()
	if hold == nil {
		return ErrNotHeld
	}
	err := hold.Release(ctx)
	h.mu.Lock()
	h.busy = false
	h.mu.Unlock()
	return err
}

// Hold is the current hold, nil if none.
func (h *Handle) Hold() *Hold {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.current
}

// Token is the current hold's fencing token (Hold.Token), 0 if none.
func (h *Handle) Token() int64 {
	if hold := h.Hold(); hold != nil {
		return hold.Token()
	}
	return 0
}

// Node is the full path of the current hold's node, "" if none.
func (h *Handle) Node() string {
	if hold := h.Hold(); hold != nil {
		return hold.Node()
	}
	return ""
}

// Lost is the current hold's lost-hold channel. Between holds it is the
// last hold's channel (closed if that hold was lost before its release),
// and nil, which never fires, before the first.
func (h *Handle) Lost() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.current != nil:
		return h.current.Lost()
	case h.last != nil:
		return h.last.Lost()
	}
	return nil
}
