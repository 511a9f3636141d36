package tui

import (
	"slices"
	"strings"
)

// helpView is the help bar: every key, cut to the width.
func (m Model) helpView(w int) string {
	if m.replay != nil {
		return m.replayHelp(w)
	}
	var parts, plain []string
	for _, k := range keys.helpKeys() {
		h := k.Help()
		switch k.Keys()[0] {
		case keys.Chapter.Keys()[0]:
			h.Key = m.chapterKeys()
		case keys.Add.Keys()[0]:
			h.Desc = m.words.Worker // "a/x candidate" in 07
		}
		if d, ok := m.keyWords()[k.Keys()[0]]; ok {
			h.Desc = d
		}
		parts = append(parts, helpKeyStyle.Render(h.Key)+" "+h.Desc)
		plain = append(plain, h.Key+" "+h.Desc)
	}
	line := strings.Join(parts, " · ")
	if visibleWidth(line) <= w {
		return line
	}
	// Too narrow: drop the separators' spaces, then the speed keys (the
	// README and -help list them), never ? or q; then cut.
	if line := strings.Join(plain, "·"); visibleWidth(line) <= w {
		return line
	}
	var first, rest []string // ? and q first, where a cut cannot reach them
	for i, k := range keys.helpKeys() {
		switch k.Keys()[0] {
		case keys.Faster.Keys()[0]:
		case keys.Legend.Keys()[0], keys.Quit.Keys()[0]:
			first = append(first, plain[i])
		default:
			rest = append(rest, plain[i])
		}
	}
	if line := strings.Join(append(slices.Clip(rest), first...), "·"); visibleWidth(line) <= w {
		return line
	}
	return fit(strings.Join(append(first, rest...), "·"), w)
}

// chapterKeys is the keys that switch chapter, "1-7": the first and last
// scene given to the engine.
func (m Model) chapterKeys() string {
	if len(m.available) == 0 {
		return keys.Chapter.Help().Key
	}
	first := strings.TrimLeft(m.available[0], "0")
	last := strings.TrimLeft(m.available[len(m.available)-1], "0")
	if first == last {
		return first
	}
	return first + "-" + last
}

// keyWords is each key's description in the help bar, in m's language,
// by the key's first binding (the add key's is the scene's word).
func (m Model) keyWords() map[string]string {
	t := m.say()
	return map[string]string{
		keys.Pause.Keys()[0]: t.KeyPause, keys.Faster.Keys()[0]: t.KeySpeed, keys.Up.Keys()[0]: t.KeySelect,
		keys.Kill.Keys()[0]: t.KeyKill, keys.Expire.Keys()[0]: t.KeyExpire, keys.Chapter.Keys()[0]: t.KeyChapter,
		keys.Legend.Keys()[0]: t.KeyLegend, keys.Quit.Keys()[0]: t.KeyQuit,
	}
}
