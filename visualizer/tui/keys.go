package tui

import (
	"fmt"
	"slices"
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
	Chapter: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "chapter")),
	Legend:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "legend")),
	Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c", "esc"), key.WithHelp("q", "quit")),
}

// helpKeys are the bindings the help bar lists, in order.
func (k keyMap) helpKeys() []key.Binding {
	return []key.Binding{k.Pause, k.Faster, k.Add, k.Up, k.Kill, k.Expire, k.Chapter, k.Legend, k.Quit}
}

// key handles a key press. The side effect, if any, goes out as a command.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
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
		k := "0" + msg.String()
		if !slices.Contains(m.available, k) {
			m.status = fmt.Sprintf(m.say().StatusNoScene, k)
			return m, nil
		}
		if k == m.chapter.Key {
			return m, nil
		}
		m.status = fmt.Sprintf(m.say().StatusSwitching, k)
		return m, m.do(func(c Controller) { c.Switch(k) })
	}
	return m, nil
}

// do runs f on the controller inside a command, off the UI goroutine.
func (m Model) do(f func(Controller)) tea.Cmd {
	if m.ctl == nil {
		return nil
	}
	c := m.ctl
	return func() tea.Msg { f(c); return nil }
}
