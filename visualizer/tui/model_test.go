package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	semscene "github.com/lockstep-zk/lockstep/09-semaphore/scene"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// fakeController records what the keys asked for. This is the one fake in
// the visualizer's tests: Update is a pure function of the UI, so its unit
// tests need no ZooKeeper.
type fakeController struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeController) record(s string)         { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }
func (f *fakeController) SetPaused(p bool)        { f.record(fmt.Sprintf("pause %v", p)) }
func (f *fakeController) SetHold(d time.Duration) { f.record("hold " + d.String()) }
func (f *fakeController) AddWorker()              { f.record("add") }
func (f *fakeController) RemoveWorker()           { f.record("remove") }
func (f *fakeController) Kill(w string)           { f.record("kill " + w) }
func (f *fakeController) Expire(w string)         { f.record("expire " + w) }
func (f *fakeController) Switch(c string)         { f.record("switch " + c) }

const dir = "/lockstep/visualizer/04-sequential-lock/lock"

// t0 is far in the future so that real clock ticks never end a flash in
// the middle of a test.
var t0 = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

func node(seq int) string { return fmt.Sprintf("lock-%010d", seq) }

func ev(owner string, k event.Kind, op event.Op, n, detail string) worldmsg.LockEvent {
	full := ""
	if n != "" {
		full = dir + "/" + n
	}
	return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: owner, Kind: k, Op: op, Node: full, Detail: detail})}
}

// started is a model that has begun chapter 04 with three workers.
func started(t *testing.T, ctl Controller) Model {
	t.Helper()
	ch := sceneOf(t, "04")
	m := NewModel(ctl, nil, testKeys)
	m.width, m.height = 100, 30
	return m.apply([]worldmsg.Msg{worldmsg.ChapterStarted{Scene: ch, Path: dir, Dir: dir, Hold: 200 * time.Millisecond},
		worldmsg.WorkerChange{Name: "worker-1", State: worldmsg.Idle}, worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Idle},
		worldmsg.WorkerChange{Name: "worker-3", State: worldmsg.Idle}})
}

// queueOf is a snapshot with worker i owning node seq i.
func queueOf(owners ...string) worldmsg.QueueSnapshot {
	q := worldmsg.QueueSnapshot{Dir: dir}
	for i, o := range owners {
		q.Nodes = append(q.Nodes, worldmsg.QueueNode{Name: node(i + 1), Seq: int64(i + 1), Owner: o})
	}
	return q
}

// handOff is chapter 04 at work: worker-1 holds, 2 waits behind 1, 3
// behind 2; then 1 releases and only 2 is told.
func handOff() []worldmsg.Msg {
	return []worldmsg.Msg{
		queueOf("worker-1", "worker-2", "worker-3"),
		ev("worker-1", event.Request, "create", "", ""),
		ev("worker-1", event.Request, "children", "", ""),
		ev("worker-1", event.Acquired, "", node(1), ""),
		ev("worker-2", event.Request, "create", "", ""),
		ev("worker-2", event.WatchSet, "get", node(1), ""),
		ev("worker-2", event.Waiting, "", node(1), ""),
		ev("worker-3", event.Request, "create", "", ""),
		ev("worker-3", event.WatchSet, "get", node(2), ""),
		ev("worker-3", event.Waiting, "", node(2), ""),
	}
}

