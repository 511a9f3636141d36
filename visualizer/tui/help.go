package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// helpItem is one key of a help bar: what to press and what it does.
type helpItem struct {
	key, desc string
	keep      bool // never cut away (? and q)
	spare     bool // the first to go when the bar is too narrow (the speed keys)
}

// helpBar is the one help bar every screen draws, the live view, a replay
// and the observe mode: "key desc · key desc" in width w. Too narrow, it
// drops the separators' spaces, then the spare items (the README and
// -help list them), then puts the items it keeps first, where a cut cannot
// reach them, and cuts.
func helpBar(items []helpItem, w int) string {
	var parts, plain, kept, rest []string
	for _, it := range items {
		parts = append(parts, helpKeyStyle.Render(it.key)+" "+it.desc)
		p := it.key + " " + it.desc
		plain = append(plain, p)
		switch {
		case it.keep:
			kept = append(kept, p)
		case !it.spare:
			rest = append(rest, p)
		}
	}
	for _, line := range []string{strings.Join(parts, " · "), strings.Join(plain, "·")} {
		if visibleWidth(line) <= w {
			return line
		}
	}
	if line := strings.Join(append(append([]string(nil), rest...), kept...), "·"); visibleWidth(line) <= w {
		return line
	}
	return fit(strings.Join(append(kept, rest...), "·"), w)
}

// helpView is the help bar of the live view (a replay's: replayHelp).
func (m Model) helpView(w int) string {
	if m.replay != nil {
		return m.replayHelp(w)
	}
	var items []helpItem
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
		items = append(items, helpItem{key: h.Key, desc: h.Desc, keep: isOneOf(k, keys.Legend, keys.Quit), spare: isOneOf(k, keys.Faster)})
	}
	return helpBar(items, w)
}

// isOneOf says whether binding k is one of bs (by its first key).
func isOneOf(k key.Binding, bs ...key.Binding) bool {
	for _, b := range bs {
		if k.Keys()[0] == b.Keys()[0] {
			return true
		}
	}
	return false
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
