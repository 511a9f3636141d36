package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

const curatorDir = "/orders/lock"

// curatorNode is a Curator InterProcessMutex node: a protected prefix with a
// uuid, so its name does not sort by its sequence.
func curatorNode(uuid string, seq int) worldmsg.QueueNode {
	return worldmsg.QueueNode{Name: fmt.Sprintf("_c_%s-lock-%010d", uuid, seq), Seq: int64(seq), Owner: "127.0.0.1"}
}

// looks are four looks at a Curator directory, a second apart: three
// queued (already sorted by sequence, as the observer sends them), the
// holder leaves and the next holds, one more joins, a waiter gives up.
func looks() []worldmsg.Msg {
	a := curatorNode("f3a1c2d4-0000-4000-8000-000000000001", 7)
	b := curatorNode("0b9e7e10-0000-4000-8000-000000000002", 8)
	b.Owner = "0x10000a1b2c30001" // no data: its session
	c := curatorNode("9c0d5e2f-0000-4000-8000-000000000003", 9)
	d := curatorNode("00000000-0000-4000-8000-000000000004", 10)
	snap := func(ns ...worldmsg.QueueNode) worldmsg.QueueSnapshot {
		return worldmsg.QueueSnapshot{Dir: curatorDir, Nodes: ns}
	}
	return []worldmsg.Msg{
		worldmsg.Observed{At: t0, Queue: snap(a, b, c)},
		worldmsg.Observed{At: t0.Add(time.Second), Queue: snap(b, c)},
		worldmsg.Observed{At: t0.Add(2 * time.Second), Queue: snap(b, c, d)},
		worldmsg.Observed{At: t0.Add(3 * time.Second), Queue: snap(b, d)},
	}
}

