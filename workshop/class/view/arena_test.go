package view

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

func snapshot(n int64, at time.Duration, paused bool, queue []string, caught ...arena.Catch) ArenaMsg {
	s := arena.Snapshot{Dir: "/lockstep-class/arena", Paused: paused, Counter: arena.Counter{N: n, Writer: "ada"}, Caught: caught, Seen: t0.Add(at)}
	for i, q := range queue {
		s.Queue = append(s.Queue, arena.Entry{Node: "/lockstep-class/arena/lock/_c_x-lock-000000000" + string(rune('0'+i)), Name: q})
	}
	return ArenaMsg(s)
}

func TestTheHostSeesTheArena(t *testing.T) {
	upd := func(m Model, msgs ...any) Model {
		for _, msg := range msgs {
			next, _ := m.Update(msg)
			m = next.(Model)
		}
		return m
	}
	twoInside := arena.Catch{Kind: arena.TwoInside, Writer: "eve", WriterNode: "/a/lock/_c_1-lock-0000000007", Other: "ada", OtherNode: "/a/lock/_c_2-lock-0000000006", Read: 40, ReadVersion: 40, Version: 41}

	t.Run("no arena read yet: no arena line", func(t *testing.T) {
		if v := New("", English, t0, nil).View(); strings.Contains(v, "arena") {
			t.Errorf("the screen shows an arena it has not read:\n%s", v)
		}
	})

	t.Run("a snapshot re-arms the wait for the next one", func(t *testing.T) {
		ch := make(chan arena.Snapshot, 1)
		m := New("", English, t0, nil).WithArena(ch)
		_, cmd := m.Update(snapshot(1, 0, false, nil))
		if cmd == nil {
			t.Fatal("no command after a snapshot: the screen would stop following the arena")
		}
		ch <- arena.Snapshot(snapshot(2, time.Second, false, nil))
		if got := cmd().(ArenaMsg); got.Counter.N != 2 {
			t.Fatalf("the re-armed wait brought %+v", got)
		}
	})

	t.Run("the counter, rounds per second, who holds, who waits, every catch with both names", func(t *testing.T) {
		m := New("", English, t0, nil)
		m.Width = 160
		m = upd(m, snapshot(10, 0, false, []string{"ada"}), snapshot(30, 4*time.Second, false, []string{"ada", "bob", "eve"}, twoInside), TickMsg(t0.Add(5*time.Second)))
		v := m.View()
		for _, want := range []string{
			"arena: running · count 30 · 4.0 rounds/s · holds: ada · waiting (2): bob, eve",
			"the arena caught 1 write:",
			"two inside: eve's write found ada's (read 40); eve entered out of turn",
		} {
			if !strings.Contains(v, want) {
				t.Errorf("want %q on the screen:\n%s", want, v)
			}
		}
		m = upd(m, snapshot(30, 6*time.Second, true, nil), TickMsg(t0.Add(30*time.Second)))
		if want := "arena: paused · count 30 · 0.0 rounds/s · holds: nobody · waiting (0): nobody"; !strings.Contains(m.View(), want) {
			t.Errorf("paused and still for 24 s: want %q:\n%s", want, m.View())
		}
	})

	t.Run("in Chinese", func(t *testing.T) {
		gone := arena.Catch{Kind: arena.NodeGone, Writer: "ada", WriterNode: "/a/lock/_c_1-lock-0000000003", Other: "bob", OtherNode: "/a/lock/_c_2-lock-0000000004", Read: 5, ReadVersion: 5, Version: 6}
		m := New("", Chinese, t0, nil)
		m.Width = 160
		m = upd(m, snapshot(7, 0, false, []string{"bob", "ada"}, twoInside, gone))
		v := m.View()
		for _, want := range []string{
			"竞技场：运行中 · 计数器 7 · 每秒 0.0 轮 · 持有锁：bob · 等待（1）：ada",
			"竞技场拒绝了 2 次写入：",
			"两个持有者同时进入临界区：eve 写入时发现 ada 已经写过（读到 40）；eve 插队了",
			"节点已不在：ada 的锁节点没了，它还在写入；最后写入的是 bob",
		} {
			if !strings.Contains(v, want) {
				t.Errorf("want %q on the screen:\n%s", want, v)
			}
		}
	})
}
