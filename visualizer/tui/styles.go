package tui

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
func stateStyle(s State) lipgloss.Style {
	switch s {
	case Holding:
		return holderStyle
	case Waiting:
		return waitingStyle
	case Requesting:
		return requestStyle
	case Crashed, CutOff:
		return deadStyle
	case Expired:
		return expiredStyle
	case Idle, Stopped:
		return dimStyle
	}
	return lipgloss.NewStyle()
}