func update(t *testing.T, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

func press(t *testing.T, m Model, k string) (Model, tea.Cmd) {
	t.Helper()
	return update(t, m, keyMsg(k))
}

// run executes a command the way Bubble Tea would (batches included) and
// returns the messages it produced.
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func TestEventsDriveWorkerStates(t *testing.T) {
	m := started(t, nil)
	m, _ = update(t, m, lockEventMsg{handOff()})

	t.Run("a worker that acquired holds, the others wait", func(t *testing.T) {
		for name, want := range map[string]worldmsg.State{"worker-1": worldmsg.Holding, "worker-2": worldmsg.Waiting, "worker-3": worldmsg.Waiting} {
			if got := m.workers[name].state; got != want {
				t.Errorf("%s is %v, want %v", name, got, want)
			}
		}
	})
	t.Run("a request marks an idle worker as requesting", func(t *testing.T) {
		m := started(t, nil)
		m = m.apply([]worldmsg.Msg{ev("worker-1", event.Request, "create", "", "")})
		if got := m.workers["worker-1"].state; got != worldmsg.Requesting {
			t.Errorf("state %v, want requesting", got)
		}
		if m.requests != 1 || m.workers["worker-1"].requests != 1 {
			t.Errorf("requests = %d/%d, want 1", m.requests, m.workers["worker-1"].requests)
		}
	})
	t.Run("watches point from each waiter to the node it watches", func(t *testing.T) {
		if _, ok := m.workers["worker-2"].watching[dir+"/"+node(1)]; !ok {
			t.Errorf("worker-2 watches %v, want %s", m.workers["worker-2"].watching, node(1))
		}
		v := m.View()
		if !strings.Contains(v, node(1)+" worker-1 HOLDS ← worker-2") || !strings.Contains(v, node(2)+" worker-2 ← worker-3") {
			t.Errorf("queue panel lacks the watch arrows:\n%s", v)
		}
	})
	t.Run("a release hands the lock to the one waiter that was told", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{
			ev("worker-1", event.Request, "delete", node(1), ""),
			ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
			ev("worker-1", event.Released, "", node(1), ""),
			queueOf("", "worker-2", "worker-3"),
			ev("worker-2", event.Acquired, "", node(2), ""),
		})
		if m.workers["worker-2"].state != worldmsg.Holding || m.workers["worker-1"].state != worldmsg.Idle {
			t.Errorf("states 1=%v 2=%v, want idle and holding", m.workers["worker-1"].state, m.workers["worker-2"].state)
		}
		if m.wasted != 0 || m.wakes != 1 || m.releases != 1 {
			t.Errorf("wasted %d wakes %d releases %d, want 0 1 1", m.wasted, m.wakes, m.releases)
		}
		if len(m.workers["worker-2"].watching) != 0 {
			t.Errorf("a notified watch is gone, but worker-2 still watches %v", m.workers["worker-2"].watching)
		}
		if v := m.View(); strings.Contains(v, "NOTIFIED") || !regexp.MustCompile(`worker-2\s+holding`).MatchString(v) {
			t.Errorf("the new holder's row must say holding, as its node's row says HOLDS:\n%s", v)
		}
	})
	t.Run("a notified waiter flashes until it holds", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted")})
		if !regexp.MustCompile(`worker-2\s+NOTIFIED`).MatchString(m.View()) {
			t.Errorf("the notified worker does not flash:\n%s", m.View())
		}
	})
	t.Run("a waiter notified in vain counts a wasted wake-up", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{
			ev("worker-3", event.Notified, "", node(2), "EventNodeDeleted"),
			ev("worker-3", event.Request, "children", "", ""),
			ev("worker-3", event.WatchSet, "get", node(1), ""),
			ev("worker-3", event.Waiting, "", node(1), ""),
		})
		if m.wasted != 1 || m.workers["worker-3"].wasted != 1 {
			t.Errorf("wasted = %d, want 1", m.wasted)
		}
	})
	t.Run("losing the lock frees the worker and counts as a release", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{ev("worker-1", event.Lost, "", node(1), "session expired")})
		if w := m.workers["worker-1"]; w.state != worldmsg.Idle || w.detail != "session expired" || m.releases != 1 {
			t.Errorf("after Lost: state %v detail %q releases %d", w.state, w.detail, m.releases)
		}
	})
	t.Run("info events are logged and change nothing else", func(t *testing.T) {
		before := m.workers["worker-1"].state
		m := m.apply([]worldmsg.Msg{ev("worker-1", event.Info, "", "", "counter 1 → 2")})
		if m.workers["worker-1"].state != before || !strings.HasSuffix(m.log[len(m.log)-1], "counter 1 → 2") {
			t.Errorf("info changed state or was not logged: %v %q", m.workers["worker-1"].state, m.log[len(m.log)-1])
		}
	})
	t.Run("protected GUIDs are dropped from the log", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{ev("worker-1", event.Request, "get", "_c_0123456789abcdef0123456789abcdef-lock-0000000009", "")})
		if got := m.log[len(m.log)-1]; got != "worker-1 get lock-0000000009" {
			t.Errorf("log line %q", got)
		}
	})
}

