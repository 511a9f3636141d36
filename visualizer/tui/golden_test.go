package tui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The golden frames are what a learner sees, at a fixed size with colour
// off (as with NO_COLOR). Regenerate with: go test ./visualizer/tui -run Golden -update
func TestGoldenFrames(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	released := append(handOff(),
		ev("worker-1", event.Request, "delete", node(1), ""),
		ev("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		ev("worker-1", event.Released, "", node(1), ""),
		queueOf("worker-2", "worker-3"),
		ev("worker-2", event.Acquired, "", node(1), ""),
	)
	// After the release the snapshot names nodes 1 and 2 again; make them
	// the real ones (2 and 3).
	released[len(released)-2] = worldmsg.QueueSnapshot{Dir: dir, Nodes: []worldmsg.QueueNode{
		{Name: node(2), Seq: 2, Owner: "worker-2"}, {Name: node(3), Seq: 3, Owner: "worker-3"}}}
	released[len(released)-1] = ev("worker-2", event.Acquired, "", node(2), "")

	herd03 := herdBatch(t)
	cases := []struct {
		name  string
		w, h  int
		start Model
		items []worldmsg.Msg
		keys  []string
		after []worldmsg.Msg
	}{
		{"04 hand-off 80x24", 80, 24, started(t, nil), released, nil, nil},
		{"04 hand-off 100x30", 100, 30, started(t, nil), released, nil, nil},
		{"04 holder killed 80x24", 80, 24, started(t, nil), handOff(), []string{"k"},
			[]worldmsg.Msg{worldmsg.WorkerChange{Name: "worker-1", State: worldmsg.Crashed, Detail: "its node stays until the server expires the session (4s)"}}},
		{"04 paused 80x24", 80, 24, started(t, nil), handOff(), []string{"space"}, nil},
		{"03 herd 80x24", 80, 24, NewModel(nil, nil, testKeys), herd03, nil, nil},
		{"07 new leader 80x24", 80, 24, NewModel(nil, nil, testKeys), electionBatch(t), nil, nil},
		{"01 one write 80x24", 80, 24, NewModel(nil, nil, testKeys), watchBatch(t), nil, nil},
		{"04 legend 80x24", 80, 24, started(t, nil), released, []string{"?"}, nil},
		{"04 legend zh 100x30", 100, 30, started(t, nil).inLang("zh"), released, []string{"?"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm := teatest.NewTestModel(t, c.start, teatest.WithInitialTermSize(c.w, c.h))
			tm.Send(lockEventMsg{c.items})
			for _, k := range c.keys {
				tm.Send(keyMsg(k))
			}
			if c.after != nil {
				tm.Send(lockEventMsg{c.after})
			}
			tm.Send(keyMsg("q"))
			m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}

// herdBatch is chapter 03 at the moment of a release: four waiters were
// watching the one lock node, all four are told.
func herdBatch(t testing.TB) []worldmsg.Msg {
	ch := sceneOf(t, "03")
	lock := "/lockstep/visualizer/03-watch-lock/lock"
	e := func(o string, k event.Kind, op event.Op, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: lock, Detail: detail})}
	}
	items := []worldmsg.Msg{worldmsg.ChapterStarted{Scene: ch, Path: lock, Dir: "/lockstep/visualizer/03-watch-lock", Hold: time.Second}}
	for i := 1; i <= 5; i++ {
		items = append(items, worldmsg.WorkerChange{Name: fmt.Sprintf("worker-%d", i), State: worldmsg.Idle})
	}
	items = append(items, worldmsg.QueueSnapshot{Dir: "/lockstep/visualizer/03-watch-lock", Nodes: []worldmsg.QueueNode{{Name: "lock", Seq: -1, Owner: "worker-1"}}},
		e("worker-1", event.Request, "create", ""), e("worker-1", event.Acquired, "", ""))
	for i := 2; i <= 5; i++ {
		w := fmt.Sprintf("worker-%d", i)
		items = append(items, e(w, event.Request, "create", ""), e(w, event.Request, "exists", ""),
			e(w, event.WatchSet, "exists", ""), e(w, event.Waiting, "", ""))
	}
	items = append(items, e("worker-1", event.Request, "delete", ""), e("worker-1", event.Released, "", ""),
		worldmsg.QueueSnapshot{Dir: "/lockstep/visualizer/03-watch-lock"})
	for i := 2; i <= 5; i++ {
		items = append(items, e(fmt.Sprintf("worker-%d", i), event.Notified, "", "EventNodeDeleted"))
	}
	items = append(items, e("worker-3", event.Request, "create", ""), e("worker-3", event.Acquired, "", ""),
		worldmsg.QueueSnapshot{Dir: "/lockstep/visualizer/03-watch-lock", Nodes: []worldmsg.QueueNode{{Name: "lock", Seq: -1, Owner: "worker-3"}}})
	for _, i := range []int{2, 4, 5} {
		w := fmt.Sprintf("worker-%d", i)
		items = append(items, e(w, event.Request, "create", ""), e(w, event.Request, "exists", ""),
			e(w, event.WatchSet, "exists", ""), e(w, event.Waiting, "", ""))
	}
	return items
}

// electionBatch is chapter 07 as candidate-1 resigns: candidate-2, the
// next candidate, is told and leads.
func electionBatch(t testing.TB) []worldmsg.Msg {
	const dir = "/lockstep/visualizer/07-leader/election"
	n := func(i int) string { return fmt.Sprintf("_c_0123456789abcdef0123456789abcdef-n_%010d", i) }
	e := func(o string, k event.Kind, op event.Op, i int, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: dir + "/" + n(i), Detail: detail})}
	}
	q := func(owners ...int) worldmsg.QueueSnapshot {
		s := worldmsg.QueueSnapshot{Dir: dir}
		for _, o := range owners {
			s.Nodes = append(s.Nodes, worldmsg.QueueNode{Name: n(o), Seq: int64(o), Owner: fmt.Sprintf("candidate-%d", o)})
		}
		return s
	}
	items := []worldmsg.Msg{worldmsg.ChapterStarted{Scene: sceneOf(t, "07"), Path: dir, Dir: dir, Hold: time.Second}}
	for i := 1; i <= 4; i++ {
		items = append(items, worldmsg.WorkerChange{Name: fmt.Sprintf("candidate-%d", i), State: worldmsg.Idle})
	}
	items = append(items, q(1, 2, 3, 4))
	lead := e("candidate-1", event.Acquired, "", 1, "")
	lead.Token = 7
	items = append(items, lead)
	for i := 2; i <= 4; i++ {
		c := fmt.Sprintf("candidate-%d", i)
		items = append(items, e(c, event.Request, "create", i, ""), e(c, event.WatchSet, "get", i-1, ""), e(c, event.Waiting, "", i-1, ""))
	}
	next := e("candidate-2", event.Acquired, "", 2, "")
	next.Token = 8
	items = append(items, e("candidate-1", event.Request, "delete", 1, ""), e("candidate-1", event.Released, "", 1, ""),
		e("candidate-2", event.Notified, "", 1, "EventNodeDeleted"), q(2, 3, 4), e("candidate-2", event.Request, "children", 2, ""), next)
	return items
}

