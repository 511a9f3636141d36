package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

var (
	titleStyle = lipgloss.NewStyle().Bold(true)
	passStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	failStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	todoStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	dimStyle   = lipgloss.NewStyle().Faint(true)
	hintStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
)

// Status is one chapter's state in the list's words. A verdict about
// another version of the file than the one on disk is not shown as one.
func (m Model) Status(ch string) string {
	if r, ok := m.running[ch]; ok {
		s := fmt.Sprintf("%s running the %s", m.spin.View(), r.Tier)
		if !r.since.IsZero() && !m.now.IsZero() {
			s += " " + secs(m.now.Sub(r.since).Truncate(time.Second))
		}
		if cs := m.state.Chapters[ch]; r.Tier == course.Full && cs != nil && cs.FullSuite > 0 {
			s += dimStyle.Render(" (last run " + secs(cs.FullSuite.Truncate(100*time.Millisecond)) + ")")
		}
		return s
	}
	cs := m.state.Chapters[ch]
	switch {
	case cs == nil && m.disk[ch].Untouched:
		return dimStyle.Render("untouched")
	case cs == nil:
		return dimStyle.Render("not checked yet")
	case !cs.Holds(m.disk[ch].Hash):
		return todoStyle.Render("changed since its last check") + dimStyle.Render(map[bool]string{true: "", false: " (enter)"}[m.watch])
	case cs.Kind == course.Pass && cs.Tier == course.Full:
		return passStyle.Render("passing")
	case cs.Kind == course.Pass:
		return passStyle.Render("lesson passes") + dimStyle.Render(" · full suite not run (f)")
	case cs.Kind == course.Todo:
		return todoStyle.Render("to write: " + course.StubName(cs.Todo))
	case cs.Kind == course.NoBuild:
		return failStyle.Render("does not compile")
	case cs.Kind == course.Mistake:
		if mk := m.table.Find(ch, cs.Mistake); mk != nil {
			return failStyle.Render("failing: " + mk.Name.In(m.lang))
		}
		fallthrough
	default:
		return failStyle.Render("failing: " + cs.Test)
	}
}

// View draws the screen.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	switch m.screen {
	case Diff:
		return m.diffView()
	case Done:
		return m.doneView()
	}
	var b strings.Builder
	w := max(40, m.width)
	b.WriteString(titleStyle.Render("lockstep workshop") + dimStyle.Render(fmt.Sprintf("  %s · watch %s", m.lang, onOff(m.watch))) + "\n")
	passed := m.Passed()
	fill := m.barWidth * passed / max(1, len(m.exercises))
	b.WriteString(passStyle.Render(strings.Repeat("█", fill)) + dimStyle.Render(strings.Repeat("░", m.barWidth-fill)))
	b.WriteString(fmt.Sprintf(" %d/%d chapters pass\n\n", passed, len(m.exercises)))
	for i, e := range m.exercises {
		cursor := "  "
		if i == m.cursor {
			cursor = "> "
		}
		line := fmt.Sprintf("%s%-20s %s", cursor, e.Dir, m.Status(e.Chapter))
		b.WriteString(truncate(line, w) + "\n")
	}
	b.WriteString("\n")
	ch := m.selected()
	ex := m.exercises[m.cursor]
	if len(ex.Files) > 0 {
		b.WriteString(dimStyle.Render("your file: "+truncateLeft(strings.Join(ex.Files, ", "), w-len("your file: "))) + "\n")
	}
	if cs := m.verdict(ch); cs != nil {
		switch {
		case cs.Kind == course.Todo:
			b.WriteString(wrap(cs.Todo, w) + "\n")
			if s := m.table.StepOf(ch, cs.Todo); s != nil {
				for i := 0; i < m.hints[ch] && i < s.Stages(); i++ {
					b.WriteString(hintStyle.Render(wrap(fmt.Sprintf("hint %d/%d: %s", i+1, s.Stages(), s.Hint(i, m.lang)), w)) + "\n")
				}
			}
		case cs.Kind == course.Mistake || cs.Kind == course.Failing || cs.Kind == course.NoBuild:
			if mk := m.table.Find(ch, cs.Mistake); mk != nil {
				b.WriteString(failStyle.Render(wrap(mk.Name.In(m.lang), w)) + "\n")
			}
			if cs.Test != "" {
				b.WriteString(truncate(dimStyle.Render(cs.Test), w) + "\n")
			}
			b.WriteString(wrap(cs.Message, w) + "\n")
			if mk := m.table.Find(ch, cs.Mistake); mk != nil {
				for i := 0; i < m.hints[ch] && i < mk.Stages(); i++ {
					b.WriteString(hintStyle.Render(wrap(fmt.Sprintf("hint %d/%d: %s", i+1, mk.Stages(), mk.Hint(i, m.lang)), w)) + "\n")
				}
				if k := faultKey(ch, mk.ID); k != "" {
					b.WriteString(wrap(k, w) + "\n")
				}
			}
		}
	}
	if n := m.note.line(w); n != "" {
		b.WriteString(dimStyle.Render(n) + "\n")
	}
	b.WriteString(dimStyle.Render(wrap(helpLine, w)))
	return b.String()
}

