package event

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// A recording is what a failing test leaves behind for the visualizer to
// replay (go run ./visualizer -replay FILE): JSON lines, first a Header,
// then one Event per line in the order the locks emitted them.
//
//	{"test":"TestQueue/one_release_wakes_exactly_one_waiter","chapter":"04","broke_at":17,"why":"release 1 woke 5 waiters, want exactly 1"}
//	{"Time":"…","Owner":"waiter-0","Lock":"/t-…/lock","Kind":"request","Op":"create","Node":"…"}
//	{"Time":"…","Owner":"waiter-1","Lock":"/t-…/lock","Kind":"notified","Node":"…","Detail":"EventNodeDeleted","Fired":2}
//	…

// Header is a recording's first line.
type Header struct {
	Test    string `json:"test"`     // the test's name, subtests included
	Chapter string `json:"chapter"`  // "04": which chapter's words the replay uses
	BrokeAt int    `json:"broke_at"` // index of the event where the property broke, -1 if unknown
	Why     string `json:"why"`      // the property that broke, in the lesson's words
}

// Recording is a header and its events.
type Recording struct {
	Header Header
	Events []Event
}

// MarshalText writes a Kind by its name ("acquired"), so a recording reads
// without the table of numbers.
func (k Kind) MarshalText() ([]byte, error) {
	if k <= 0 || int(k) >= len(kindNames) {
		return nil, fmt.Errorf("event: no name for Kind(%d)", int(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText reads a Kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if i > 0 && n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("event: unknown kind %q", b)
}

// Write writes r as JSON lines.
func (r Recording) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(r.Header); err != nil {
		return err
	}
	for _, e := range r.Events {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// ErrBadRecording says a file is not a recording.
var ErrBadRecording = errors.New("event: not a recording")

// ReadRecording reads what Recording.Write wrote. A broke_at outside the
// events is an error: the replay would stop nowhere.
func ReadRecording(rd io.Reader) (Recording, error) {
	var r Recording
	sc := bufio.NewScanner(rd)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		if line == 1 {
			r.Header.BrokeAt = -1
			if err := json.Unmarshal(b, &r.Header); err != nil || r.Header.Test == "" {
				return Recording{}, fmt.Errorf("%w: line 1 is not a header {\"test\":…,\"chapter\":…,\"broke_at\":…,\"why\":…}", ErrBadRecording)
			}
			continue
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return Recording{}, fmt.Errorf("%w: line %d: %v", ErrBadRecording, line, err)
		}
		r.Events = append(r.Events, e.typed()) // a recording of before Fired names it in Detail
	}
	if err := sc.Err(); err != nil {
		return Recording{}, err
	}
	if line == 0 {
		return Recording{}, fmt.Errorf("%w: empty", ErrBadRecording)
	}
	if r.Header.BrokeAt < -1 || r.Header.BrokeAt >= len(r.Events) {
		return Recording{}, fmt.Errorf("%w: broke_at %d, but %d events", ErrBadRecording, r.Header.BrokeAt, len(r.Events))
	}
	return r, nil
}

// Recorder keeps every event it observes, for a recording. Safe for
// concurrent use. A nil *Recorder records nothing, so a test harness can
// hand one out whether recording is on or not, and cost nothing when off.
type Recorder struct {
	mu      sync.Mutex
	events  []Event
	brokeAt int
	why     string
	marked  bool
}

// Observe records e.
func (r *Recorder) Observe(e Event) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Observer returns an observer that stamps owner on every event and records
// it; nil when r is nil.
func (r *Recorder) Observer(owner string) Observer {
	if r == nil {
		return nil
	}
	return Observer(r.Observe).WithOwner(owner)
}

// Broke marks the latest event as the one where the property broke: call
// it where a test detects the break. The first mark counts.
func (r *Recorder) Broke(why string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mark(len(r.events)-1, why)
}

// BrokeWhere marks the event find points at, in the events recorded so
// far (find returns -1: the latest). For checkers that know which event
// broke the property (SecondHolder, Herd).
func (r *Recorder) BrokeWhere(find func([]Event) int, why string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i := find(r.events)
	if i < 0 {
		i = len(r.events) - 1
	}
	r.mark(i, why)
}

func (r *Recorder) mark(i int, why string) {
	if r.marked {
		return
	}
	r.marked, r.brokeAt, r.why = true, i, why
}

// Recording returns what r holds, with its header.
func (r *Recorder) Recording(test, chapter string) Recording {
	if r == nil {
		return Recording{Header: Header{Test: test, Chapter: chapter, BrokeAt: -1}}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h := Header{Test: test, Chapter: chapter, BrokeAt: -1}
	if r.marked {
		h.BrokeAt, h.Why = r.brokeAt, r.why
	}
	return Recording{Header: h, Events: append([]Event(nil), r.events...)}
}

// SecondHolder is the index of the first Acquired while another owner
// still holds, -1 if none: mutual exclusion broke there. A holder lets go
// when it asks to delete the node it holds (the next holder's Acquired may
// be recorded before its Released), or at Released or Lost.
func SecondHolder(events []Event) int {
	holding := map[string]string{} // owner → node
	for i, e := range events {
		switch {
		case e.Kind == Acquired:
			for o := range holding {
				if o != e.Owner {
					return i
				}
			}
			holding[e.Owner] = e.Node
		case e.Kind == Request && e.Op == OpDelete:
			if n, ok := holding[e.Owner]; ok && n == e.Node {
				delete(holding, e.Owner)
			}
		case e.Kind == Released || e.Kind == Lost:
			delete(holding, e.Owner)
		}
	}
	return -1
}

// Herd is the index of the last notification that one release caused
// beyond limit, -1 if no release woke more than limit: the moment the herd
// is all awake. A release starts when the holder asks to delete its node
// (the watchers may be told before its Released event) or, failing that,
// at Released or Lost; its notifications are those until the next release.
func Herd(events []Event, limit int) int {
	holds := map[string]string{} // owner → node it holds
	woken, last, counting := 0, -1, false
	start := func() bool {
		if last >= 0 {
			return true
		}
		woken, counting = 0, true
		return false
	}
	for i, e := range events {
		switch {
		case e.Kind == Acquired:
			holds[e.Owner] = e.Node
		case e.Kind == Request && e.Op == OpDelete && holds[e.Owner] == e.Node && e.Node != "":
			delete(holds, e.Owner)
			if start() {
				return last
			}
		case e.Kind == Released || e.Kind == Lost:
			if _, held := holds[e.Owner]; held {
				delete(holds, e.Owner)
				if start() {
					return last
				}
			}
		case e.Kind == Notified && counting:
			if woken++; woken > limit {
				last = i
			}
		}
	}
	return last
}
