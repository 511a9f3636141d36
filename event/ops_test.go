package event

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// An untyped constant is an Op wherever one is expected, so a lock that
// reports Op: "sync" compiles. This test reads the module's Go files for
// every op written as a literal — in an Event, to an emit helper beside
// event.Request or event.WatchSet, compared with an event's Op, counted by
// Tally.Requests — and fails on one that Ops does not list: a reader of
// events (the visualizer's fold) would not know what it does.
func TestEveryOpTheModuleWritesIsOneOfOps(t *testing.T) {
	known := map[string]bool{"": true} // "": no op (Waiting, Notified, …; Requests("") is all)
	for _, op := range Ops() {
		known[string(op)] = true
	}
	found := map[string][]string{} // op → where
	str := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(lit.Value)
		return s, err == nil
	}
	named := func(e ast.Expr, names ...string) bool {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			return slices.Contains(names, x.Sel.Name) && isIdent(x.X, "event")
		case *ast.Ident:
			return slices.Contains(names, x.Name)
		}
		return false
	}
	fset := token.NewFileSet()
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			add := func(e ast.Expr) {
				if s, ok := str(e); ok {
					found[s] = append(found[s], fset.Position(e.Pos()).String())
				}
			}
			switch n := n.(type) {
			case *ast.CompositeLit:
				if named(n.Type, "Event") {
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Op") {
							add(kv.Value)
						}
					}
				}
			case *ast.CallExpr:
				for i, a := range n.Args {
					if named(a, "Request", "WatchSet") && i+1 < len(n.Args) {
						add(n.Args[i+1])
					}
				}
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Requests" && len(n.Args) == 1 {
					add(n.Args[0])
				}
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
						if sel, ok := pair[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Op" {
							add(pair[1])
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for op, where := range found {
		n += len(where)
		if !known[op] {
			t.Errorf("op %q is written at %s but is none of event.Ops(): add it there (and to what the visualizer does with each op, tui's effects)", op, strings.Join(where, ", "))
		}
	}
	if n < 30 {
		t.Fatalf("found only %d ops written in the module: the scan no longer sees the locks' emits", n)
	}
	t.Logf("%d ops written as literals in the module", n)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
