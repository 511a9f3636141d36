package demo

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/event"
)

// Milestone is true for the events a short timeline shows: acquired,
// waiting, released, lost.
func Milestone(e event.Event) bool {
	switch e.Kind {
	case event.Acquired, event.Waiting, event.Released, event.Lost:
		return true
	}
	return false
}

// Timeline prints events and story lines as "+  0.123s worker-2 acquired
// lock-0000000003", counting from its start. It is safe for concurrent use:
// locks report from their own goroutines.
type Timeline struct {
	Out  io.Writer
	Show func(event.Event) bool // which events to print; nil: all

	mu    sync.Mutex
	start time.Time
}

// NewTimeline starts a timeline at 0 now.
func NewTimeline(out io.Writer) *Timeline { return &Timeline{Out: out, start: time.Now()} }

// Observe is an event.Observer.
func (t *Timeline) Observe(e event.Event) {
	if t.Show == nil || t.Show(e) {
		t.line(e.Time, e.String())
	}
}

// Say prints a line of the story: "+  1.234s candidate-2 <what>".
func (t *Timeline) Say(who, format string, args ...any) {
	t.line(time.Now(), who+" "+fmt.Sprintf(format, args...))
}

// Printf prints without a timestamp.
func (t *Timeline) Printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, format, args...)
}

// Restart counts from 0 again.
func (t *Timeline) Restart() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start = time.Now()
}

func (t *Timeline) line(at time.Time, s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, "+%7.3fs %s\n", at.Sub(t.start).Seconds(), s)
}
