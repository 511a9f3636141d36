package worldmsg

import (
	"testing"
	"time"
)

func TestAnInboxHandsOverOneBatchAFrameAndDrainsWhenClosed(t *testing.T) {
	b := NewInbox(time.Hour) // a long frame: a second batch would have to wait for it
	b.Put(Notice{Text: "one"})
	b.Put(Notice{Text: "two"})
	if got := b.Next(); len(got) != 2 {
		t.Fatalf("the first batch holds %d messages, want both put before it", len(got))
	}
	b.Put(Notice{Text: "three"})
	if got := b.Take(); len(got) != 1 {
		t.Fatalf("Take returned %d messages, want the one put since the batch, without waiting for the frame", len(got))
	}
	b.Put(Notice{Text: "four"})
	done := make(chan []Msg)
	go func() { done <- b.Next() }() // waits for the hour-long frame…
	b.Close()                        // …until the inbox closes: what is left comes out at once
	if got := <-done; len(got) != 1 {
		t.Fatalf("after Close, Next returned %d messages, want the one left", len(got))
	}
	if got := b.Next(); got != nil {
		t.Fatalf("a drained, closed inbox returned %v, want nil", got)
	}
	b.Put(Notice{Text: "late"})
	if got := b.Take(); got != nil {
		t.Fatalf("a message put after Close was kept: %v", got)
	}
}
