package view

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

var errWatchEnded = errors.New("the watch on the class ended")

// words are the screen's words in each language.
type words struct {
	title, gone, noLearners, name, chapter, state, mistake, onChapter, help, ended string
	states                                                                         map[classroom.State]string
	summary                                                                        func(c Chapter) string
	count                                                                          func(learners, online int) string
	// The arena: its line and the head of its catches (a catch is
	// arena.Catch.Line, which the visualizer's arena panel shows too).
	arena  func(s arena.Snapshot, rate float64) string
	caught func(n int) string
}

var lexicon = map[Lang]words{
	English: {
		title: "lockstep class", gone: "gone",
		count: func(learners, online int) string {
			return fmt.Sprintf("lockstep class · %d %s, %d online", learners, plural(learners, "learner", "learners"), online)
		},
		noLearners: "no learner has joined yet: they paste the join line above",
		name:       "learner", chapter: "ch", state: "state", mistake: "mistake named", onChapter: "on chapter",
		help:  "l 中文 · q quit",
		ended: "the watch ended",
		states: map[classroom.State]string{
			classroom.Untouched: "untouched", classroom.Failing: "failing", classroom.Passing: "passing",
		},
		arena: func(s arena.Snapshot, rate float64) string {
			state := "running"
			if s.Paused {
				state = "paused"
			}
			holds, waiting := "nobody", "nobody"
			if len(s.Queue) > 0 {
				holds = s.Holder()
			}
			if len(s.Queue) > 1 {
				waiting = queueNames(s.Queue[1:], ", ")
			}
			return fmt.Sprintf("arena: %s · count %d · %.1f rounds/s · holds: %s · waiting (%d): %s", state, s.Counter.N, rate, holds, max(0, len(s.Queue)-1), waiting)
		},
		caught: func(n int) string {
			return fmt.Sprintf("the arena caught %d %s:", n, plural(n, "write", "writes"))
		},
		summary: func(c Chapter) string {
			s := fmt.Sprintf("%s: %d %s, %d passing", c.Chapter, c.Learners, plural(c.Learners, "learner", "learners"), c.Passing)
			for i, mk := range c.Mistakes {
				if i == 2 {
					break
				}
				s += fmt.Sprintf(", %d named %s", mk.Count, mk.Name)
			}
			return s
		},
	},
	Chinese: {
		title: "lockstep 课堂", gone: "已离开",
		count: func(learners, online int) string {
			return fmt.Sprintf("lockstep 课堂 · %d 位学员，%d 位在线", learners, online)
		},
		noLearners: "还没有学员加入：请他们粘贴上面的加入口令",
		name:       "学员", chapter: "章", state: "状态", mistake: "检查指出的错误", onChapter: "本章用时",
		help:  "l English · q 退出",
		ended: "监听已结束",
		states: map[classroom.State]string{
			classroom.Untouched: "未动手", classroom.Failing: "未通过", classroom.Passing: "已通过",
		},
		arena: func(s arena.Snapshot, rate float64) string {
			state := "运行中"
			if s.Paused {
				state = "已暂停"
			}
			holds, waiting := "无", "无"
			if len(s.Queue) > 0 {
				holds = s.Holder()
			}
			if len(s.Queue) > 1 {
				waiting = queueNames(s.Queue[1:], "、")
			}
			return fmt.Sprintf("竞技场：%s · 计数器 %d · 每秒 %.1f 轮 · 持有锁：%s · 等待（%d）：%s", state, s.Counter.N, rate, holds, max(0, len(s.Queue)-1), waiting)
		},
		caught: func(n int) string { return fmt.Sprintf("竞技场拒绝了 %d 次写入：", n) },
		summary: func(c Chapter) string {
			s := fmt.Sprintf("%s：%d 位学员，%d 位已通过", c.Chapter, c.Learners, c.Passing)
			for i, mk := range c.Mistakes {
				if i == 2 {
					break
				}
				s += fmt.Sprintf("，%d 位被指出 %s", mk.Count, mk.Name)
			}
			return s
		},
	},
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// View draws the screen: a title with the join line, the class by
// chapter, then one row per learner. Colours are not used: every state is
// spelled out, so frames and a projector read the same.
func (m Model) View() string {
	w := lexicon[m.Lang]
	rows := m.Rows()
	online := 0
	for _, r := range rows {
		if r.Online {
			online++
		}
	}
	var b strings.Builder
	b.WriteString(w.count(len(rows), online) + "\n")
	if m.Title != "" {
		fmt.Fprintf(&b, "%s\n", m.Title)
	}
	b.WriteString("\n")
	for _, c := range m.Chapters() {
		b.WriteString(w.summary(c) + "\n")
	}
	arenaLines := m.arenaView(&b)
	if len(rows) == 0 {
		b.WriteString(w.noLearners + "\n")
	} else {
		b.WriteString("\n")
		fmt.Fprintf(&b, "  %s %s %s %s %s\n", pad(w.name, 16), pad(w.chapter, 3), pad(w.state, 16), pad(w.mistake, 24), w.onChapter)
		limit := len(rows)
		if m.Height > 0 {
			limit = min(limit, max(1, m.Height-9-len(m.Chapters())-arenaLines))
		}
		for _, r := range rows[:limit] {
			b.WriteString(m.row(r) + "\n")
		}
		if limit < len(rows) {
			fmt.Fprintf(&b, "  … +%d\n", len(rows)-limit)
		}
	}
	if m.Err != nil {
		fmt.Fprintf(&b, "\n%s: %v\n", w.ended, m.Err)
	}
	b.WriteString("\n" + w.help)
	out := b.String()
	if m.Width > 0 {
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			lines[i] = ansi.Truncate(l, m.Width, "…")
		}
		out = strings.Join(lines, "\n")
	}
	return out
}