func TestHerdAndHandOffReadDifferently(t *testing.T) {
	// Chapter 03: one release, every waiter told, all but one go back.
	ch := sceneOf(t, "03")
	m := NewModel(nil, nil, testKeys)
	lock := "/v/03/lock"
	e := func(o string, k event.Kind, op event.Op, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: lock, Detail: detail})}
	}
	items := []worldmsg.Msg{worldmsg.ChapterStarted{Scene: ch, Path: lock, Dir: "/v/03", Hold: time.Second},
		worldmsg.QueueSnapshot{Dir: "/v/03", Nodes: []worldmsg.QueueNode{{Name: "lock", Seq: -1, Owner: "worker-1"}}},
		e("worker-1", event.Acquired, "", "")}
	for i := 2; i <= 5; i++ {
		w := fmt.Sprintf("worker-%d", i)
		items = append(items, e(w, event.WatchSet, "exists", ""), e(w, event.Waiting, "", ""))
	}
	m = m.apply(items)
	if !strings.Contains(m.View(), "watched by 4") {
		t.Errorf("the herd is not visible before the release:\n%s", m.View())
	}
	items = []worldmsg.Msg{e("worker-1", event.Released, "", "")}
	for i := 2; i <= 5; i++ {
		items = append(items, e(fmt.Sprintf("worker-%d", i), event.Notified, "", "EventNodeDeleted"))
	}
	items = append(items, e("worker-2", event.Acquired, "", ""))
	for i := 3; i <= 5; i++ {
		w := fmt.Sprintf("worker-%d", i)
		items = append(items, e(w, event.Request, "create", ""), e(w, event.WatchSet, "exists", ""), e(w, event.Waiting, "", ""))
	}
	items = append(items, e("worker-2", event.Released, "", ""))
	m = m.apply(items)
	if m.wokeLast != 4 || m.wasted != 3 {
		t.Errorf("one release woke %d (want 4) and wasted %d (want 3)", m.wokeLast, m.wasted)
	}
	if v := m.View(); len(regexp.MustCompile(`worker-\d\s+NOTIFIED`).FindAllString(v, -1)) != 4 || !strings.Contains(v, "woken/release 2.0 (last 4)") {
		t.Errorf("the burst is not obvious:\n%s", v)
	}
}

