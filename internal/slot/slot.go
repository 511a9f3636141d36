// Package slot is one contender's bookkeeping of its holds: whether it is
// busy (acquiring, or holding until it lets go), the current hold, and the
// last one, whose Lost still answers after the release. seqlock's Mutex
// keeps one, and so do 07's Election and 09's Holder, which is why a second
// Lock, a second Campaign and a second lease all get ErrAlreadyHeld the
// same way, and why a hold that was lost must be let go of (and its ErrLost
// read) before the next: a second hold would leak, since a release lets go
// of one.
package slot

import "sync"

// A Hold is what a Slot keeps: something held, with a Lost channel.
type Hold interface{ Lost() <-chan struct{} }

// Slot keeps one contender's holds. The zero Slot holds nothing. Its
// methods may be called from any goroutine.
type Slot[H Hold] struct {
	mu      sync.Mutex
	busy    bool // an acquisition is in progress, or a hold exists until Take
	current H    // the current hold, the zero H if none
	last    H    // the most recent hold
	held    bool // current is a hold
	ever    bool // last is a hold
}

// Begin claims the slot for an acquisition. It reports false, claiming
// nothing, while another acquisition runs or a hold exists.
func (s *Slot[H]) Begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return false
	}
	s.busy = true
	return true
}

// End ends the acquisition Begin claimed: with err nil it keeps h as the
// current hold; otherwise the slot is free again. It returns err.
func (s *Slot[H]) End(h H, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.busy = false
		return err
	}
	s.current, s.last, s.held, s.ever = h, h, true, true
	return nil
}

// Take hands over the current hold for its release (ok false: none), and
// Free, once it is released, lets the next acquisition Begin.
func (s *Slot[H]) Take() (h H, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok = s.current, s.held
	var zero H
	s.current, s.held = zero, false // a second Take gets nothing
	return h, ok
}

// Free ends what Take began: the slot may Begin again.
func (s *Slot[H]) Free() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = false
}

// Current is the current hold (ok false: none).
func (s *Slot[H]) Current() (H, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current, s.held
}

// Lost is the current hold's Lost; between holds the last one's (closed if
// it was lost before its release), and nil, which never fires, before the
// first.
func (s *Slot[H]) Lost() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.held:
		return s.current.Lost()
	case s.ever:
		return s.last.Lost()
	}
	return nil
}
