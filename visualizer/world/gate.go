package world

import (
	"context"
	"sync"
	"time"
)

// gate holds the workers back while paused: each waits at its next step,
// so a holder keeps holding and a waiter keeps waiting.
type gate struct {
	mu sync.Mutex // guards ch; never held while waiting on it
	ch chan struct{}
}

// set pauses (a fresh open channel to wait on) or resumes (closes it).
func (g *gate) set(paused bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	open := g.ch != nil && isClosed(g.ch)
	switch {
	case paused && (open || g.ch == nil):
		g.ch = make(chan struct{})
	case !paused && !open:
		if g.ch == nil {
			g.ch = make(chan struct{})
		}
		close(g.ch)
	}
}

// wait returns true once running, false if ctx ended first.
func (g *gate) wait(ctx context.Context) bool {
	g.mu.Lock()
	ch := g.ch
	g.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// sleep waits d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