// maxCatches is how many of the arena's catches the screen lists (the
// latest); arena show lists them all.
const maxCatches = 5

// arenaView writes the arena's lines, if it has been read, and says how
// many it wrote.
func (m Model) arenaView(b *strings.Builder) int {
	if m.arena == nil {
		return 0
	}
	w := lexicon[m.Lang]
	s := *m.arena
	n := 1
	fmt.Fprintf(b, "\n%s\n", w.arena(s, m.RoundsPerSecond()))
	if len(s.Caught) > 0 {
		fmt.Fprintf(b, "%s\n", w.caught(len(s.Caught)))
		n++
		from := max(0, len(s.Caught)-maxCatches)
		if from > 0 {
			fmt.Fprintf(b, "  … +%d\n", from)
			n++
		}
		for _, c := range s.Caught[from:] {
			fmt.Fprintf(b, "  %s\n", c.Line(m.Lang.code()))
			n++
		}
	}
	return n + 1
}

func queueNames(q []arena.Entry, sep string) string {
	out := make([]string, len(q))
	for i, e := range q {
		out[i] = e.Name
	}
	return strings.Join(out, sep)
}

func (m Model) row(r Row) string {
	w := lexicon[m.Lang]
	mark, state, chapter, mistake, since := "●", "", "", "", ""
	if !r.Online {
		mark = "○"
	}
	if r.Known {
		chapter, state = r.Progress.Chapter, w.states[r.Progress.State]
		if r.Progress.State == classroom.Failing {
			mistake = r.Progress.Mistake
		}
		if !r.Progress.ChapterStart.IsZero() {
			since = duration(m.Now.Sub(r.Progress.ChapterStart))
		}
	}
	if !r.Online {
		state = w.gone + " · " + state
	}
	return fmt.Sprintf("%s %s %s %s %s %s", mark, pad(r.Name, 16), pad(chapter, 3), pad(state, 16), pad(mistake, 24), since)
}

// pad pads s with spaces to n terminal cells (a Chinese character takes two).
func pad(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// duration is a time on a chapter as a host reads it: 45s, 12m, 1h03m.
func duration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