func TestObserveModel(t *testing.T) {
	t.Run("a hand-off is the holder leaving and the next node becoming the lowest", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "en")
		next, cmd := m.Update(lockEventMsg{looks()})
		m = next.(ObserveModel)
		if cmd != nil {
			t.Error("with no source the model re-arms nothing; got a command")
		}
		if m.total != 1 || m.joins != 1 || m.leaves != 2 {
			t.Fatalf("hand-offs %d, joins %d, leaves %d; want 1, 1, 2", m.total, m.joins, m.leaves)
		}
		if got := shortNode(m.holder.Name); got != "lock-0000000008" {
			t.Errorf("holder %s, want lock-0000000008", got)
		}
		log := strings.Join(m.view.log, "\n")
		for _, want := range []string{
			"watching /orders/lock: 3 queued",
			"- lock-0000000007 releases (127.0.0.1)",
			"▶ hand-off lock-0000000007 → lock-0000000008 (0x10000a1b2c30001)",
			"+ lock-0000000010 joins (127.0.0.1)",
			"- lock-0000000009 leaves without holding (127.0.0.1)",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("the log lacks %q:\n%s", want, log)
			}
		}
		// One hand-off in the 3 s since the first look.
		if r := m.rate(); r < 0.33 || r > 0.34 {
			t.Errorf("rate %.3f/s, want 1 in 3 s", r)
		}
	})
	t.Run("the queue panel marks the lowest as holding, in sequence order", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "en")
		m.view.width, m.view.height = 80, 20
		m = m.apply(looks()[:1])
		v := m.View()
		i7, i8, i9 := strings.Index(v, "lock-0000000007"), strings.Index(v, "lock-0000000008"), strings.Index(v, "lock-0000000009")
		if i7 < 0 || !(i7 < i8 && i8 < i9) {
			t.Fatalf("want nodes 7, 8, 9 in that order:\n%s", v)
		}
		if !strings.Contains(v, "▶ lock-0000000007 127.0.0.1 HOLDS") {
			t.Errorf("the lowest is not marked as holding:\n%s", v)
		}
		if strings.Contains(v, "_c_") {
			t.Errorf("the protected prefix shows:\n%s", v)
		}
	})
	t.Run("the keys that act on workers are off, and say so", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "en")
		for _, k := range []string{"k", "e", "space", "a", "x", "+"} {
			next, cmd := m.Update(keyMsg(k))
			if cmd != nil {
				t.Errorf("key %s returned a command", k)
			}
			if s := next.(ObserveModel).status; !strings.Contains(s, "no workers here") {
				t.Errorf("key %s: status %q", k, s)
			}
		}
		if _, cmd := m.Update(keyMsg("q")); cmd == nil || cmd() != tea.Quit() {
			t.Error("q does not quit")
		}
	})
	t.Run("a free lock taken is no hand-off, and is told after its taker joined", func(t *testing.T) {
		a := curatorNode("f3a1c2d4-0000-4000-8000-000000000001", 7)
		m := NewObserveModel(nil, curatorDir, "en").apply([]worldmsg.Msg{
			worldmsg.Observed{At: t0, Queue: worldmsg.QueueSnapshot{Dir: curatorDir, Missing: true}},
			worldmsg.Observed{At: t0.Add(time.Second), Queue: worldmsg.QueueSnapshot{Dir: curatorDir, Nodes: []worldmsg.QueueNode{a}}},
		})
		log := strings.Join(m.view.log, "\n")
		joins, takes := strings.Index(log, "+ lock-0000000007 joins"), strings.Index(log, "▶ lock-0000000007 (127.0.0.1) takes the free lock")
		if m.total != 0 || joins < 0 || takes < joins || !strings.Contains(log, "no such znode yet") {
			t.Errorf("hand-offs %d; want 0, then the directory missing, the join, the take:\n%s", m.total, log)
		}
	})
	t.Run("a lost link says the queue may be stale, until it is back", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "en").apply(looks()[:1])
		m.view.width, m.view.height = 80, 20
		m = m.apply([]worldmsg.Msg{worldmsg.Link{At: t0.Add(time.Second), Up: false}, worldmsg.Link{At: t0.Add(2 * time.Second), Up: false}})
		if v := m.View(); !strings.HasPrefix(v, "NO CONNECTION TO ZOOKEEPER") || strings.Count(v, "connection to ZooKeeper is lost") != 1 {
			t.Errorf("want the header to say so and the log once:\n%s", v)
		}
		m = m.apply([]worldmsg.Msg{worldmsg.Link{At: t0.Add(3 * time.Second), Up: true}})
		if v := m.View(); !strings.HasPrefix(v, "lockstep observe") || !strings.Contains(v, "connected to ZooKeeper again") {
			t.Errorf("want the header back and the log to say so:\n%s", v)
		}
	})
	t.Run("the rate falls as the clock moves on without hand-offs", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "en").apply(looks())
		next, _ := m.Update(clockMsg(t0.Add(20 * time.Second)))
		if r := next.(ObserveModel).rate(); r != 0 {
			t.Errorf("rate %.2f/s 17 s after the last hand-off, want 0", r)
		}
	})
	t.Run("in Chinese", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "zh").apply(looks())
		m.view.width, m.view.height = 80, 20
		v := m.View()
		for _, want := range []string{"持有者 lock-0000000008", "交接 lock-0000000007 → lock-0000000008", "队列", "持有"} {
			if !strings.Contains(v, want) {
				t.Errorf("the Chinese view lacks %q:\n%s", want, v)
			}
		}
	})
}