// watchBatch is chapter 01 right after a write: the two watchers were
// told, their watches are used up, one has read again.
func watchBatch(t testing.TB) []worldmsg.Msg {
	const dir = "/lockstep/visualizer/01-watch"
	e := func(o string, k event.Kind, op event.Op, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: dir + "/config", Detail: detail})}
	}
	items := []worldmsg.Msg{worldmsg.ChapterStarted{Scene: sceneOf(t, "01"), Path: dir + "/config", Dir: dir, Hold: time.Second}}
	for i := 1; i <= 3; i++ {
		items = append(items, worldmsg.WorkerChange{Name: fmt.Sprintf("worker-%d", i), State: worldmsg.Idle})
	}
	items = append(items, worldmsg.QueueSnapshot{Dir: dir, Nodes: []worldmsg.QueueNode{{Name: "config", Seq: -1, Persistent: true, Data: "v3"}}})
	for _, w := range []string{"worker-2", "worker-3"} {
		items = append(items, e(w, event.Request, "get", ""), e(w, event.Info, "", "reads v2"), e(w, event.WatchSet, "get", ""))
	}
	items = append(items, e("worker-1", event.Request, "set", "v3"), e("worker-1", event.Acquired, "", "v3"),
		e("worker-2", event.Notified, "", "EventNodeDataChanged"), e("worker-3", event.Notified, "", "EventNodeDataChanged"),
		e("worker-1", event.Released, "", ""),
		e("worker-2", event.Request, "get", ""), e("worker-2", event.Info, "", "reads v3"), e("worker-2", event.WatchSet, "get", ""))
	return items
}

var _ tea.Model = Model{}
