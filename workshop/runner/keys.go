package runner

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// key is what a key does, on the screen the learner is looking at. The key
// bar (words.go's Help) names the list's keys; docs/learners.md says what
// each one does.
func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	key := k.String()
	asked := m.confirm
	m.confirm = ""
	switch m.screen {
	case Diff, Output:
		return m.diffKey(key)
	case Done:
		return m.doneKey(key)
	}
	// A key is the learner's next move: what was said before it has had
	// its moment.
	m.note = note{}
	ch := m.selected()
	switch key {
	case "q", "ctrl+c":
		m.quitting = true
		return m, tea.Quit
	case "up":
		m.cursor = max(0, m.cursor-1)
	case "down":
		m.cursor = min(len(m.exercises)-1, m.cursor+1)
	case "n":
		if next := m.next(); next >= 0 {
			m.cursor = next
		}
	case "enter":
		m.note = news(ch, fmt.Sprintf(m.say().LessonFirst, ch))
		return m, m.start(ch, course.Lesson)
	case "f":
		m.note = news(ch, fmt.Sprintf(m.say().Full, ch))
		return m, m.start(ch, course.Full)
	case "h":
		return m.hint(ch)
	case "l":
		if m.lang == "zh" {
			m.lang = "en"
		} else {
			m.lang = "zh"
		}
		return m, m.save()
	case "w":
		m.watch = !m.watch
		m.note = news("", map[bool]string{true: m.say().WatchOn, false: m.say().WatchOff}[m.watch])
	case "R":
		if asked != "R" {
			m.confirm = "R"
			m.note = news(ch, fmt.Sprintf(m.say().ResetAgain, ch))
			return m, nil
		}
		if m.env != nil {
			return m, m.env.Reset(ch)
		}
	case "d":
		// The reference is the answer: one key away, but asked for twice.
		if asked != "d" {
			m.confirm = "d"
			m.note = news(ch, fmt.Sprintf(m.say().DiffAgain, ch))
			return m, nil
		}
		if m.env != nil {
			return m, m.env.Diff(ch)
		}
	case "o":
		return m.output(ch)
	case "v":
		return m, m.visual(ch)
	case "p":
		return m.replayOrRecord(ch)
	case "A":
		return m.arenaKey()
	}
	return m, nil
}

// doneKey: the screen that says every chapter passes goes back to the list.
func (m Model) doneKey(key string) (tea.Model, tea.Cmd) {
	switch key {
	case "q", "ctrl+c":
		m.quitting = true
		return m, tea.Quit
	case "esc", "enter", "backspace":
		m.screen = List
	}
	return m, nil
}