func TestKeys(t *testing.T) {
	ctl := &fakeController{}
	base := started(t, ctl).apply(handOff())
	cases := []struct {
		key    string
		want   string // the controller call, "" for none
		status string
	}{
		{"space", "pause true", "paused"},
		// The workshop runner's keys mean nothing here (docs/learners.md:
		// one meaning per key across both): p replay, f full suite.
		{"p", "", ""},
		{"f", "", ""},
		{"+", "hold 100ms", "hold 100ms"},
		{"-", "hold 400ms", "hold 400ms"},
		{"a", "add", "adding"},
		{"x", "remove", "removing"},
		{"k", "kill worker-1", "killed worker-1"},
		{"e", "expire worker-1", "expiring worker-1"},
		{"3", "switch 03", "switching to chapter 03"},
		{"4", "", ""},
		{"7", "switch 07", "switching to chapter 07"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("key %q", c.key), func(t *testing.T) {
			ctl.calls = nil
			m, cmd := press(t, base, c.key)
			run(cmd)
			if c.want == "" && len(ctl.calls) != 0 || c.want != "" && !slices.Equal(ctl.calls, []string{c.want}) {
				t.Errorf("controller calls %v, want %q", ctl.calls, c.want)
			}
			if !strings.Contains(m.status, c.status) {
				t.Errorf("status %q, want it to mention %q", m.status, c.status)
			}
		})
	}
	t.Run("a chapter that is not wired in is refused", func(t *testing.T) {
		ctl.calls = nil
		m := base
		m.available = []string{"04"}
		m, cmd := press(t, m, "3")
		run(cmd)
		if len(ctl.calls) != 0 || !strings.Contains(m.status, "no scene") {
			t.Errorf("calls %v status %q", ctl.calls, m.status)
		}
	})
	t.Run("a chapter 10 or 12 is reached by its two digits, and 01 still by 1 or 01", func(t *testing.T) {
		m := base
		m.available = []string{"01", "04", "10", "12"}
		for _, c := range []struct {
			keys, want, status string
		}{
			{"4", "switch 04", ""}, // 04 is the one shown: no switch, as before
			{"1 0", "switch 10", "switching to chapter 10"},
			{"1 2", "switch 12", "switching to chapter 12"},
			{"0 1", "switch 01", "switching to chapter 01"},
			{"1", "", "chapter 1…: type the next digit (10, 12)"},
			{"1 1", "", "chapter 11 has no scene"},
			{"1 up 2", "", "chapter 02 has no scene"}, // another key forgets the 1: then 2 is 02
			{"8", "", "chapter 08 has no scene"},
		} {
			ctl.calls = nil
			m := m
			m.chapter.Key = "04"
			var cmd tea.Cmd
			for _, k := range strings.Fields(c.keys) {
				m, cmd = press(t, m, k)
				run(cmd)
			}
			want := []string{c.want}
			if c.want == "" || c.want == "switch 04" {
				want = nil
			}
			if !slices.Equal(ctl.calls, want) || !strings.Contains(m.status, c.status) {
				t.Errorf("keys %s: calls %v status %q, want %v and a status with %q", c.keys, ctl.calls, m.status, want, c.status)
			}
		}
	})
	t.Run("pause twice resumes", func(t *testing.T) {
		ctl.calls = nil
		m, cmd := press(t, base, "space")
		run(cmd)
		m, cmd = press(t, m, "space")
		run(cmd)
		if m.paused || !slices.Equal(ctl.calls, []string{"pause true", "pause false"}) {
			t.Errorf("paused=%v calls %v", m.paused, ctl.calls)
		}
		if !strings.Contains(press1View(t, base, "space"), "PAUSED") {
			t.Error("the header does not say PAUSED")
		}
	})
	t.Run("speed stays within bounds", func(t *testing.T) {
		m := base
		for range 20 {
			m, _ = press(t, m, "+")
		}
		if m.hold != minHold {
			t.Errorf("hold %v, want %v", m.hold, minHold)
		}
		for range 20 {
			m, _ = press(t, m, "-")
		}
		if m.hold != maxHold {
			t.Errorf("hold %v, want %v", m.hold, maxHold)
		}
	})
	t.Run("the cursor selects whom k and e act on", func(t *testing.T) {
		ctl.calls = nil
		m, _ := press(t, base, "down") // worker-1
		m, _ = press(t, m, "down")     // worker-2
		m, _ = press(t, m, "down")     // worker-3
		m, _ = press(t, m, "down")     // stays on worker-3
		_, cmd := press(t, m, "k")
		run(cmd)
		m, _ = press(t, m, "up")
		_, cmd = press(t, m, "e")
		run(cmd)
		if !slices.Equal(ctl.calls, []string{"kill worker-3", "expire worker-2"}) {
			t.Errorf("calls %v", ctl.calls)
		}
		m, _ = press(t, m, "up")
		m, _ = press(t, m, "up") // back to following the holder
		if m.cursor != -1 || m.selected() != "worker-1" {
			t.Errorf("cursor %d selects %q, want the holder", m.cursor, m.selected())
		}
	})
	t.Run("k with nobody holding and nobody selected does nothing", func(t *testing.T) {
		ctl.calls = nil
		m, cmd := press(t, started(t, ctl), "k")
		run(cmd)
		if len(ctl.calls) != 0 || !strings.Contains(m.status, "nobody holds") {
			t.Errorf("calls %v status %q", ctl.calls, m.status)
		}
	})
	t.Run("a crashed worker cannot be killed again", func(t *testing.T) {
		ctl.calls = nil
		m := base.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-1", State: worldmsg.Crashed, Detail: "killed"}})
		m, _ = press(t, m, "down")
		m, cmd := press(t, m, "k")
		run(cmd)
		if len(ctl.calls) != 0 || !strings.Contains(m.status, "already gone") {
			t.Errorf("calls %v status %q", ctl.calls, m.status)
		}
	})
	for _, k := range []string{"q", "ctrl+c"} {
		t.Run("key "+k+" quits", func(t *testing.T) {
			msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
			if k == "ctrl+c" {
				msg = tea.KeyMsg{Type: tea.KeyCtrlC}
			}
			_, cmd := update(t, base, msg)
			if msgs := run(cmd); len(msgs) != 1 || msgs[0] != tea.Quit() {
				t.Errorf("got %v, want tea.Quit", msgs)
			}
		})
	}
}

func press1View(t *testing.T, m Model, k string) string {
	t.Helper()
	m, _ = press(t, m, k)
	return m.View()
}

