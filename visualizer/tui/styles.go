package tui

import "github.com/lockstep-zk/lockstep/visualizer/worldmsg"

import "github.com/charmbracelet/lipgloss"

// Colours carry nothing the text doesn't already say: with NO_COLOR every
// state, holder and notification is still spelled out.
var (
	titleStyle    = lipgloss.NewStyle().Bold(true)
	dimStyle      = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	holderStyle   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("10"))
	waitingStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("12"))
	requestStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("14"))
	flashStyle    = lipgloss.NewStyle().Bold(true).Reverse(true).Foreground(lipgloss.Color("11"))
	deadStyle     = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	expiredStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("13"))
	selectedStyle = lipgloss.NewStyle().Bold(true)
	pausedStyle   = lipgloss.NewStyle().Bold(true).Reverse(true)
	persistStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Bold(true)
	helpKeyStyle  = lipgloss.NewStyle().Bold(true)
)

// stateStyle is how a worker's state is drawn.
func stateStyle(s worldmsg.State) lipgloss.Style {
	switch s {
	case worldmsg.Holding:
		return holderStyle
	case worldmsg.Waiting:
		return waitingStyle
	case worldmsg.Requesting:
		return requestStyle
	case worldmsg.Crashed, worldmsg.CutOff:
		return deadStyle
	case worldmsg.Expired:
		return expiredStyle
	case worldmsg.Idle, worldmsg.Stopped:
		return dimStyle
	}
	return lipgloss.NewStyle()
}
