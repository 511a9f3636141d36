package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// codeWords are what a Chinese log line may keep in Latin letters: names
// (workers, nodes, chapters), ZooKeeper's ops and event types, a session
// id, a duration, and the error text the test hands in (ERR): code, not
// words of ours.
var codeWords = regexp.MustCompile(`\d\d-[a-z-]+|(worker|candidate|lock|lease|n)[-_]\d*|_c_\w+|\b(create|children|exists|get|delete|set|multi|Unlock|UUID|ZooKeeper)\b|Node(Deleted|Created|DataChanged|ChildrenChanged)|0x[0-9a-f]+|\d+(ms|s)\b|ERR|\bleases\b|\blocks\b`)

// With the view in Chinese, every line the log gets from a lock event, a
// worker's change of state, the server's delete of a dead worker's node or
// a notice of the world is Chinese: a Chinese learner meets no English
// line of ours there (the course's locks' details included).
func TestTheLogSpeaksChineseUnderZh(t *testing.T) {
	const d = "/v/04-sequential-lock/lock"
	e := func(o string, k event.Kind, op event.Op, node, detail string) worldmsg.LockEvent {
		return worldmsg.LockEvent{Event: emitted(event.Event{Time: t0, Owner: o, Kind: k, Op: op, Node: d + "/" + node, Detail: detail})}
	}
	items := []worldmsg.Msg{
		worldmsg.ChapterStarted{Scene: sceneOf(t, "04"), Path: d, Dir: d, Hold: time.Second},
		worldmsg.QueueSnapshot{Dir: d, Nodes: []worldmsg.QueueNode{{Name: node(1), Seq: 1, Owner: "worker-4"}}},
		e("worker-1", event.Request, "create", "lock-", ""),
		e("worker-1", event.Request, "create", "", "container"),
		e("worker-1", event.Acquired, "", node(1), ""),
		worldmsg.LockEvent{Event: event.Event{Time: t0, Owner: "worker-1", Kind: event.Acquired, Node: d + "/" + node(1), Token: 42}},
		e("worker-2", event.WatchSet, "get", node(1), ""),
		e("worker-2", event.Waiting, "", node(1), ""),
		e("worker-2", event.Notified, "", node(1), "EventNodeDeleted"),
		e("worker-1", event.Released, "", node(1), ""),
		e("worker-1", event.Lost, "", node(1), "session expired"),
		e("worker-1", event.Lost, "", node(1), "no session for 667ms, a sixth of the session timeout"),
		e("worker-1", event.Info, "", node(1), "create reply lost; found our node by its UUID"),
		e("worker-1", event.Info, "", node(1), "re-entered, depth 2"),
		e("worker-1", event.Info, "", node(1), "left depth 2, still held at depth 1"),
		e("worker-1", event.Info, "", node(1), "left depth 1 of a lost lock"),
		e("worker-1", event.Info, "", node(1), "re-entry refused at depth 2: ERR"),
		e("worker-3", event.Info, "", "locks/_c_x-lock-0000000002", "takes the gate"),
		e("worker-3", event.Info, "", "locks/_c_x-lock-0000000002", "opens the gate"),
		e("worker-3", event.Waiting, "", "leases", "2 of 2 leases out"),
		e("worker-3", event.WatchSet, "get", "leases/_c_x-lease-0000000003", "our lease"),
		e("worker-3", event.Info, "", "leases/_c_x-lease-0000000003", "revocation requested"),
		worldmsg.WorkerChange{Name: "worker-4", State: worldmsg.Crashed, Timeout: 4 * time.Second},
		worldmsg.QueueSnapshot{Dir: d},
		worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.CutOff, Timeout: 4 * time.Second},
		worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Expired},
		worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Idle, Session: 0xabc},
		worldmsg.WorkerChange{Name: "worker-3", State: worldmsg.Stopped},
	}
	for of := worldmsg.NoticeNoChapter; of <= worldmsg.NoticeUnlockFailed; of++ {
		items = append(items, worldmsg.Notice{Of: of, Worker: "worker-1", Arg: "ERR"})
	}
	zh := NewModel(nil, nil, testKeys).inLang("zh").apply(items)
	en := NewModel(nil, nil, testKeys).apply(items)
	if len(zh.log) != len(en.log) || len(zh.log) < len(items)-3 {
		t.Fatalf("%d lines in Chinese, %d in English, for %d messages", len(zh.log), len(en.log), len(items))
	}
	for i, l := range zh.log {
		if left := codeWords.ReplaceAllString(l, ""); regexp.MustCompile(`[A-Za-z]{2,}`).MatchString(left) {
			t.Errorf("an English line in the Chinese log: %q (in English: %q)", l, en.log[i])
		}
	}
	if !strings.Contains(strings.Join(en.log, "\n"), "worker-4 CRASHED: its node stays until the server expires the session (4s)") {
		t.Errorf("the English log lost a worker's change:\n%s", strings.Join(en.log, "\n"))
	}
}
