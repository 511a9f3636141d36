package tui

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

var verbs = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z%]`)

// Both rows of the table say every text, with the same verbs in the same
// order, so a format string never misses an argument in one language.
func TestEveryEngineTextIsSaidInBothLanguagesWithTheSameVerbs(t *testing.T) {
	en, zh := reflect.ValueOf(english), reflect.ValueOf(chinese)
	for i := range en.NumField() {
		name := en.Type().Field(i).Name
		a, b := en.Field(i).String(), zh.Field(i).String()
		if a == "" || b == "" {
			t.Errorf("%s is missing in a language: %q / %q", name, a, b)
			continue
		}
		// The verbs' widths may differ (a column of Chinese is wider); their
		// kinds and order may not.
		kinds := func(s string) []string {
			return regexp.MustCompile(`[0-9]+`).Split(strings.Join(verbs.FindAllString(s, -1), " "), -1)
		}
		if va, vb := kinds(a), kinds(b); !slices.Equal(va, vb) {
			t.Errorf("%s: verbs %v in English, %v in Chinese", name, va, vb)
		}
	}
	// The workers panel's header names the counters its rows print.
	for _, x := range []Texts{english, chinese} {
		if ansi.StringWidth(x.Columns) != len(strings.ReplaceAll(strings.ReplaceAll(fmtWidths(x.Counters), "%", ""), "d", "")) {
			t.Errorf("the columns %q are not as wide as the counters %q", x.Columns, x.Counters)
		}
	}
}

// fmtWidths turns " %4d %3d" into the cells it prints: "     " + "    ".
func fmtWidths(f string) string {
	return regexp.MustCompile(`%(\d+)d`).ReplaceAllStringFunc(f, func(v string) string {
		n := 0
		for _, r := range v[1 : len(v)-1] {
			n = n*10 + int(r-'0')
		}
		return strings.Repeat(" ", n)
	})
}

// The Chinese frames at 80×24: the header, the verdict line, the panels,
// the key bar and the status line in Chinese, every line within 80 cells
// as the terminal counts them (a CJK character takes two). Regenerate
// with: go test ./visualizer/tui -run ChineseFrames -update
func TestChineseFramesFitTheLearnersTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	zh := func(m Model) Model { return m.inLang("zh") }
	for _, c := range []struct {
		name   string
		start  Model
		items  []worldmsg.Msg
		keys   []string
		wants  []string
		banned []string
	}{
		{"04 holder killed zh 80x24", zh(NewModel(nil, nil, testKeys)), append([]worldmsg.Msg{
			worldmsg.ChapterStarted{Scene: sceneOf(t, "04"), Path: dir, Dir: dir, Hold: 200 * time.Millisecond},
			worldmsg.WorkerChange{Name: "worker-1", State: worldmsg.Idle}, worldmsg.WorkerChange{Name: "worker-2", State: worldmsg.Idle},
			worldmsg.WorkerChange{Name: "worker-3", State: worldmsg.Idle}}, handOff()...), []string{"k"},
			[]string{"运行中", "持有 ", "队列", "状态", "请求 通知 无效", "事件", "暂停", "退出", "已杀掉 worker-1",
				"前驱节点排队", "顺序节点：每个等待者只监听它的前驱节点"},
			[]string{"running", "QUEUE", "state", "EVENTS", "quit"}},
		{"03 herd zh 80x24", zh(NewModel(nil, nil, testKeys)), herdBatch(t), []string{"space"},
			[]string{"已暂停", "每次释放唤醒 4.0 个等待者", "所有等待者监听同一节点：一次释放全部唤醒"},
			[]string{"waiters", "PAUSED"}},
		{"07 new leader zh 80x24", zh(NewModel(nil, nil, testKeys)), electionBatch(t), nil,
			[]string{"选主", "候选者", "领导者", "任期"},
			[]string{"candidate ", "LEADS", "terms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := teatest.NewTestModel(t, c.start, teatest.WithInitialTermSize(80, 24))
			tm.Send(lockEventMsg{c.items})
			for _, k := range c.keys {
				tm.Send(keyMsg(k))
			}
			tm.Send(keyMsg("q"))
			m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
			v := m.View()
			mustFitTheLearnersTerminal(t, v)
			flat := regexp.MustCompile(` +`).ReplaceAllString(v, " ")
			for _, want := range c.wants {
				if !strings.Contains(flat, want) {
					t.Errorf("no %q in:\n%s", want, v)
				}
			}
			for _, not := range c.banned {
				if strings.Contains(v, not) {
					t.Errorf("the Chinese frame says %q:\n%s", not, v)
				}
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
}

var _ = event.Acquired
var _ tea.Msg

// A replay in Chinese (the runner's p after l): its header and keys are
// the table's Chinese row, and the frame fits 80×24 in cells.
func TestAReplayInChineseFitsTheLearnersTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	rp := herdReplay(t)
	rp.lang = "zh"
	m := NewReplayModel(rp)
	m.playing = false
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	tm.Send(keyMsg("b"))
	tm.Send(keyMsg("q"))
	v := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(ReplayModel).View()
	for _, want := range []string{"回放 04-sequential-lock · 事件", "就在这里出错", "✗ 这次释放唤醒了 5 个等待者", "单步", "出错的地方", "事件 "} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in:\n%s", want, v)
		}
	}
	mustFitTheLearnersTerminal(t, v)
}

// mustFitTheLearnersTerminal fails unless frame fits 80×24, measured in
// terminal cells (a CJK character takes two).
func mustFitTheLearnersTerminal(t *testing.T, frame string) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) > 24 {
		t.Errorf("%d lines, want at most 24", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line %d is %d cells wide, want at most 80: %q", i+1, w, l)
		}
	}
}
