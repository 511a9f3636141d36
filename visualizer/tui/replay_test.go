package tui

import (
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	semscene "github.com/lockstep-zk/lockstep/09-semaphore/scene"
	"github.com/lockstep-zk/lockstep/event"
)

// herdRecording is a real failing run: chapter 04's TestQueue against a
// copy of the lock whose First returns queue[0].Name (every waiter watches
// the lowest node), recorded with LOCKSTEP_RECORD_DIR.
func herdRecording(t testing.TB) event.Recording {
	t.Helper()
	rec := readRecording(t, "testdata/replay/04-herd.events.jsonl")
	return rec
}

func herdReplay(t testing.TB) *Replay { return NewReplay(herdRecording(t), sceneOf(t, "04")) }

func replayPress(m ReplayModel, keys ...string) ReplayModel {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "left", "right", "home", "end":
			msg = tea.KeyMsg{Type: map[string]tea.KeyType{"left": tea.KeyLeft, "right": tea.KeyRight,
				"home": tea.KeyHome, "end": tea.KeyEnd}[k]}
		default:
			msg = keyMsg(k)
		}
		next, _ := m.Update(msg)
		m = next.(ReplayModel)
	}
	return m
}

func TestReplayPlaysUntilTheBreakingEventAndStops(t *testing.T) {
	rp := herdReplay(t)
	m := NewReplayModel(rp)
	if !m.playing || m.pos != 0 {
		t.Fatalf("a replay starts playing at 0: playing %v at %d", m.playing, m.pos)
	}
	var cmd tea.Cmd = m.Init()
	for steps := 0; cmd != nil; steps++ {
		if steps > rp.Len() {
			t.Fatal("play never stopped")
		}
		next, c := m.Update(replayTickMsg{m.gen})
		m, cmd = next.(ReplayModel), c
	}
	if m.pos != rp.BrokeAt()+1 || m.playing {
		t.Fatalf("play stopped at %d (playing %v), want right after the breaking event %d", m.pos, m.playing, rp.BrokeAt())
	}
	if v := m.View(); !strings.Contains(v, "BROKE HERE") || !strings.Contains(v, "release 1 woke 5 waiters") {
		t.Errorf("at the breaking event the header does not say why:\n%s", v)
	}
	// Space plays on past it.
	m = replayPress(m, "space")
	next, _ := m.Update(replayTickMsg{m.gen})
	if m = next.(ReplayModel); m.pos != rp.BrokeAt()+2 {
		t.Errorf("space at the breaking event: at %d, want %d", m.pos, rp.BrokeAt()+2)
	}
}

func TestReplayStepsBackwardsToTheSameScreen(t *testing.T) {
	rp := herdReplay(t)
	m := replayPress(NewReplayModel(rp), "b")
	at := m.View()
	back := replayPress(m, "left", "left", "left")
	if back.pos != m.pos-3 || back.playing {
		t.Fatalf("three lefts: at %d (playing %v), want %d, paused", back.pos, back.playing, m.pos-3)
	}
	if again := replayPress(back, "right", "right", "right"); again.View() != at {
		t.Errorf("back three and forward three is not the same screen:\n%s\n---\n%s", again.View(), at)
	}
	if got := replayPress(m, "home"); got.pos != 0 {
		t.Errorf("home: at %d", got.pos)
	}
	if got := replayPress(m, "end"); got.pos != rp.Len() {
		t.Errorf("end: at %d, want %d", got.pos, rp.Len())
	}
	if got := replayPress(m, "home", "left"); got.pos != 0 {
		t.Errorf("left at the start: at %d", got.pos)
	}
	// A tick from before a key press is stale: it does not move.
	stale := m.gen
	m = replayPress(m, "left")
	if next, _ := m.Update(replayTickMsg{stale}); next.(ReplayModel).pos != m.pos {
		t.Error("a stale tick moved the replay")
	}
}

