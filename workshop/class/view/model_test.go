package view

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

var t0 = time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)

func progressed(name, chapter string, state classroom.State, mistake string, started time.Duration) classroom.Change {
	return classroom.Change{Name: name, Kind: classroom.Progressed, Progress: classroom.Progress{
		Chapter: chapter, State: state, Mistake: mistake, ChapterStart: t0.Add(-started)}}
}

func online(name string) classroom.Change {
	return classroom.Change{Name: name, Kind: classroom.Online}
}

func apply(m Model, changes ...classroom.Change) Model {
	for _, c := range changes {
		next, _ := m.Update(c)
		m = next.(Model)
	}
	return m
}

func names(rows []Row) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Name)
	}
	return strings.Join(out, " ")
}

func TestUpdate(t *testing.T) {
	t.Run("a change re-arms the wait for the next one", func(t *testing.T) {
		ch := make(chan classroom.Change, 1)
		m := New("", English, t0, ch)
		_, cmd := m.Update(online("ada"))
		if cmd == nil {
			t.Fatal("no command after a change: the screen would stop listening")
		}
		ch <- online("bob")
		if got := cmd(); got.(classroom.Change).Name != "bob" {
			t.Fatalf("the re-armed wait brought %v", got)
		}
	})

	t.Run("Update does not change the model it was given", func(t *testing.T) {
		m := apply(New("", English, t0, nil), online("ada"))
		_ = apply(m, classroom.Change{Name: "ada", Kind: classroom.Offline}, online("bob"))
		if r, _ := m.Row("ada"); !r.Online {
			t.Fatal("ada went offline in the earlier model")
		}
		if _, ok := m.Row("bob"); ok {
			t.Fatal("bob appeared in the earlier model")
		}
	})

	t.Run("whoever needs help comes first", func(t *testing.T) {
		m := apply(New("", English, t0, nil),
			online("pass"), progressed("pass", "04", classroom.Passing, "", time.Hour),
			online("new"), progressed("new", "04", classroom.Untouched, "", 5*time.Minute),
			online("fail-short"), progressed("fail-short", "04", classroom.Failing, "herd", time.Minute),
			online("fail-long"), progressed("fail-long", "03", classroom.Failing, "busy loop", 20*time.Minute),
			progressed("gone", "02", classroom.Failing, "stuck", 2*time.Hour),
		)
		if got, want := names(m.Rows()), "fail-long fail-short new pass gone"; got != want {
			t.Fatalf("order %q, want %q", got, want)
		}
	})

	t.Run("the class by chapter counts learners, passes and the mistakes named", func(t *testing.T) {
		var cs []classroom.Change
		for i := range 9 {
			name := fmt.Sprintf("l%d", i)
			switch {
			case i < 4:
				cs = append(cs, progressed(name, "04", classroom.Failing, "the herd", 0))
			case i < 6:
				cs = append(cs, progressed(name, "04", classroom.Passing, "", 0))
			case i < 7:
				cs = append(cs, progressed(name, "04", classroom.Failing, "no re-list", 0))
			default:
				cs = append(cs, progressed(name, "04", classroom.Untouched, "", 0))
			}
		}
		m := apply(New("", English, t0, nil), cs...)
		view := m.View()
		if want := "04: 9 learners, 2 passing, 4 named the herd, 1 named no re-list"; !strings.Contains(view, want) {
			t.Fatalf("no %q in\n%s", want, view)
		}
		m.Lang = Chinese
		if want := "04：9 位学员，2 位已通过，4 位被指出 the herd"; !strings.Contains(m.View(), want) {
			t.Fatalf("no %q in\n%s", want, m.View())
		}
	})

	t.Run("a learner gone shows gone and keeps their progress; one removed leaves the screen", func(t *testing.T) {
		m := apply(New("", English, t0, nil), online("ada"), progressed("ada", "05", classroom.Failing, "upgrade", 90*time.Second),
			classroom.Change{Name: "ada", Kind: classroom.Offline})
		if !strings.Contains(m.View(), "○ ada              05  gone · failing   ") {
			t.Fatalf("ada not shown gone:\n%s", m.View())
		}
		m = apply(m, classroom.Change{Name: "ada", Kind: classroom.Left})
		if _, ok := m.Row("ada"); ok {
			t.Fatal("ada still on the screen after leaving the class")
		}
	})

	t.Run("time on the chapter grows with the clock", func(t *testing.T) {
		m := apply(New("", English, t0, nil), online("ada"), progressed("ada", "04", classroom.Failing, "herd", 30*time.Second))
		next, _ := m.Update(TickMsg(t0.Add(12 * time.Minute)))
		if !strings.Contains(next.(Model).View(), "herd                     12m") {
			t.Fatalf("no 12m on the row:\n%s", next.(Model).View())
		}
	})

	t.Run("l switches the language and q quits", func(t *testing.T) {
		m := New("", English, t0, nil)
		next, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("l")})
		if next.(Model).Lang != Chinese || !strings.Contains(next.(Model).View(), "还没有学员加入") {
			t.Fatalf("after l: %v\n%s", next.(Model).Lang, next.(Model).View())
		}
		if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}); cmd == nil || cmd() != tea.Quit() {
			t.Fatal("q does not quit")
		}
	})
}
