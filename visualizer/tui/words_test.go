package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

func TestEachChapterSpeaksItsOwnWords(t *testing.T) {
	t.Run("07: candidates, the leader, terms", func(t *testing.T) {
		m := NewModel(nil, nil, testKeys).apply(electionBatch(t))
		m.width, m.height = 80, 24
		v := m.View()
		for _, want := range []string{"4 candidates", "ELECTION", "CANDIDATES", "LEADS", "candidate-2 leader",
			"candidate-3 follower", "candidate-1 resigned", "terms 2", "woken/resign", "candidate-2 leads: a new term, token 8"} {
			if !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(v, " "), want) {
				t.Errorf("no %q in:\n%s", want, v)
			}
		}
		for _, not := range []string{"acquired", "QUEUE", "HOLDS", "holding", "worker"} {
			if strings.Contains(v, not) {
				t.Errorf("07 says %q:\n%s", not, v)
			}
		}
	})
	t.Run("01: writes, reads, watches", func(t *testing.T) {
		m := NewModel(nil, nil, testKeys).apply(watchBatch(t))
		m.width, m.height = 80, 24
		v := m.View()
		for _, want := range []string{"ZNODE", "writes 1", "fired/write 2.0", "wrote v3 to config", "reads v3", "(watch used up)"} {
			if !strings.Contains(v, want) {
				t.Errorf("no %q in:\n%s", want, v)
			}
		}
		for _, not := range []string{"acquired", "released", "wasted", "HOLDS"} {
			if strings.Contains(v, not) {
				t.Errorf("01 says %q:\n%s", not, v)
			}
		}
	})
}

func TestTheCountersLineNeverCutsANumber(t *testing.T) {
	m := started(t, nil).apply(handOff())
	m.acquired, m.requests, m.notified, m.wasted, m.releases, m.wakes = 123456, 9876543, 555555, 444444, 123456, 555555
	for _, w := range []int{40, 60, 80, 100, 200} {
		line := m.counters(w)
		if utf8.RuneCountInString(line) > w || strings.Contains(line, "…") {
			t.Errorf("width %d: %q", w, line)
		}
		if !strings.HasPrefix(line, "acq 123456") {
			t.Errorf("width %d: the acquisitions went first: %q", w, line)
		}
	}
	if line := m.counters(200); !strings.Contains(line, "notified 555555") || !strings.Contains(line, "wasted 444444") {
		t.Errorf("a wide terminal shows every counter: %q", line)
	}
}

func TestAHolderNeverFlashes(t *testing.T) {
	// A leader (07) or holder may be notified while it holds (a watch it
	// set as a waiter fires late): its row still says what its node's row
	// says.
	m := started(t, nil).apply(handOff())
	m = m.apply([]worldmsg.Msg{ev("worker-1", event.Notified, "", node(1), "EventNodeDataChanged")})
	v := m.View()
	if !strings.Contains(v, "worker-1 HOLDS") || !regexp.MustCompile(`worker-1\s+holding`).MatchString(v) {
		t.Errorf("the holder's two rows disagree:\n%s", v)
	}
	m.now = t0.Add(time.Hour)
	if m.flashing() && strings.Contains(m.View(), "NOTIFIED") {
		t.Error("a flash outlived its time")
	}
}

func TestTheHelpBarListsTheScenesKeys(t *testing.T) {
	if got := NewModel(nil, nil, []string{"01", "02", "03", "04", "05", "06", "07", "09"}).chapterKeys(); got != "1-9" {
		t.Errorf("keys %q, want 1-9", got)
	}
	if got := NewModel(nil, nil, []string{"04"}).chapterKeys(); got != "4" {
		t.Errorf("keys %q, want 4", got)
	}
}

func TestOnlyTheHeldNodeIsMarked(t *testing.T) {
	// worker-1 released node 1 and holds node 4; the snapshot still lists
	// both for a moment.
	m := started(t, nil).apply(handOff())
	m = m.apply([]worldmsg.Msg{ev("worker-1", event.Released, "", node(1), ""), ev("worker-1", event.Acquired, "", node(4), ""),
		worldmsg.QueueSnapshot{Dir: dir, Nodes: []worldmsg.QueueNode{{Name: node(1), Seq: 1, Owner: "worker-1"}, {Name: node(4), Seq: 4, Owner: "worker-1"}}}})
	v := m.View()
	if strings.Count(v, "HOLDS") != 1 || !strings.Contains(v, node(4)+" worker-1 HOLDS") {
		t.Errorf("want only %s marked:\n%s", node(4), v)
	}
}

func TestAnArrowNeverCutsTheLeadersMark(t *testing.T) {
	// 07's nodes are named like Curator's LeaderLatch ("latch-…"): with
	// its longer names the row and the arrow do not fit in 80 columns.
	items := electionBatch(t)
	for i, it := range items {
		if q, ok := it.(worldmsg.QueueSnapshot); ok {
			for j := range q.Nodes {
				q.Nodes[j].Name = strings.Replace(q.Nodes[j].Name, "-n_", "-latch-", 1)
			}
			items[i] = q
		}
		if e, ok := it.(worldmsg.LockEvent); ok {
			e.Node = strings.Replace(e.Node, "-n_", "-latch-", 1)
			items[i] = e
		}
	}
	m := NewModel(nil, nil, testKeys).apply(items)
	m.width, m.height = 80, 24
	v := m.View()
	if !strings.Contains(v, "▶ latch-2 candidate-2 LEADS") || !strings.Contains(v, "← candidate-3") {
		t.Errorf("the leader's row is cut:\n%s", v)
	}
}
