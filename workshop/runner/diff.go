package runner

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// The diff screen: d (twice) asks the env for the reference against the
// learner's file; it arrives as a DiffReady and is shown a page at a time.
// The output screen (o) shows the last check's whole output the same way.

// diffReady shows the diff that arrived, from its first line.
func (m Model) diffReady(msg DiffReady) (tea.Model, tea.Cmd) {
	if msg.Err != nil {
		m.note = news(msg.Chapter, fmt.Sprintf(m.say().DiffFailed, msg.Err))
		return m, nil
	}
	return m.page(Diff, msg.Text), nil
}

// output shows the whole output of ch's last check, from its first line.
func (m Model) output(ch string) (tea.Model, tea.Cmd) {
	out, ok := m.outputs[ch]
	if !ok {
		m.note = news(ch, fmt.Sprintf(m.say().NoOutput, ch), m.say().EnterChecks)
		return m, nil
	}
	// Wrapped to the screen: a test's message is often wider than it.
	var wrapped []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		wrapped = append(wrapped, wrap(expandTabs(l), max(40, m.width)))
	}
	return m.page(Output, strings.Join(wrapped, "\n")), nil
}

// page shows text on screen s, a page at a time, from its first line.
func (m Model) page(s Screen, text string) Model {
	m.screen, m.diff, m.top = s, strings.Split(strings.TrimRight(text, "\n"), "\n"), 0
	for i, l := range m.diff {
		m.diff[i] = expandTabs(l)
	}
	return m
}

// tabWidth is how far apart the diff's tab stops are.
const tabWidth = 4

// expandTabs puts spaces where s has tabs, up to the next tab stop. Go code
// is indented with tabs, and a tab on the screen moves the cursor over the
// cells it skips without clearing them: what the screen showed there before
// would show through the diff's indentation.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += lipgloss.Width(string(r))
	}
	return b.String()
}

// diffKey scrolls the diff. Not with space, as a pager would: space is
// the visualizer's pause, and a key means one thing in both (keys_test.go).
func (m Model) diffKey(key string) (tea.Model, tea.Cmd) {
	page := max(1, m.height-2)
	last := max(0, len(m.diff)-page)
	switch key {
	case "q", "ctrl+c":
		m.quitting = true
		return m, tea.Quit
	case "esc", "backspace":
		m.screen = List
	case "d", "o":
		if key == map[Screen]string{Diff: "d", Output: "o"}[m.screen] {
			m.screen = List
		}
	case "down":
		m.top++
	case "up":
		m.top--
	case "pgdown":
		m.top += page
	case "pgup":
		m.top -= page
	case "home":
		m.top = 0
	case "end":
		m.top = last
	}
	m.top = max(0, min(m.top, last))
	return m, nil
}

func (m Model) diffView() string {
	page := max(1, m.height-2)
	end := min(len(m.diff), m.top+page)
	lines := m.diff[m.top:end]
	footer := fmt.Sprintf(map[Screen]string{Diff: m.say().DiffFooter, Output: m.say().OutputFooter}[m.screen], m.top+1, end, len(m.diff))
	return strings.Join(lines, "\n") + "\n" + dimStyle.Render(truncate(footer, max(40, m.width)))
}