func TestReplayRebuildsTheQueueFromTheEvents(t *testing.T) {
	rp := herdReplay(t)
	// Before the holder's release: the holder's node and the five
	// waiters' nodes, and every waiter watching the holder's (the herd).
	release := -1
	for i, e := range herdRecording(t).Events {
		if e.Owner == "holder" && e.Kind == event.Request && e.Op == "delete" {
			release = i
			break
		}
	}
	m := rp.At(release)
	if len(m.queue.Nodes) != 6 || m.queue.Nodes[0].Owner != "holder" {
		t.Fatalf("queue before the release = %+v, want the holder's node and five more", m.queue.Nodes)
	}
	for i, q := range m.queue.Nodes[1:] {
		if want := "waiter-" + string(rune('0'+i)); q.Owner != want {
			t.Errorf("node %d owned by %q, want %s", i+1, q.Owner, want)
		}
	}
	if !strings.Contains(m.View(), "watched by 5") {
		t.Errorf("before the release the view does not show five waiters on one node:\n%s", m.View())
	}
	// At the end everything was released: nothing left.
	if end := rp.At(rp.Len()); len(end.queue.Nodes) != 0 {
		t.Errorf("after the last release the queue still has %+v", end.queue.Nodes)
	}
}

func TestReplayGoldenAtTheBreakingEvent(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	rp := herdReplay(t)
	m := NewReplayModel(rp)
	m.playing = false
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	tm.Send(keyMsg("b"))
	tm.Send(keyMsg("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(ReplayModel)
	if final.pos != rp.BrokeAt()+1 {
		t.Fatalf("at %d, want %d", final.pos, rp.BrokeAt()+1)
	}
	golden.RequireEqual(t, []byte(final.View()))
}

// The conformance suite records what it sees (who held, from when to
// when, with the token): a real failing run of the suite against the
// no-relist mistake (04's waitTurn holding right after its wait, without
// listing the queue again) stops where the token did not increase.
func TestTheConformanceSuitesRecordingStopsWhereTheTokenRepeated(t *testing.T) {
	rec := readRecording(t, "testdata/replay/04-no-relist-conformance.events.jsonl")
	rp := NewReplay(rec, sceneOf(t, "04"))
	m := replayPress(NewReplayModel(rp), "b")
	v := m.View()
	if !strings.Contains(v, "BROKE HERE") || !strings.Contains(v, "fencing tokens must increase") {
		t.Errorf("at the breaking event:\n%s", v)
	}
	broke := rec.Events[rp.BrokeAt()]
	if broke.Kind != event.Acquired || broke.Token > rec.Events[rp.BrokeAt()-2].Token {
		t.Errorf("the breaking event is %v, want an Acquired whose token does not increase", broke)
	}
}

// A test that failed without saying where (04's quitter test against the
// no-relist mistake gave up waiting for a second wait that never came):
// the replay finds the first event against the chapter's expectation, the
// second holder, and stops there.
func TestAnUnmarkedRecordingStopsWhereTheChaptersExpectationBroke(t *testing.T) {
	rec := readRecording(t, "testdata/replay/04-no-relist-quitter.events.jsonl")
	if rec.Header.BrokeAt != -1 {
		t.Fatalf("the fixture is marked (%d): want an unmarked one", rec.Header.BrokeAt)
	}
	rp := NewReplay(rec, sceneOf(t, "04"))
	b := rp.BrokeAt()
	if b < 0 || rec.Events[b].Kind != event.Acquired || rec.Events[b].Owner != "last" {
		t.Fatalf("the replay stops at %d, want the last waiter's Acquired while the holder holds", b)
	}
	v := replayPress(NewReplayModel(rp), "b").View()
	if strings.Count(v, " HOLDS") != 2 || !strings.Contains(v, "2 held at once (seen by the replay)") {
		t.Errorf("at the second holder:\n%s", v)
	}
}

// The workshop runner writes the failing test's own message into a
// recording the test did not mark: the headline says what the test
// asserted, and never that the test missed anything.
func TestAnUnmarkedRecordingSaysWhatItsTestAsserted(t *testing.T) {
	rec := readRecording(t, "testdata/replay/04-no-relist-quitter.events.jsonl")
	rec.Header.Why = "took the lock without listing the queue again"
	v := replayPress(NewReplayModel(NewReplay(rec, sceneOf(t, "04"))), "b").View()
	if !strings.Contains(v, "the test: took the lock") || strings.Contains(v, "did not say") {
		t.Errorf("at the second holder, the headline must say what the test asserted:\n%s", v)
	}
	rec.Events = rec.Events[:1] // nothing against the chapter's expectation yet
	v = NewReplayModel(NewReplay(rec, sceneOf(t, "04"))).View()
	if !strings.Contains(v, "the test: took the lock") || strings.Contains(v, "did not say") {
		t.Errorf("with no event to stop at, the headline must still say what the test asserted:\n%s", v)
	}
}

// readRecording reads one of testdata's recordings.
func readRecording(t testing.TB, path string) event.Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := event.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// A real failing run: chapter 03's TestConformance against a copy of the
// lock that returns from Lock as soon as its watch fires, without creating
// the node (the suite's exclusion scenario, recorded with
// LOCKSTEP_RECORD_DIR). At the breaking event the queue shows both holders
// of the one node, and the counters and the log show what the locks did
// to get there: the suite records the locks' own requests, watches and
// notifications beside who held.
func TestAReplayOfTwoHoldersShowsBothInTheQueue(t *testing.T) {
	rec := readRecording(t, "testdata/replay/03-two-holders.events.jsonl")
	for lang, want := range map[string][]string{
		"en": {"▶ lock contender-3 HOLDS", "▶ contender-2 HOLDS it too", "contender-3 notified: EventNodeDeleted lock", "req 10"},
		"zh": {"▶ lock contender-3 持有", "▶ contender-2 也持有它"},
	} {
		rp := NewReplay(rec, sceneOf(t, "03"))
		rp.lang = lang
		m := NewReplayModel(rp)
		m.width, m.height = 100, 30
		v := replayPress(m, "b").View()
		for _, w := range want {
			if !strings.Contains(v, w) {
				t.Errorf("%s: at the breaking event the screen does not show %q:\n%s", lang, w, v)
			}
		}
		if strings.Contains(v, m.shown.say().Empty) {
			t.Errorf("%s: the queue says nobody holds while two do:\n%s", lang, v)
		}
	}
}

// A real failing run: chapter 09's TestTryAcquireDoesNotWaitAtTheGate
// against a copy of the lock that takes a lease while out <= n (one too
// many), recorded with LOCKSTEP_RECORD_DIR. The replay reads the events as
// the live view does: taking the gate is not holding (acq counts leases),
// the queue holds the leases and the gate's nodes under the semaphore, not
// the leases directory a children watch names, and the lease the second
// client created and deleted again is gone.
func TestAReplayOf09ReadsTheGateAsTheLiveViewDoes(t *testing.T) {
	rec := readRecording(t, "testdata/replay/09-out-le-n.events.jsonl")
	m := NewReplayModel(NewReplay(rec, semscene.New()))
	m.width, m.height = 100, 30
	m = replayPress(m, "end")
	v := m.View()
	for _, want := range []string{"acq 1 ", "▶ lease-0000000000 client-1 L LEASE", "client-2 info lock-0000000001: opens the gate"} {
		if !strings.Contains(v, want) {
			t.Errorf("the replay's end does not show %q:\n%s", want, v)
		}
	}
	for _, bad := range []string{"lease-0000000001", "leases ?", "lock-0000000000 client-1"} {
		if strings.Contains(strings.Join(m.shown.queueView(50, 8), "\n"), bad) {
			t.Errorf("the queue shows %q:\n%s", bad, v)
		}
	}
}
