package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The header's second line sets what the lock measured beside what the
// chapter expects (scene.Expect), never a fixed sentence.
func TestTheHeaderSaysWhatItMeasuredAndWhatTheChapterExpects(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	line := func(m Model) string { return m.headerLines(80)[1] }

	m := started(t, nil)
	if got := line(m); got != "· no release yet; the predecessor queue wakes 1" {
		t.Errorf("before any release: %q", got)
	}
	if got := line(m.apply(handOff2())); !strings.HasPrefix(got, "✓ each release woke 1.0 waiters (last 1)") {
		t.Errorf("a hand-off: %q", got)
	}

	// The herd mistake in 04: one release, both waiters told.
	herd := []worldmsg.Msg{queueOf("worker-1", "worker-2", "worker-3"),
		ev("worker-1", event.Acquired, "", node(1), ""),
		ev("worker-2", event.WatchSet, "get", node(1), ""), ev("worker-2", event.Waiting, "", node(1), ""),
		ev("worker-3", event.WatchSet, "get", node(1), ""), ev("worker-3", event.Waiting, "", node(1), ""),
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-3", event.Notified, "", node(1), "EventNodeDeleted"),
	}
	if got := line(m.apply(herd)); got != "✗ this release woke 2 waiters; the predecessor queue wakes 1" {
		t.Errorf("the herd in 04: %q", got)
	}
	// Two holders at once (the no-relist mistake) is said first.
	two := append(herd, ev("worker-2", event.Acquired, "", node(2), ""), ev("worker-3", event.Acquired, "", node(3), ""))
	if got := line(m.apply(two)); got != "✗ 2 held at once; one holder at a time" {
		t.Errorf("two holders: %q", got)
	}
	// A holder letting go while the next one gets in is not two holders:
	// its Released may come after the next one's Acquired.
	overlapOfEvents := []worldmsg.Msg{ev("worker-1", event.Acquired, "", node(1), ""),
		ev("worker-2", event.WatchSet, "get", node(1), ""), ev("worker-2", event.Waiting, "", node(1), ""),
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-2", event.Acquired, "", node(2), ""), ev("worker-1", event.Released, "", node(1), "")}
	if got := line(m.apply(overlapOfEvents)); !strings.HasPrefix(got, "✓") {
		t.Errorf("a hand-off whose Released comes late: %q", got)
	}
	// Releases nobody waited for measure nothing: no ✓ for 0 woken.
	alone := []worldmsg.Msg{ev("worker-1", event.Acquired, "", node(1), ""), ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-1", event.Released, "", node(1), "")}
	if got := line(m.apply(alone)); got != "· 1 release, nobody woken yet; the predecessor queue wakes 1" {
		t.Errorf("a release nobody waited for: %q", got)
	}

	// Chapter 03 expects the herd: a release that woke only one of four
	// waiters is the mismatch there.
	h03 := NewModel(nil, nil, testKeys).apply(herdBatch(t))
	if got := line(h03); !strings.HasPrefix(got, "✓ each release woke 4.0 waiters") {
		t.Errorf("03's herd: %q", got)
	}
	lock := "/lockstep/visualizer/03-watch-lock/lock"
	e := func(o string, k event.Kind, op event.Op, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: lock, Detail: detail})}
	}
	quiet := []worldmsg.Msg{worldmsg.ChapterStarted{Scene: sceneOf(t, "03"), Path: lock, Dir: "/lockstep/visualizer/03-watch-lock"},
		e("worker-1", event.Acquired, "", "")}
	for _, w := range []string{"worker-2", "worker-3", "worker-4"} {
		quiet = append(quiet, e(w, event.WatchSet, "exists", ""), e(w, event.Waiting, "", ""))
	}
	quiet = append(quiet, e("worker-1", event.Request, "delete", ""), e("worker-2", event.Notified, "", "EventNodeDeleted"),
		e("worker-1", event.Released, "", ""))
	if got := line(NewModel(nil, nil, testKeys).apply(quiet)); got != "✗ each release woke 1.0 waiters (last 1); one watched node wakes every waiter" {
		t.Errorf("03 waking one of three: %q", got)
	}
}

// handOff2 is handOff followed by worker-1's release to worker-2.
func handOff2() []worldmsg.Msg {
	return append(handOff(),
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-1", event.Released, "", node(1), ""),
		ev("worker-2", event.Acquired, "", node(2), ""))
}