func TestWorkerChanges(t *testing.T) {
	m := started(t, nil).apply(handOff())
	t.Run("a killed worker's node is marked until the server deletes it", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-1", State: worldmsg.Crashed, Detail: "its node stays"}})
		if v := m.View(); !strings.Contains(v, node(1)+" worker-1 (crashed)") || !strings.Contains(v, "crashed") {
			t.Errorf("crash not shown:\n%s", v)
		}
		before := m.workers["worker-1"].requests
		m = m.apply([]worldmsg.Msg{ev("worker-1", event.Request, "delete", node(1), "")})
		if m.workers["worker-1"].state != worldmsg.Crashed || m.workers["worker-1"].requests != before {
			t.Error("events after the kill changed the crashed worker")
		}
		m = m.apply([]worldmsg.Msg{worldmsg.QueueSnapshot{Dir: dir, Nodes: queueOf("worker-1", "worker-2", "worker-3").Nodes[1:]}})
		if !strings.Contains(strings.Join(m.log, "\n"), "server deleted lock-0000000001: worker-1's session expired") {
			t.Errorf("the server's delete is not logged:\n%s", strings.Join(m.log, "\n"))
		}
	})
	t.Run("a cut-off worker stays cut off until its session expires", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.CutOff, Detail: "link cut"},
			ev("worker-2", event.Request, "children", "", "")})
		if m.workers["worker-2"].state != worldmsg.CutOff {
			t.Errorf("state %v, want cut off", m.workers["worker-2"].state)
		}
		m = m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Expired, Detail: "expired"},
			ev("worker-2", event.Request, "create", "", "")})
		if m.workers["worker-2"].state != worldmsg.Expired || len(m.workers["worker-2"].watching) != 0 {
			t.Errorf("state %v watching %v, want expired with no watches", m.workers["worker-2"].state, m.workers["worker-2"].watching)
		}
		m = m.apply([]worldmsg.Msg{ev("worker-2", event.WatchSet, "get", node(3), "")})
		if m.workers["worker-2"].state != worldmsg.Waiting {
			t.Errorf("back in the queue, state %v, want waiting", m.workers["worker-2"].state)
		}
	})
	t.Run("a new chapter forgets the old one", func(t *testing.T) {
		ch := sceneOf(t, "03")
		m := m.apply([]worldmsg.Msg{worldmsg.ChapterStarted{Scene: ch, Dir: "/x"}})
		if len(m.workers) != 0 || m.requests != 0 || len(m.queue.Nodes) != 0 || m.chapter.Key != "03" {
			t.Errorf("state left over: %d workers, %d requests", len(m.workers), m.requests)
		}
	})
	t.Run("a removed worker leaves the screen", func(t *testing.T) {
		m := m
		m, _ = press(t, m, "down")
		m, _ = press(t, m, "down")
		m, _ = press(t, m, "down")
		m = m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-3", State: worldmsg.Stopped, Detail: "unlocks and closes its session"}})
		if _, ok := m.workers["worker-3"]; ok || len(m.order) != 2 || m.cursor != 1 {
			t.Errorf("worker-3 still there: order %v cursor %d", m.order, m.cursor)
		}
	})
	t.Run("a removed worker's late events do not bring its row back", func(t *testing.T) {
		// x: the view hears "stopped", then what the worker's lock still
		// said on its way out (its delete, its Released). 04's ghost row.
		m := m.apply([]worldmsg.Msg{ev("worker-3", event.Acquired, "", node(7), "")})
		m = m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-3", State: worldmsg.Stopped, Detail: "unlocks and closes its session"},
			ev("worker-3", event.Request, "delete", node(7), ""), ev("worker-3", event.Released, "", node(7), "")})
		if _, ok := m.workers["worker-3"]; ok || slices.Contains(m.order, "worker-3") {
			t.Errorf("worker-3 is back after its removal: order %v", m.order)
		}
		if strings.Contains(m.workersView(60, 10)[3], "worker-3") {
			t.Errorf("a ghost row of worker-3:\n%s", strings.Join(m.workersView(60, 10), "\n"))
		}
		m = m.apply([]worldmsg.Msg{worldmsg.ChapterStarted{Scene: sceneOf(t, "04"), Path: dir, Dir: dir},
			ev("worker-3", event.Request, "create", node(1), "")})
		if _, ok := m.workers["worker-3"]; !ok {
			t.Error("the next chapter's worker-3 is not shown: a removal belongs to its chapter")
		}
	})
	t.Run("a worker back on a new session says so where the expire key said it was expiring", func(t *testing.T) {
		for lang, want := range map[string]string{
			"en": "worker-2 is back on a new session 0xabc",
			"zh": "worker-2 已换上新会话 0xabc",
		} {
			m := m.inLang(lang)
			m.status = fmt.Sprintf(m.say().StatusExpiring, "worker-2")
			m = m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.CutOff, Detail: "link cut"},
				worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Expired, Detail: "expired"}})
			if !strings.Contains(m.View(), "» "+fmt.Sprintf(m.say().StatusExpiring, "worker-2")) {
				t.Fatalf("%s: before the new session the status line should still say it is expiring:\n%s", lang, m.View())
			}
			m = m.apply([]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Idle, Session: 0xabc}})
			if !strings.Contains(m.View(), "» "+want) {
				t.Errorf("%s: the status line does not say %q:\n%s", lang, want, m.View())
			}
			if !strings.HasPrefix(m.log[len(m.log)-1], want) {
				t.Errorf("%s: the log ends with %q, want %q", lang, m.log[len(m.log)-1], want)
			}
			if m.workers["worker-2"].state != worldmsg.Idle {
				t.Errorf("%s: state %v, want idle", lang, m.workers["worker-2"].state)
			}
		}
	})
	t.Run("notices go to the log", func(t *testing.T) {
		m := m.apply([]worldmsg.Msg{worldmsg.Notice{Text: "worker-9 lock: boom"}})
		if m.log[len(m.log)-1] != "worker-9 lock: boom" {
			t.Errorf("log ends with %q", m.log[len(m.log)-1])
		}
	})
	t.Run("the log keeps the latest lines only", func(t *testing.T) {
		m := m
		for i := range 5 * logKeep {
			m = m.apply([]worldmsg.Msg{worldmsg.Notice{Text: fmt.Sprint(i)}})
		}
		if len(m.log) > 2*logKeep || m.log[len(m.log)-1] != fmt.Sprint(5*logKeep-1) {
			t.Errorf("log has %d lines ending %q", len(m.log), m.log[len(m.log)-1])
		}
	})
}

