package tui

// logView is the event log: the latest lines, oldest first, in the
// articles' style ("worker-3 create lock-0000000007").
func (m Model) logView(w, h int) []string {
	lines := make([]string, 0, h)
	lines = append(lines, titleStyle.Render(fit(m.say().Events, w)))
	n := h - 1
	start := max(0, len(m.log)-n)
	for _, l := range m.log[start:] {
		lines = append(lines, fit(l, w))
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines
}
