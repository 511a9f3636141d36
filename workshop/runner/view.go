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
		t := m.say()
		s := m.spin.View() + " " + fmt.Sprintf(t.Running, t.Tiers[r.Tier])
		if !r.built {
			s = m.spin.View() + " " + t.Compiling
		}
		if !r.since.IsZero() && !m.now.IsZero() {
			s += " " + secs(m.now.Sub(r.since).Truncate(time.Second))
		}
		if cs := m.state.Chapters[ch]; r.Tier == course.Full && cs != nil && cs.FullSuite > 0 {
			s += " " + dimStyle.Render(fmt.Sprintf(t.LastRun, secs(cs.FullSuite)))
		}
		return s
	}
	t := m.say()
	cs := m.state.Chapters[ch]
	switch {
	case (cs == nil || !cs.Holds(m.disk[ch].Hash)) && m.disk[ch].Untouched:
		return dimStyle.Render(t.Untouched)
	case cs == nil:
		return dimStyle.Render(t.NotChecked)
	case !cs.Holds(m.disk[ch].Hash):
		return todoStyle.Render(t.Changed) + dimStyle.Render(map[bool]string{true: "", false: t.ChangedEnter}[m.watch])
	case cs.Kind == course.Pass && cs.Tier == course.Full:
		return passStyle.Render(t.Passing)
	case cs.Kind == course.Pass:
		return passStyle.Render(t.LessonPasses) + dimStyle.Render(t.FullNotRun)
	case cs.Kind == course.Todo:
		return todoStyle.Render(fmt.Sprintf(t.ToWrite, course.StubName(cs.Todo)))
	case cs.Kind == course.NoBuild:
		return failStyle.Render(t.NoBuild)
	case cs.Kind == course.Mistake:
		if mk := m.table.Find(ch, cs.Mistake); mk != nil {
			return failStyle.Render(fmt.Sprintf(t.Failing, mk.Name.In(m.lang)))
		}
		fallthrough
	default:
		return failStyle.Render(fmt.Sprintf(t.Failing, cs.Test))
	}
}

// View draws the screen.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	switch m.screen {
	case Diff, Output:
		return m.diffView()
	case Done:
		return m.doneView()
	}
	w := max(40, m.width)
	t := m.say()
	status := fmt.Sprintf("  %s · %s %s", m.lang, t.Watch, map[bool]string{true: t.On, false: t.Off}[m.watch])
	if c := m.classLine(); c != "" {
		status += " · " + c
	}
	if a := m.arenaLine(); a != "" {
		status += " · " + a
	}
	head := titleStyle.Render(t.Title) + dimStyle.Render(truncate(status, w-lipgloss.Width(t.Title))) + "\n"
	passed := m.Passed()
	fill := m.barWidth * passed / max(1, len(m.exercises))
	head += passStyle.Render(strings.Repeat("█", fill)) + dimStyle.Render(strings.Repeat("░", m.barWidth-fill))
	head += " " + fmt.Sprintf(t.ChaptersPass, passed, len(m.exercises)) + "\n\n"
	var list strings.Builder
	for i, e := range m.exercises {
		list.WriteString(truncate(m.chapterLine(i, e), w) + "\n")
	}
	list.WriteString("\n")
	foot := m.details(w, false, 0)
	if lines(head+list.String()+foot) > m.height {
		// Taller than the terminal (three hints, a long message): the
		// title and the bar must stay in sight, so the list folds to the
		// selected chapter; if that is not enough, earlier hints to a
		// line each; and if the last hint is still too long (the
		// near-solution of a long function), it is cut, and the page says
		// how to read it whole.
		list.Reset()
		list.WriteString(truncate(m.chapterLine(m.cursor, m.exercises[m.cursor]), w) + "\n")
		list.WriteString(dimStyle.Render(fmt.Sprintf(t.MoreChapters, len(m.exercises)-1)) + "\n\n")
		if lines(head+list.String()+foot) > m.height {
			foot = m.details(w, true, 0)
		}
		for cut := 1; lines(head+list.String()+foot) > m.height && cut < 500; cut++ {
			foot = m.details(w, true, cut)
		}
	}
	return head + list.String() + foot
}

// chapterLine is exercise i's line in the list.
func (m Model) chapterLine(i int, e course.Exercise) string {
	cursor := "  "
	if i == m.cursor {
		cursor = "> "
	}
	return fmt.Sprintf("%s%-20s %s", cursor, e.Dir, m.Status(e.Chapter))
}

// lines counts the lines s takes on the screen.
func lines(s string) int { return strings.Count(s, "\n") + 1 }