// The observe mode's golden frame: what a projector shows, 80×24, colour
// off. Regenerate with: go test ./visualizer/tui -run ObserveGolden -update
func TestObserveGolden(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	for _, lang := range []string{"en", "zh"} {
		t.Run(lang, func(t *testing.T) {
			tm := teatest.NewTestModel(t, NewObserveModel(nil, curatorDir, lang), teatest.WithInitialTermSize(80, 24))
			tm.Send(lockEventMsg{looks()})
			tm.Send(keyMsg("k"))
			tm.Send(keyMsg("q"))
			m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(ObserveModel)
			m.now = t0.Add(3500 * time.Millisecond) // the clock ticks: fix it
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}

// arenaLooks is the class's arena observed: its lock directory's queue
// (ada holds, bob waits) and the arena's readings beside it — the counter
// at 40, then 46 two seconds later with one write refused (ada's, after
// the host took her out and bob wrote), then paused.
func arenaLooks() []worldmsg.Msg {
	const dir = "/lockstep-class/arena/lock"
	ada := worldmsg.QueueNode{Name: "lock-0000000041", Seq: 41, Owner: "ada", Data: "ada"}
	bob := worldmsg.QueueNode{Name: "lock-0000000042", Seq: 42, Owner: "bob", Data: "bob"}
	caught := worldmsg.Catch{En: "node gone: ada wrote after its lock node was gone; bob wrote last", Zh: "节点已不在：ada 的锁节点没了，它还在写入；最后写入的是 bob"}
	return []worldmsg.Msg{
		worldmsg.Observed{At: t0, Queue: worldmsg.QueueSnapshot{Dir: dir, Nodes: []worldmsg.QueueNode{ada, bob}}},
		worldmsg.Arena{At: t0, Dir: "/lockstep-class/arena", Count: 40, Writer: "bob"},
		worldmsg.Arena{At: t0.Add(2 * time.Second), Dir: "/lockstep-class/arena", Count: 46, Writer: "bob",
			Caught: 1, Catches: []worldmsg.Catch{caught}},
		worldmsg.Arena{At: t0.Add(2 * time.Second), Dir: "/lockstep-class/arena", Paused: true, Count: 46, Writer: "bob",
			Caught: 1, Catches: []worldmsg.Catch{caught}},
	}
}

func TestObserveShowsTheArena(t *testing.T) {
	t.Run("the counter, rounds per second, the pause and the catch with both names", func(t *testing.T) {
		m := NewObserveModel(nil, "/lockstep-class/arena/lock", "en").apply(arenaLooks())
		m.view.width, m.view.height = 100, 24
		v := m.View()
		for _, want := range []string{
			"ARENA PAUSED by the host · count 46 · 3.0 rounds/s · last writer bob",
			"refused writes: 1",
			"✗ node gone: ada wrote after its lock node was gone; bob wrote last",
			"00:00:02.000 ✗ node gone: ada wrote", // the log, as it came
			"the host paused the arena",
			"holder lock-0000000041 (ada)",
		} {
			if !strings.Contains(v, want) {
				t.Errorf("the view lacks %q:\n%s", want, v)
			}
		}
		if n := strings.Count(strings.Join(m.view.log, "\n"), "node gone: ada"); n != 1 {
			t.Errorf("the catch is logged %d times, want once (the pause's reading carries it again)", n)
		}
	})
	t.Run("rounds per second fall to 0 as the clock moves on", func(t *testing.T) {
		m := NewObserveModel(nil, "/lockstep-class/arena/lock", "en").apply(arenaLooks())
		next, _ := m.Update(clockMsg(t0.Add(30 * time.Second)))
		if r := next.(ObserveModel).roundsPerSecond(); r != 0 {
			t.Errorf("%.2f rounds/s 28 s after the last write, want 0", r)
		}
	})
	t.Run("catches already there when it starts are listed, not logged", func(t *testing.T) {
		m := NewObserveModel(nil, "/lockstep-class/arena/lock", "en").apply(arenaLooks()[2:3])
		m.view.width, m.view.height = 100, 24
		if v := m.View(); !strings.Contains(v, "bob wrote last") || strings.Contains(strings.Join(m.view.log, "\n"), "node gone") {
			t.Errorf("want the catch in the panel only:\n%s", v)
		}
	})
	t.Run("a catch is shown in the view's language, as the arena words it", func(t *testing.T) {
		cs := []worldmsg.Catch{{En: "two inside: cy's write found dee's (read 7); cy entered out of turn", Zh: "两个持有者同时进入临界区：cy 写入时发现 dee 已经写过（读到 7）；cy 插队了"}}
		for lang, want := range map[string]string{"en": cs[0].En, "zh": cs[0].Zh} {
			m := NewObserveModel(nil, "/a/lock", lang).apply([]worldmsg.Msg{worldmsg.Arena{At: t0, Count: 9, Caught: 1, Catches: cs}})
			m.view.width, m.view.height = 100, 24
			if v := m.View(); !strings.Contains(v, want) {
				t.Errorf("%s: the view lacks %q:\n%s", lang, want, v)
			}
		}
	})
	t.Run("a plain lock directory has no arena panel", func(t *testing.T) {
		m := NewObserveModel(nil, curatorDir, "en").apply(looks())
		m.view.width, m.view.height = 80, 24
		if v := m.View(); strings.Contains(v, "ARENA") {
			t.Errorf("an arena panel on a Curator directory:\n%s", v)
		}
	})
	t.Run("in Chinese", func(t *testing.T) {
		m := NewObserveModel(nil, "/lockstep-class/arena/lock", "zh").apply(arenaLooks())
		m.view.width, m.view.height = 100, 24
		v := m.View()
		for _, want := range []string{"竞技场 讲师已暂停 · 计数器 46 · 每秒 3.0 轮", "竞技场拒绝了 1 次写入", "节点已不在：ada 的锁节点没了，它还在写入；最后写入的是 bob", "讲师暂停了竞技场"} {
			if !strings.Contains(v, want) {
				t.Errorf("the Chinese view lacks %q:\n%s", want, v)
			}
		}
	})
}
