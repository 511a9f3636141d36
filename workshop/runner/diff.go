package runner

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The diff screen: d asks the env for the reference against the learner's
// file; it arrives as a DiffReady and is shown a page at a time.

// diffReady shows the diff that arrived, from its first line.
func (m Model) diffReady(msg DiffReady) (tea.Model, tea.Cmd) {
	if msg.Err != nil {
		m.note = news(msg.Chapter, fmt.Sprintf(m.say().DiffFailed, msg.Err))
		return m, nil
	}
	m.screen, m.diff, m.top = Diff, strings.Split(strings.TrimRight(msg.Text, "\n"), "\n"), 0
	return m, nil
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
	case "esc", "d", "backspace":
		m.screen = List
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
	return strings.Join(lines, "\n") + "\n" + dimStyle.Render(fmt.Sprintf(m.say().DiffFooter, m.top+1, end, len(m.diff)))
}