func TestUpdatePlumbing(t *testing.T) {
	t.Run("each batch re-arms the wait for the next one", func(t *testing.T) {
		src := &fakeSource{batches: [][]worldmsg.Msg{{worldmsg.Notice{Text: "second"}}}}
		m := NewModel(nil, src, testKeys)
		m, cmd := update(t, m, lockEventMsg{[]worldmsg.Msg{worldmsg.Notice{Text: "first"}}})
		msgs := run(cmd)
		if len(msgs) != 1 {
			t.Fatalf("got %d messages, want the next batch", len(msgs))
		}
		m, _ = update(t, m, msgs[0])
		if got := m.log[len(m.log)-1]; got != "second" {
			t.Errorf("log ends %q", got)
		}
	})
	t.Run("a closed source stops the loop", func(t *testing.T) {
		m := NewModel(nil, &fakeSource{}, testKeys)
		if msgs := run(m.Init()); len(msgs) != 1 || msgs[0] != nil {
			t.Errorf("got %v, want one nil message", msgs)
		}
	})
	t.Run("a notification starts the flash ticker and it stops when flashes end", func(t *testing.T) {
		m := started(t, nil).apply(handOff())
		m, cmd := update(t, m, lockEventMsg{[]worldmsg.Msg{ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted")}})
		if !m.ticking || cmd == nil {
			t.Fatal("no ticker after a notification")
		}
		m, cmd = update(t, m, tickMsg(t0.Add(10*time.Millisecond)))
		if cmd == nil {
			t.Error("ticker stopped while still flashing")
		}
		m, cmd = update(t, m, tickMsg(t0.Add(time.Hour)))
		if cmd != nil || m.ticking || strings.Contains(m.View(), "NOTIFIED") {
			t.Error("ticker or flash still running after the flash ended")
		}
	})
	t.Run("a resize changes the frame size", func(t *testing.T) {
		m := started(t, nil).apply(handOff())
		for _, size := range [][2]int{{80, 24}, {100, 30}, {132, 50}, {40, 12}} {
			m, _ = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			lines := strings.Split(m.View(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
			}
			for _, l := range lines {
				if w := visibleWidth(l); w > size[0] {
					t.Errorf("%dx%d: line of width %d: %q", size[0], size[1], w, l)
				}
			}
		}
	})
	t.Run("States have names", func(t *testing.T) {
		for s := worldmsg.Idle; s <= worldmsg.Stopped; s++ {
			if s.String() == "unknown" || s.String() == "" {
				t.Errorf("state %d has no name", s)
			}
		}
		if worldmsg.State(99).String() != "unknown" {
			t.Error("State(99)")
		}
	})
}

type fakeSource struct{ batches [][]worldmsg.Msg }

func (f *fakeSource) Next() []worldmsg.Msg {
	if len(f.batches) == 0 {
		return nil
	}
	b := f.batches[0]
	f.batches = f.batches[1:]
	return b
}

func TestParseScript(t *testing.T) {
	s, err := parseScript("1s:k, 2.5s:space,3s:up")
	if err != nil || len(s) != 3 || s[1].at != 2500*time.Millisecond || s[1].key.String() != " " || s[2].key.Type != tea.KeyUp {
		t.Errorf("got %v, %v", s, err)
	}
	for _, bad := range []string{"k", "1s:", "x:k", "2s:k,1s:e"} {
		if _, err := parseScript(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestACrashedHoldersNodeGoingIsARelease: the crashed holder never says it
// released; the server deletes its node when its session expires, and
// that wakes its successor. That wake-up belongs to a release of its own,
// not to the hand-off before it: the header must not call it the herd.
func TestACrashedHoldersNodeGoingIsARelease(t *testing.T) {
	m := started(t, nil)
	m = m.apply(handOff())
	m = m.apply([]worldmsg.Msg{
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-1", event.Released, "", node(1), ""),
		ev("worker-2", event.Acquired, "", node(2), ""),
		worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Crashed},
		ev("worker-3", event.Notified, "", node(2), "EventNodeDeleted"),
		worldmsg.QueueSnapshot{Dir: dir, Nodes: []worldmsg.QueueNode{{Name: node(3), Seq: 3, Owner: "worker-3"}}},
		ev("worker-3", event.Acquired, "", node(3), ""),
	})
	if m.releases != 2 || m.wakes != 2 {
		t.Errorf("%d releases woke %d, want 2 and 2 (the crashed holder's node going is a release)", m.releases, m.wakes)
	}
	if m.maxWoken != 1 {
		t.Errorf("the most woken by one release = %d, want 1", m.maxWoken)
	}
	if line := m.expectLine(100); !strings.Contains(line, "✓") {
		t.Errorf("after a crashed holder's node went: %q, want ✓", line)
	}
}

// TestACutOffHoldersNodeGoingIsARelease: a holder cut off until its session
// expires lets go by the server deleting its node, which wakes its
// successor before the holder, back on the line, hears of its loss. That
// wake-up is one release's, not the hand-off's before it.
func TestACutOffHoldersNodeGoingIsARelease(t *testing.T) {
	m := started(t, nil)
	m = m.apply(handOff())
	m = m.apply([]worldmsg.Msg{
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-1", event.Released, "", node(1), ""),
		ev("worker-2", event.Acquired, "", node(2), ""),
		worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.CutOff, Detail: "link cut"},
		ev("worker-2", event.Request, "delete", node(2), ""), // its Unlock, held by the cut link
		ev("worker-3", event.Notified, "", node(2), "EventNodeDeleted"),
		ev("worker-3", event.Acquired, "", node(3), ""),
		ev("worker-2", event.Lost, "", node(2), "our session was over at Unlock"),
		worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Expired, Detail: "the server dropped its session"},
	})
	if m.releases != 2 || m.wakes != 2 {
		t.Errorf("%d releases woke %d, want 2 and 2 (the cut-off holder's node going is a release)", m.releases, m.wakes)
	}
	if m.maxWoken != 1 {
		t.Errorf("the most woken by one release = %d, want 1", m.maxWoken)
	}
	if line := m.expectLine(100); !strings.Contains(line, "✓") {
		t.Errorf("after a cut-off holder's node went: %q, want ✓", line)
	}
}

// Chapter 09: a lease goes, and it wakes the gate's holder, the one client
// watching the leases; that client takes a lease and opens the gate, whose
// next client is told (04's hand-off) and then waits behind the leases.
// The release woke one, as 09's README says, and nothing was wasted: the
// gate's hand-off moved its client on to the next wait.
func TestAGateHandOffIsNeitherAWastedWakeUpNorTheReleasesOwn(t *testing.T) {
	const sem = "/v/09-semaphore/lock"
	lease := func(seq int) string { return fmt.Sprintf("%s/leases/_c_x-lease-%010d", sem, seq) }
	gate := func(seq int) string { return fmt.Sprintf("%s/locks/_c_x-lock-%010d", sem, seq) }
	e := func(o string, k event.Kind, op event.Op, n, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: n, Detail: detail})}
	}
	m := NewModel(nil, nil, testKeys).apply([]worldmsg.Msg{
		worldmsg.ChapterStarted{Scene: semscene.New(), Path: sem, Dir: sem, Hold: time.Second},
		// worker-1 holds the one lease left out; worker-2 holds the gate
		// and waits behind the leases; worker-3 waits behind worker-2 at the gate.
		e("worker-1", event.Acquired, "", lease(1), ""),
		e("worker-2", event.Info, "", gate(2), "takes the gate"),
		e("worker-2", event.WatchSet, "children", sem+"/leases", ""),
		e("worker-2", event.Waiting, "", sem+"/leases", ""),
		e("worker-3", event.WatchSet, "get", gate(2), ""),
		e("worker-3", event.Waiting, "", gate(2), ""),
	})
	m = m.apply([]worldmsg.Msg{
		e("worker-1", event.Request, "delete", lease(1), ""),
		e("worker-2", event.Notified, "", sem+"/leases", "EventNodeChildrenChanged"),
		e("worker-1", event.Released, "", lease(1), ""),
		e("worker-2", event.Acquired, "", lease(3), ""),
		e("worker-2", event.Request, "delete", gate(2), ""),
		e("worker-3", event.Notified, "", gate(2), "EventNodeDeleted"),
		e("worker-2", event.Info, "", gate(2), "opens the gate"),
		e("worker-3", event.Info, "", gate(4), "takes the gate"),
		e("worker-3", event.WatchSet, "children", sem+"/leases", ""),
		e("worker-3", event.Waiting, "", sem+"/leases", ""),
	})
	if m.lastWoken() != 1 || m.wakes != 1 || m.releases != 1 {
		t.Errorf("the lease's release woke %d (%d wakes in %d releases), want 1: the gate holder", m.lastWoken(), m.wakes, m.releases)
	}
	if m.wasted != 0 {
		t.Errorf("%d wasted wake-ups, want 0: worker-3 was woken at the gate and took it", m.wasted)
	}
	if m.notified != 2 || m.workers["worker-3"].notified != 1 {
		t.Errorf("notified %d (worker-3 %d), want 2 (1): the hand-off is still a notification", m.notified, m.workers["worker-3"].notified)
	}
	// Woken at the gate and back to waiting at the gate (the client ahead
	// of it gave up): that one is wasted.
	m = m.apply([]worldmsg.Msg{
		e("worker-4", event.WatchSet, "get", gate(4), ""),
		e("worker-4", event.Waiting, "", gate(4), ""),
		e("worker-5", event.WatchSet, "get", gate(3), ""),
		e("worker-5", event.Waiting, "", gate(3), ""),
		e("worker-5", event.Notified, "", gate(3), "EventNodeDeleted"),
		e("worker-5", event.WatchSet, "get", gate(4), ""),
		e("worker-5", event.Waiting, "", gate(4), ""),
	})
	if m.wasted != 1 {
		t.Errorf("%d wasted wake-ups, want 1: worker-5 was woken at the gate and waits at the gate again", m.wasted)
	}
}

// x on a waiter in 04: its lock deletes its node on the way out, which
// wakes the waiter behind it; that one looks again and waits behind the
// node ahead (04's TestAWaiterThatGivesUpDoesNotHandTheLockOn). No release
// woke it and it wasted nothing: the header stays ✓, 1 per release.
func TestAWaiterThatLeavesWakesNobodyForARelease(t *testing.T) {
	m := started(t, nil).apply(handOff()) // worker-1 holds node 1, 2 waits behind it, 3 behind 2
	m = m.apply([]worldmsg.Msg{
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-1", event.Released, "", node(1), ""),
		ev("worker-2", event.Acquired, "", node(2), ""),
		ev("worker-4", event.WatchSet, "get", node(3), ""),
		ev("worker-4", event.Waiting, "", node(3), ""),
		ev("worker-3", event.Request, "delete", node(3), ""), // removed: its Lock is cancelled
		worldmsg.WorkerChange{Name: "worker-3", State: worldmsg.Stopped},
		ev("worker-4", event.Notified, "", node(3), "EventNodeDeleted"),
		ev("worker-4", event.WatchSet, "get", node(2), ""),
		ev("worker-4", event.Waiting, "", node(2), ""),
	})
	if m.wasted != 0 || m.maxWoken != 1 || m.lastWoken() != 1 {
		t.Errorf("wasted %d, most woken by a release %d, last %d: want 0, 1, 1", m.wasted, m.maxWoken, m.lastWoken())
	}
	if line := m.expectLine(100); !strings.Contains(line, "✓") {
		t.Errorf("after a waiter left: %q, want ✓", line)
	}
}

// A waiter whose session ends is told its watch is gone (EventNotWatching):
// a notification, but no release woke it (03's
// TestWaiterWhoseSessionExpiresGetsAnError, replayed).
func TestAWatchGoneWithItsSessionIsNoReleasesWakeUp(t *testing.T) {
	m := started(t, nil).apply(handOff())
	m = m.apply([]worldmsg.Msg{ev("worker-3", event.Notified, "", node(2), "EventNotWatching")})
	if m.notified != 1 || m.wokeNow != 0 || m.wakes != 0 {
		t.Errorf("notified %d, woken now %d, wakes %d: want 1, 0, 0", m.notified, m.wokeNow, m.wakes)
	}
	if line := m.expectLine(100); strings.Contains(line, "woke") {
		t.Errorf("no release yet, and the header says one woke somebody: %q", line)
	}
}

// emitted is e as an Observer receives it from a lock's Emit: a
// notification that names its event type only in Detail, as the lessons
// write it (ev.Type.String()), has it in Fired too.
func emitted(e event.Event) event.Event {
	var got event.Event
	event.Observer(func(x event.Event) { got = x }).Emit(e)
	return got
}
