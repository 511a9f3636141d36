package tui

import "github.com/lockstep-zk/lockstep/visualizer/worldmsg"

// label is how the chapter's words name state s in the state column.
func (m Model) label(s worldmsg.State) string {
	switch s {
	case worldmsg.Idle:
		return m.words.Idle
	case worldmsg.Requesting:
		return m.words.Requesting
	case worldmsg.Waiting:
		return m.words.Waiting
	case worldmsg.Holding:
		return m.words.Holding
	case worldmsg.Expired:
		return m.say().Expired
	case worldmsg.CutOff:
		return m.say().CutOff
	case worldmsg.Crashed:
		return m.say().Crashed
	case worldmsg.Stopped:
		return m.say().Stopped
	}
	return s.String()
}
