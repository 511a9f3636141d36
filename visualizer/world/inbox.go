package world

import (
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// inbox collects what happens between two frames; Next hands it over at
// most once per frame, so 64 busy workers cause 30 renders a second, not
// one per event.
type inbox struct {
	mu     sync.Mutex // guards items, last and closed; never held while waiting
	items  []worldmsg.Msg
	last   time.Time
	frame  time.Duration
	wake   chan struct{}
	done   chan struct{}
	closed bool
}

func newInbox(frame time.Duration) *inbox {
	return &inbox{frame: frame, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (b *inbox) put(it worldmsg.Msg) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.items = append(b.items, it)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Next blocks until something happened and a frame has passed since the
// last batch; nil once closed.
func (b *inbox) Next() []worldmsg.Msg {
	for {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return nil
		}
		if len(b.items) > 0 {
			if wait := time.Until(b.last.Add(b.frame)); wait > 0 {
				b.mu.Unlock()
				select {
				case <-time.After(wait):
				case <-b.done:
				}
				continue
			}
			items := b.items
			b.items, b.last = nil, time.Now()
			b.mu.Unlock()
			return items
		}
		b.mu.Unlock()
		select {
		case <-b.wake:
		case <-b.done:
		}
	}
}

// take returns what is there without waiting (the -frames mode).
func (b *inbox) take() []worldmsg.Msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

func (b *inbox) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}
