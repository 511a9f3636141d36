package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// shared are the keys both the runner and the visualizer have, and the one
// thing each means in both.
var shared = map[string]string{
	"up":     "move: to a chapter, to a worker, through the diff",
	"down":   "move: to a chapter, to a worker, through the diff",
	"home":   "to the start: of the diff, of a recording",
	"end":    "to the end: of the diff, of a recording",
	"esc":    "leave the screen: the diff or the done screen for the list, the visualizer for the runner",
	"q":      "quit the program it is pressed in",
	"ctrl+c": "quit the program it is pressed in",
}

// visualizerKeys reads every key the visualizer binds (its live view's
// keys.go and its replay's) from its source: the keys as it has them, not
// a copy of them here.
func visualizerKeys(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"keys.go", "replay.go"} {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "visualizer", "tui", f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || callName(call) != "WithKeys" {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
			return true
		})
	}
	if len(out) < 10 {
		t.Fatalf("read only %d keys of the visualizer: %v", len(out), out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// callName is the name of the function a call of pkg.Name calls, else "".
func callName(call *ast.CallExpr) string {
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}

// runnerKeys reads the keys the runner's screens act on from the case
// clauses of keys.go (the list, the done screen) and diff.go.
func runnerKeys(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"keys.go", "diff.go"} {
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok {
				for _, e := range cc.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, s)
					}
				}
			}
			return true
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// press is the key msg Bubble Tea delivers for a key of that name.
func press(name string) tea.KeyMsg {
	for kt := tea.KeyType(-100); kt < 128; kt++ {
		if kt != tea.KeyRunes && kt.String() == name {
			return tea.KeyMsg{Type: kt}
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

func TestTheRunnerAndTheVisualizerShareOnlyKeysThatMeanTheSameInBoth(t *testing.T) {
	vis, run := visualizerKeys(t), runnerKeys(t)
	for _, k := range run {
		if slices.Contains(vis, k) && shared[k] == "" {
			t.Errorf("%q is a key of the runner and of the visualizer, with two meanings", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(shared)) {
		if !slices.Contains(vis, k) || !slices.Contains(run, k) {
			t.Errorf("shared lists %q, which is not a key of both (visualizer %v, runner %v)", k, vis, run)
		}
	}
}

func TestTheVisualizersOwnKeysDoNothingInTheRunner(t *testing.T) {
	var lines []string
	for i := 1; i <= 100; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	screens := map[string]func(Model) Model{
		"the list": func(m Model) Model { return m },
		"the diff": func(m Model) Model {
			return update(m, key("d"), DiffReady{Chapter: "02", Text: strings.Join(lines, "\n")})
		},
		"the done screen": func(m Model) Model { m.screen = Done; return m },
	}
	for _, k := range visualizerKeys(t) {
		if shared[k] != "" {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(screens)) {
			env := &fakeEnv{}
			m := screens[name](newModel(t, env, "en"))
			before, asked := m.View(), len(env.runs)+len(env.resets)+len(env.diffs)+len(env.saved)
			next, cmd := m.Update(press(k))
			after := next.(Model)
			if cmd != nil || after.View() != before || after.screen != m.screen ||
				len(env.runs)+len(env.resets)+len(env.diffs)+len(env.saved) != asked {
				t.Errorf("the visualizer's %q did something on %s of the runner:\n%s", k, name, after.View())
			}
		}
	}
}