// details is what the page says under the list about the selected chapter:
// its file, the step or the mistake, the hints asked for, the news, the
// keys. short puts every hint but the last on one line; cut drops that
// many lines: first from the end of the failing test's message (down to
// three; o shows it whole), then from the end of the last hint shown, each
// time with a line that says how to read the rest.
func (m Model) details(w int, short bool, cut int) string {
	var b strings.Builder
	t := m.say()
	hint := func(i, n int, text string) {
		line := fmt.Sprintf(t.Hint, i+1, n, text)
		last := i == m.hints[m.selected()]-1 || i == n-1
		if short && !last {
			b.WriteString(hintStyle.Render(truncate(line, w)) + "\n")
			return
		}
		wrapped := strings.Split(wrap(line, w), "\n")
		if last && cut > 0 && cut < len(wrapped) {
			keep := len(wrapped) - cut
			b.WriteString(hintStyle.Render(strings.Join(wrapped[:keep], "\n")) + "\n")
			b.WriteString(dimStyle.Render(truncate(fmt.Sprintf(t.HintCut, cut, m.selected(), i+1), w)) + "\n")
			return
		}
		b.WriteString(hintStyle.Render(strings.Join(wrapped, "\n")) + "\n")
	}
	ch := m.selected()
	ex := m.exercises[m.cursor]
	if len(ex.Files) > 0 {
		b.WriteString(dimStyle.Render(t.YourFile+truncateLeft(strings.Join(ex.Files, ", "), w-lipgloss.Width(t.YourFile))) + "\n")
	}
	if cs := m.verdict(ch); cs == nil && m.hints[ch] > 0 {
		// h before any check: the step the file is on.
		if s := m.table.StepOf(ch, m.disk[ch].Todo); s != nil {
			b.WriteString(wrap(fmt.Sprintf(t.Goal, s.GoalIn(m.lang)), w) + "\n")
			b.WriteString(dimStyle.Render(wrap(fmt.Sprintf(t.Holds, s.Holds.In(m.lang)), w)) + "\n")
			for i := 0; i < m.hints[ch] && i < s.Stages(); i++ {
				hint(i, s.Stages(), s.Hint(i, m.lang))
			}
		}
	} else if cs != nil {
		switch {
		case cs.Kind == course.Todo:
			s := m.table.StepOf(ch, cs.Todo)
			if s == nil {
				b.WriteString(wrap(cs.Todo, w) + "\n")
			} else {
				b.WriteString(wrap(fmt.Sprintf(t.Goal, s.GoalIn(m.lang)), w) + "\n")
				b.WriteString(dimStyle.Render(wrap(fmt.Sprintf(t.Holds, s.Holds.In(m.lang)), w)) + "\n")
				for i := 0; i < m.hints[ch] && i < s.Stages(); i++ {
					hint(i, s.Stages(), s.Hint(i, m.lang))
				}
			}
		case cs.Kind == course.Mistake || cs.Kind == course.Failing || cs.Kind == course.NoBuild:
			if mk := m.table.Find(ch, cs.Mistake); mk != nil {
				b.WriteString(failStyle.Render(wrap(mk.Name.In(m.lang), w)) + "\n")
			} else if l := m.table.TestLine(ch, cs.Test); l != nil {
				// No row knows this failure: what the test checks, in
				// the learner's language, above the test's own words.
				b.WriteString(failStyle.Render(wrap(l.In(m.lang), w)) + "\n")
			}
			if cs.Test != "" {
				b.WriteString(truncate(dimStyle.Render(cs.Test), w) + "\n")
			}
			msg := strings.Split(wrap(cs.Message, w), "\n")
			if drop := min(cut+1, len(msg)-3); cut > 0 && drop > 1 {
				cut -= drop - 1
				msg = append(msg[:len(msg)-drop], dimStyle.Render(truncate(fmt.Sprintf(t.MessageCut, drop), w)))
			}
			b.WriteString(strings.Join(msg, "\n") + "\n")
			b.WriteString(dimStyle.Render(truncate(t.OutputTip, w)) + "\n")
			if mk := m.table.Find(ch, cs.Mistake); mk != nil {
				for i := 0; i < m.hints[ch] && i < mk.Stages(); i++ {
					hint(i, mk.Stages(), mk.Hint(i, m.lang))
				}
				if k := faultKey(ch, mk.ID, m.lang); k != "" {
					b.WriteString(wrap(k, w) + "\n")
				}
			} else if s := m.failedStep(ch, cs); s != nil && m.hints[ch] > 0 {
				// No row knows this failure: the hints of the step
				// its test checks.
				b.WriteString(dimStyle.Render(wrap(fmt.Sprintf(t.Goal, s.GoalIn(m.lang)), w)) + "\n")
				for i := 0; i < m.hints[ch] && i < s.Stages(); i++ {
					hint(i, s.Stages(), s.Hint(i, m.lang))
				}
			}
		}
	}
	if n := m.note.line(w); n != "" {
		b.WriteString(dimStyle.Render(n) + "\n")
	}
	b.WriteString(dimStyle.Render(pack(t.Help, w)))
	return b.String()
}

func (m Model) doneView() string {
	return titleStyle.Render(m.say().Title) + "\n\n" + m.say().Done
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

// pack breaks a key bar ("⏎ check  f full  …", items two spaces apart)
// into lines of at most w cells between items, never inside one.
func pack(bar string, w int) string {
	var lines []string
	line := ""
	for _, item := range strings.Split(bar, "  ") {
		switch {
		case line == "":
			line = item
		case lipgloss.Width(line+"  "+item) <= w:
			line += "  " + item
		default:
			lines = append(lines, line)
			line = item
		}
	}
	return strings.Join(append(lines, line), "\n")
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
		closes := strings.ContainsRune(closing, r)
		if width+rw > w && len(line) > 0 {
			switch {
			case r == ' ':
				flush(len(line))
				continue
			case closes && cut > 0:
				flush(cut) // a closing mark never starts a line
			case rw > 1 || cut <= 0:
				flush(len(line))
			default:
				flush(cut)
			}
		}
		if closes && cut == len(line) {
			cut = -1 // nor is it left alone at the start of the next
		}
		if rw > 1 && !closes && !endsOpen(line) {
			cut = len(line)
		}
		line = append(line, r)
		width += rw
		if (r == ' ' || rw > 1) && !strings.ContainsRune(opening, r) {
			cut = len(line)
		}
	}
	if len(line) > 0 || len(lines) == 0 {
		lines = append(lines, string(line))
	}
	return strings.Join(lines, "\n")
}

// A line never ends on an opening mark nor starts with a closing one (the
// rule Chinese typesetting calls 避头尾).
const (
	opening = "（「《“("
	closing = "）」》”，。、：；！？)"
)

func endsOpen(line []rune) bool {
	return len(line) > 0 && strings.ContainsRune(opening, line[len(line)-1])
}
