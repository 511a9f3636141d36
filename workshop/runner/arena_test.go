package runner

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// arenaEnv is a class's env: it records the arena's comings and goings.
type arenaEnv struct {
	fakeEnv
	entered, left, next int
}

func (f *arenaEnv) EnterArena() tea.Cmd { f.entered++; return nil }
func (f *arenaEnv) LeaveArena() tea.Cmd { f.left++; return nil }
func (f *arenaEnv) ArenaNext() tea.Cmd  { f.next++; return nil }

func header(m Model) string { return strings.SplitN(m.View(), "\n", 2)[0] }

func TestTheArenaIsOfferedInAClassOnce04Passes(t *testing.T) {
	pass := course.Result{Tier: course.Lesson, Kind: course.Pass}

	t.Run("outside a class, A does nothing and nothing is offered", func(t *testing.T) {
		env := &arenaEnv{}
		m := update(newModel(t, env, "en"), RunDone{Chapter: "04", Result: pass}, key("A"))
		if env.entered != 0 || strings.Contains(m.View(), "arena") {
			t.Errorf("outside a class: entered %d times; the screen:\n%s", env.entered, m.View())
		}
	})

	t.Run("in a class, before 04 passes, A says when the arena opens", func(t *testing.T) {
		env := &arenaEnv{}
		m := update(newModel(t, env, "en").InClass("ada"), RunDone{Chapter: "04", Result: herd()}, key("A"))
		if env.entered != 0 {
			t.Errorf("A entered the arena with a 04 that names the herd")
		}
		if want := "the class arena opens when your 04 passes"; !strings.Contains(m.View(), want) {
			t.Errorf("want %q on the screen:\n%s", want, m.View())
		}
		if strings.Contains(header(m), "A: enter") {
			t.Errorf("the header offers the arena before 04 passes: %q", header(m))
		}
	})

	t.Run("a pass offered for a file changed since is no pass", func(t *testing.T) {
		env := &arenaEnv{}
		update(newModel(t, env, "en").InClass("ada"), RunDone{Chapter: "04", Result: pass},
			Saved{Chapter: "04", Hash: "edited"}, key("A"))
		if env.entered != 0 {
			t.Errorf("A entered the arena with a 04 changed since it passed")
		}
	})

	t.Run("in a class, once 04 passes: A enters, the header follows the rounds, A again leaves", func(t *testing.T) {
		env := &arenaEnv{}
		m := update(newModel(t, env, "en").InClass("ada"), tea.WindowSizeMsg{Width: 140, Height: 40}, RunDone{Chapter: "04", Result: pass})
		if want := "A: enter the arena"; !strings.Contains(header(m), want) {
			t.Fatalf("after 04 passes, want %q in the header: %q", want, header(m))
		}
		m = update(m, key("A"))
		if env.entered != 1 {
			t.Fatalf("A called EnterArena %d times, want 1", env.entered)
		}
		m = update(m, ArenaNews{Kind: ArenaIn})
		if want := "arena: queued"; !strings.Contains(header(m), want) || env.next != 1 {
			t.Errorf("in the arena: want %q in the header (%q) and the news awaited (%d)", want, header(m), env.next)
		}
		m = update(m, ArenaNews{Kind: ArenaRound, Wrote: true, Count: 41}, ArenaNews{Kind: ArenaRound, Wrote: true, Count: 44})
		if want := "arena: 2 rounds · count 44 · caught 0"; !strings.Contains(header(m), want) {
			t.Errorf("after two rounds, want %q in the header: %q", want, header(m))
		}
		m = update(m, ArenaNews{Kind: ArenaRound, Count: 45, Caught: "two inside: ada's write found eve's"})
		if want := "the arena caught your lock: two inside: ada's write found eve's"; !strings.Contains(m.View(), want) {
			t.Errorf("a catch: want %q on the screen:\n%s", want, m.View())
		}
		if want := "caught 1"; !strings.Contains(header(m), want) {
			t.Errorf("a catch: want %q in the header: %q", want, header(m))
		}
		m = update(m, key("l"))
		if want := "竞技场：3 轮 · 计数器 45 · 写入被拒 1 次"; !strings.Contains(header(m), want) {
			t.Errorf("in Chinese, want %q in the header: %q", want, header(m))
		}
		m = update(m, key("l"), key("A"))
		if env.left != 1 {
			t.Fatalf("A in the arena called LeaveArena %d times, want 1", env.left)
		}
		m = update(m, ArenaNews{Kind: ArenaOut})
		if want := "you left the arena"; !strings.Contains(m.View(), want) || !strings.Contains(header(m), "A: enter") {
			t.Errorf("after leaving, want %q and the offer again:\n%s", want, m.View())
		}
	})
}
