package tui

import "strings"

// helpView is the help bar: every key, cut to the width.
func (m Model) helpView(w int) string {
	var parts []string
	for _, k := range keys.helpKeys() {
		h := k.Help()
		parts = append(parts, helpKeyStyle.Render(h.Key)+" "+h.Desc)
	}
	line := strings.Join(parts, " · ")
	if visibleWidth(line) <= w {
		return line
	}
	// Too narrow: drop the separators' spaces, then cut.
	var plain []string
	for _, k := range keys.helpKeys() {
		plain = append(plain, k.Help().Key+" "+k.Help().Desc)
	}
	return fit(strings.Join(plain, "·"), w)
}
