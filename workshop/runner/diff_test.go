package runner

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

func TestTheDiffScrolls(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	var lines []string
	for i := 1; i <= 100; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	m = update(m, key("d"), DiffReady{Chapter: "02", Text: strings.Join(lines, "\n")})
	if v := m.View(); !strings.Contains(v, "line 1\n") || strings.Contains(v, "line 30\n") {
		t.Fatalf("the diff's first page:\n%s", v)
	}
	m = update(m, tea.KeyMsg{Type: tea.KeyPgDown}, key("down"))
	if v := m.View(); !strings.Contains(v, "line 24\n") || strings.Contains(v, "line 23\n") {
		t.Errorf("after pgdown and ↓:\n%s", v)
	}
	m = update(m, tea.KeyMsg{Type: tea.KeyEnd})
	if v := m.View(); !strings.Contains(v, "line 100\n") || !strings.Contains(v, "of 100") {
		t.Errorf("at the end:\n%s", v)
	}
}

func TestTheDiffShowsGoCodesTabsAsSpacesToTheSameStops(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, key("d"), DiffReady{Chapter: "02", Text: "+\tif ours == 0 {\n-\t\treturn false, queue[0].Name\n \t}\n+\tx := 1\t// 一 note\n"})
	v := m.View()
	if strings.Contains(v, "\t") {
		t.Fatalf("a tab reached the screen, where the cells it skips keep what was there before:\n%s", v)
	}
	for _, want := range []string{"+   if ours == 0 {\n", "-       return false, queue[0].Name\n", "    }\n", "+   x := 1  // 一 note\n"} {
		if !strings.Contains(v, want) {
			t.Errorf("the diff does not show %q:\n%s", want, v)
		}
	}
}

// The footer says how to get back; on 80 columns it was cut before "esc".
func TestTheDiffFooterFitsTheLearnersTerminal(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		m := newModel(t, &fakeEnv{}, lang)
		m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24}, key("d"), DiffReady{Chapter: "02", Text: strings.Repeat("+ line\n", 100)})
		lines := strings.Split(m.View(), "\n")
		footer := lines[len(lines)-1]
		if w := lipgloss.Width(footer); w > 80 || !strings.Contains(footer, "esc") {
			t.Errorf("%s: footer %q is %d cells wide; want at most 80, with esc in it", lang, footer, w)
		}
	}
}
