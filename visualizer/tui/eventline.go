package tui

import (
	"fmt"
	"strings"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The log in the view's language: a lock event as its scene says it
// (scene.LineIn), and the engine's own lines (a worker's change of state,
// the world's notices) from Texts.

// line is how the log says e in m's language; "" leaves it out.
func (m Model) line(e event.Event) string { return m.chapter.LineIn(m.lang, e) }

// detail is what a worker change says after the state: its Detail, or
// what the state means in m's language.
func (m Model) detail(c worldmsg.WorkerChange) string {
	if c.Detail != "" {
		return c.Detail
	}
	t := m.say()
	switch c.State {
	case worldmsg.Stopped:
		return t.DetailStopped
	case worldmsg.Crashed:
		return fmt.Sprintf(t.DetailCrashed, c.Timeout)
	case worldmsg.CutOff:
		return fmt.Sprintf(t.DetailCutOff, c.Timeout)
	case worldmsg.Expired:
		return t.DetailExpired
	}
	return ""
}

// stateWord is a state as the log names it: "CRASHED", "已崩溃".
func (m Model) stateWord(s worldmsg.State) string {
	if m.lang == "zh" {
		return m.label(s)
	}
	return strings.ToUpper(s.String())
}

// notice is a Notice as the log says it in m's language.
func (m Model) notice(n worldmsg.Notice) string {
	if f, ok := m.say().Notices[n.Of]; ok && n.Of != worldmsg.NoticeText {
		return fmt.Sprintf(f, n.Worker, n.Arg)
	}
	return n.Text
}
