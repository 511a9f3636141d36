package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
)

// note is a line of news under the list: the news, and a tip (a key to
// press) that goes first when the line is too wide.
type note struct{ chapter, text, tip string }

func news(ch, text string, tip ...string) note {
	return note{chapter: ch, text: text, tip: strings.Join(tip, " · ")}
}

// line is the note within w cells: the tip is dropped before the news is cut.
func (n note) line(w int) string {
	if n.tip != "" {
		if s := n.text + " · " + n.tip; lipgloss.Width(s) <= w {
			return s
		}
	}
	return truncate(n.text, w)
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
