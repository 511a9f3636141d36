package tui

import (
	"fmt"
	"strings"
)

// The legend (?) says what every column and mark of the screen means, in
// the view's language and the chapter's words: it takes the place of the
// panels and the log until ? is pressed again. The other keys work as
// before, so a learner can read it while the locks go on.

// legendMarkW is the widest mark that keeps its explanation beside it; a
// wider one (the counters line's) has its explanation on the next line.
const legendMarkW = 14

// legendView is the legend in h lines of width w.
func (m Model) legendView(w, h int) []string {
	t := m.say()
	words := strings.NewReplacer("{holds}", m.words.Holds, "{acq}", m.words.Acquired, "{woken}", m.words.Woken,
		"{notified}", m.words.Notified, "{perAcq}", m.words.PerAcq, "{worker}", m.words.Worker,
		"{workers}", fmt.Sprintf(t.Workers, strings.ToUpper(m.words.Worker)), "{queue}", m.words.Queue)
	var lines []string
	indent := strings.Repeat(" ", 2+legendMarkW+2)
	for _, l := range t.Legend {
		mark, say := words.Replace(l[0]), words.Replace(l[1])
		switch {
		case mark == "":
			lines = append(lines, titleStyle.Render(fit(say, w)))
		case visibleWidth(mark) > legendMarkW:
			lines = append(lines, fit("  "+mark, w), fit(indent+say, w))
		default:
			lines = append(lines, fit("  "+pad(mark, legendMarkW)+"  "+say, w))
		}
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}
