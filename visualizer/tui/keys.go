package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyMap is every key the learner can press; the help bar shows them. A
// key means one thing across the visualizer and the workshop runner (see
// docs/learners.md): p is the runner's replay, f its full suite, h its hint,
// l its language, so none of them is an alias here.
type keyMap struct {
	Pause, Faster, Slower, Add, Remove, Up, Down, Kill, Expire, Chapter, Legend, Quit key.Binding
}

var keys = keyMap{
	Pause:   key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause")),
	Faster:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/-", "speed")),
	Slower:  key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
	Add:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a/x", "worker")),
	Remove:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "remove worker")),
	Up:      key.NewBinding(key.WithKeys("up"), key.WithHelp("↑↓", "select")),
	Down:    key.NewBinding(key.WithKeys("down", "tab"), key.WithHelp("↓", "select")),
	Kill:    key.NewBinding(key.WithKeys("k"), key.WithHelp("k", "kill")),
	Expire:  key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "expire")),
	Chapter: key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "chapter")),
	Legend:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "legend")),
	Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c", "esc"), key.WithHelp("q", "quit")),
}

// helpKeys are the bindings the help bar lists, in order.
func (k keyMap) helpKeys() []key.Binding {
	return []key.Binding{k.Pause, k.Faster, k.Add, k.Up, k.Kill, k.Expire, k.Chapter, k.Legend, k.Quit}
}

// key handles a key press. The side effect, if any, goes out as a command.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if !key.Matches(msg, keys.Chapter) {
		m.typed = "" // a chapter half typed is forgotten at any other key
	}
	switch {
	case key.Matches(msg, keys.Quit):
		return m, tea.Quit
	case key.Matches(msg, keys.Legend):
		m.legend = !m.legend
		return m, nil
	case key.Matches(msg, keys.Pause):
		m.paused = !m.paused
		m.status = map[bool]string{true: m.say().StatusPaused, false: m.say().StatusRunning}[m.paused]
		p := m.paused
		return m, m.do(func(c Controller) { c.SetPaused(p) })
	case key.Matches(msg, keys.Faster), key.Matches(msg, keys.Slower):
		h := m.hold
		if key.Matches(msg, keys.Faster) {
			h /= 2
		} else {
			h *= 2
		}
		h = max(minHold, min(maxHold, h))
		m.hold = h
		m.status = fmt.Sprintf(m.say().StatusHold, h)
		return m, m.do(func(c Controller) { c.SetHold(h) })
	case key.Matches(msg, keys.Add):
		m.status = fmt.Sprintf(m.say().StatusAdding, m.words.Worker)
		return m, m.do(Controller.AddWorker)
	case key.Matches(msg, keys.Remove):
		m.status = fmt.Sprintf(m.say().StatusRemoving, m.words.Worker)
		return m, m.do(Controller.RemoveWorker)
	case key.Matches(msg, keys.Up):
		if len(m.order) > 0 {
			if m.cursor <= 0 {
				m.cursor = -1
			} else {
				m.cursor--
			}
		}
		return m, nil
	case key.Matches(msg, keys.Down):
		if len(m.order) > 0 {
			m.cursor = min(m.cursor+1, len(m.order)-1)
		}
		return m, nil
	case key.Matches(msg, keys.Kill), key.Matches(msg, keys.Expire):
		target := m.selected()
		if target == "" {
			m.status = fmt.Sprintf(m.say().StatusNobody, strings.ToLower(m.words.Holds), m.words.Worker)
			return m, nil
		}
		if !m.workers[target].state.Alive() {
			m.status = fmt.Sprintf(m.say().StatusGone, target)
			return m, nil
		}
		if key.Matches(msg, keys.Kill) {
			m.status = fmt.Sprintf(m.say().StatusKilled, target)
			return m, m.do(func(c Controller) { c.Kill(target) })
		}
		m.status = fmt.Sprintf(m.say().StatusExpiring, target)
		return m, m.do(func(c Controller) { c.Expire(target) })
	case key.Matches(msg, keys.Chapter):
		return m.chapterDigit(msg.String())
	}
	return m, nil
}

// chapterDigit takes one digit of a chapter's number. The digits typed so
// far are taken as soon as no longer chapter key starts with them: with
// chapters 01 to 09, 4 is chapter 04 at once, as is 04; with a chapter 10
// or 12 too, 1 waits for the next digit (0 or 2), and chapter 01 is 01.
func (m Model) chapterDigit(d string) (tea.Model, tea.Cmd) {
	typed := m.typed + d
	var longer []string // keys that start with what is typed and go on
	for _, k := range m.available {
		if len(k) > len(typed) && strings.HasPrefix(k, typed) {
			longer = append(longer, k)
		}
	}
	if len(longer) > 0 {
		m.typed = typed
		m.status = fmt.Sprintf(m.say().StatusTyped, typed, strings.Join(longer, ", "))
		return m, nil
	}
	m.typed = ""
	k := chapterKey(m.available, typed)
	if k == "" {
		if len(typed) == 1 {
			typed = "0" + typed // as the chapters are numbered
		}
		m.status = fmt.Sprintf(m.say().StatusNoScene, typed)
		return m, nil
	}
	if k == m.chapter.Key {
		return m, nil
	}
	m.status = fmt.Sprintf(m.say().StatusSwitching, k)
	return m, m.do(func(c Controller) { c.Switch(k) })
}

// chapterKey is the key of available whose number is typed ("4" and "04"
// are 04), "" if none.
func chapterKey(available []string, typed string) string {
	n := strings.TrimLeft(typed, "0")
	for _, k := range available {
		if n != "" && strings.TrimLeft(k, "0") == n {
			return k
		}
	}
	return ""
}

// do runs f on the controller inside a command, off the UI goroutine.
func (m Model) do(f func(Controller)) tea.Cmd {
	if m.ctl == nil {
		return nil
	}
	c := m.ctl
	return func() tea.Msg { f(c); return nil }
}
