package worldmsg

import (
	"sync"
	"time"
)

// An Inbox collects what happens between two frames: Put never waits, and
// Next hands the batch over at most once per frame, so 64 busy workers
// cause 30 renders a second, not one per event. The live world and the
// observe mode each keep one.
type Inbox struct {
	mu     sync.Mutex // guards items, last and closed; never held while waiting
	items  []Msg
	last   time.Time
	frame  time.Duration
	wake   chan struct{}
	done   chan struct{}
	closed bool
}

// NewInbox hands batches over at most once per frame.
func NewInbox(frame time.Duration) *Inbox {
	return &Inbox{frame: frame, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Put adds m to the next batch; after Close it is dropped.
func (b *Inbox) Put(m Msg) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.items = append(b.items, m)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Next blocks until something happened and a frame has passed since the
// last batch. Once closed it returns what is left, then nil.
func (b *Inbox) Next() []Msg {
	for {
		b.mu.Lock()
		if len(b.items) > 0 {
			if wait := time.Until(b.last.Add(b.frame)); wait > 0 && !b.closed {
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
		if b.closed {
			b.mu.Unlock()
			return nil
		}
		b.mu.Unlock()
		select {
		case <-b.wake:
		case <-b.done:
		}
	}
}

// Take returns what is there without waiting (the -frames mode).
func (b *Inbox) Take() []Msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

// Close ends the inbox: Next returns what is left, then nil.
func (b *Inbox) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}
