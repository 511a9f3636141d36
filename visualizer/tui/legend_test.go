package tui

import (
	"strings"
	"testing"
)

// ? shows what every column and mark of the screen means, in the view's
// language and the chapter's words, and ? again brings the panels back.
// The help bar says so at the narrowest width the visualizer allows.
func TestTheLegendExplainsEveryColumnAndMark(t *testing.T) {
	for lang, marks := range map[string][]string{
		"en": {"▶ … HOLDS", "← worker-3", "G · L", "R · W", "(crashed)", "»", "NOTIFIED", "acq", "req", "ntf", "wst",
			"woken/release X (last N)", "req N (X/acq)", "✓ · ✗", "EVENTS"},
		"zh": {"▶ … 持有", "← worker-3", "G · L", "R · W", "(已崩溃)", "»", "已通知", "加锁", "请求", "通知", "无效",
			"唤醒/释放 X（最近 N）", "请求 N（X/次加锁）", "✓ · ✗", "事件"},
	} {
		m := started(t, &fakeController{}).inLang(lang)
		m.width, m.height = 80, 24
		helpWant := map[string]string{"en": "? legend", "zh": "? 图例"}[lang]
		for _, w := range []int{40, 80, 100} {
			if m.width = w; !strings.Contains(m.helpView(w), helpWant) {
				t.Errorf("%s: the help bar at %d columns does not mention %q: %s", lang, w, helpWant, m.helpView(w))
			}
		}
		m.width = 80
		before := m.View()
		shown, cmd := press(t, m, "?")
		if cmd != nil {
			t.Errorf("%s: ? asked the world for something", lang)
		}
		v := shown.View()
		for _, mark := range marks {
			if !strings.Contains(v, "\n  "+mark) && !strings.Contains(v, "\n"+mark) {
				t.Errorf("%s: the legend does not explain %q:\n%s", lang, mark, v)
			}
		}
		if m.View() != before {
			t.Errorf("%s: ? changed the model it was given", lang)
		}
		back, _ := press(t, shown, "?")
		if back.View() != before {
			t.Errorf("%s: ? again does not bring the panels back:\n%s", lang, back.View())
		}
	}
}

// In a replay, ? shows the same legend, at the same event.
func TestTheLegendInAReplay(t *testing.T) {
	m := replayPress(NewReplayModel(herdReplay(t)), "b")
	shown := replayPress(m, "?")
	if shown.pos != m.pos || !strings.Contains(shown.View(), "wasted wake-ups") {
		t.Errorf("? in a replay: at %d (want %d), and the legend:\n%s", shown.pos, m.pos, shown.View())
	}
	if back := replayPress(shown, "?"); back.View() != m.View() {
		t.Errorf("? again in a replay does not bring the panels back:\n%s", back.View())
	}
	if !strings.Contains(m.View(), "? legend") {
		t.Errorf("the replay's help bar does not mention ?:\n%s", m.View())
	}
}