// helpLine is the list's keys; docs/learners.md has the same table.
const helpLine = "⏎ check  f full  h hint  n next  l 中文/en  w watch  R reset  d diff  v visual  p replay  q quit"

func (m Model) diffView() string {
	page := max(1, m.height-2)
	end := min(len(m.diff), m.top+page)
	lines := m.diff[m.top:end]
	where := fmt.Sprintf("lines %d-%d of %d", m.top+1, end, len(m.diff))
	return strings.Join(lines, "\n") + "\n" + dimStyle.Render("the reference against your file · "+where+" · ↑↓ pgup pgdn scroll · esc back")
}

func (m Model) doneView() string {
	msg := "Every chapter passes.\n\nYou wrote a ZooKeeper lock from the naive retry loop to the semaphore:\nthe queue, the rules, the re-entry, the election. Run the visualizer on\nyour own locks (v on a chapter) and compare with the READMEs' numbers.\n\nesc back to the list · q quit"
	if m.lang == "zh" {
		msg = "所有章节都通过了。\n\n你亲手写出了 ZooKeeper 锁：从简单的重试循环到信号量，\n包括队列、规则、重入和选举。可以在列表里按 v 用可视化工具\n观察你自己的锁，并和各章 README 里的数字比较。\n\nesc 返回列表 · q 退出"
	}
	return titleStyle.Render("lockstep workshop — complete") + "\n\n" + msg
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func truncate(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r)) > w-1 {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// truncateLeft cuts s from the left to w cells: a path keeps its file name.
func truncateLeft(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r)) > w-1 {
		r = r[1:]
	}
	return "…" + string(r)
}

// wrap breaks s into lines of at most w cells: at spaces, and around wide
// (CJK) characters, which Chinese text breaks between as it has no spaces.
func wrap(s string, w int) string {
	var lines []string
	var line []rune
	width := 0
	cut := -1 // line[:cut] may end a line
	flush := func(n int) {
		lines = append(lines, strings.TrimRight(string(line[:n]), " "))
		line = []rune(strings.TrimLeft(string(line[n:]), " "))
		width = lipgloss.Width(string(line))
		cut = -1
	}
	for _, r := range s {
		if r == '\n' {
			flush(len(line))
			continue
		}
		rw := lipgloss.Width(string(r))
		if width+rw > w && len(line) > 0 {
			switch {
			case r == ' ':
				flush(len(line))
				continue
			case rw > 1 || cut <= 0:
				flush(len(line))
			default:
				flush(cut)
			}
		}
		if rw > 1 {
			cut = len(line)
		}
		line = append(line, r)
		width += rw
		if r == ' ' || rw > 1 {
			cut = len(line)
		}
	}
	if len(line) > 0 || len(lines) == 0 {
		lines = append(lines, string(line))
	}
	return strings.Join(lines, "\n")
}
