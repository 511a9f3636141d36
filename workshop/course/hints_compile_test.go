package course_test

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// TestNearSolutionHintsThatAreGoCompileInTheSkeleton applies each step's last
// hint (the near-solution, Go in both languages: see
// TestNearSolutionHintsAreGoInBothLanguages) to the stub it is about in
// the chapter's skeleton, in the order of the table, and builds the package
// with -tags workshop: a hint that calls a removed API, or passes a conn
// where a *seqlock.Session is taken, breaks this test before it misleads a
// learner. With every stub written as its hints say, the chapter must pass
// its lesson tier, as a learner's file would.
func TestNearSolutionHintsThatAreGoCompileInTheSkeleton(t *testing.T) {
	root := moduleRootOf(t)
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	table, err := hint.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range all {
		t.Run(ex.Chapter, func(t *testing.T) {
			files, applied := writeAsHinted(t, root, ex, table.Steps)
			if applied == 0 {
				t.Fatalf("no near-solution hint of chapter %s was applied: its steps in workshop/hint/hints.json are missing or prose", ex.Chapter)
			}
			if out, err := buildSkeleton(t, root, ex, files); err != nil {
				t.Fatalf("the skeleton with its %d Go hints applied does not build: %v\n%s", applied, err, out)
			}
			for _, f := range ex.Files {
				src, ok := files[f]
				if !ok {
					t.Fatalf("%s: no hint wrote any of its stubs", f)
				}
				if i := strings.Index(src, `panic("TODO(workshop)`); i >= 0 {
					t.Fatalf("%s: with its hints applied a stub is still unwritten: %.80s", f, src[i:])
				}
			}
			if t.Failed() {
				return // a hint was prose or found no stub: the files are not the hints' whole story
			}
			from := t.TempDir()
			for f, src := range files {
				if err := os.WriteFile(filepath.Join(from, filepath.Base(f)), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := course.Run(context.Background(), root, all, ex, course.Lesson, table, course.Options{From: from})
			if r.Kind != course.Pass {
				t.Fatalf("the skeleton with every stub written as its hints say fails the lesson tier: %s\n%s", r.First, r.Output)
			}
			t.Logf("every stub written as its hints say: the lesson tier passes (%s)", r.Elapsed.Round(time.Millisecond))
		})
	}
}

// TestNearSolutionHintsAreGoInBothLanguages: each step's last hint is Go
// (statements for the stub's body, or a var declaration) that the test above
// can apply, not prose; and the Chinese near-solution is the same code, byte
// for byte (code has no language, and a learner on the 中文 page must get
// what the English page's learner gets).
func TestNearSolutionHintsAreGoInBothLanguages(t *testing.T) {
	table := hint.MustLoad()
	for _, s := range table.Steps {
		if len(s.Hints.EN) == 0 || len(s.Hints.ZH) != len(s.Hints.EN) {
			t.Errorf("%s %s: %d English hints and %d Chinese ones, want as many of each, at least one", s.Chapter, s.Todo, len(s.Hints.EN), len(s.Hints.ZH))
			continue
		}
		en, zh := s.Hints.EN[len(s.Hints.EN)-1], s.Hints.ZH[len(s.Hints.ZH)-1]
		if !isGo(en) {
			t.Errorf("%s %s: its last hint is not Go that compiles in place of the stub (prose, or \"…\" in it): write the near-solution as code\n\t%s", s.Chapter, s.Todo, en)
			continue
		}
		if zh != en {
			t.Errorf("%s %s: the Chinese near-solution differs from the English one, which is Go: make hints.zh's last hint the same code\n\ten: %s\n\tzh: %s", s.Chapter, s.Todo, en, zh)
		}
	}
}

// writeAsHinted writes each stub of ex as its step's last hint says, in the
// order of steps, and returns the files so written and how many hints it
// applied. A last hint that is prose fails the test: it cannot be checked.
func writeAsHinted(t testing.TB, root string, ex course.Exercise, steps []hint.Step) (map[string]string, int) {
	t.Helper()
	files := map[string]string{}
	applied := 0
	for _, s := range steps {
		if s.Chapter != ex.Chapter {
			continue
		}
		last := s.Hints.EN[len(s.Hints.EN)-1]
		if !isGo(last) {
			t.Errorf("%s: its last hint is prose, not Go this test can apply: %.60s", s.Todo, last)
			continue
		}
		name := course.StubName(s.Todo)
		done := false
		for _, f := range ex.Files {
			src, ok := files[f]
			if !ok {
				b, err := os.ReadFile(filepath.Join(root, f))
				if err != nil {
					t.Fatal(err)
				}
				src = string(b)
			}
			if out, ok := applyHint(src, name, last); ok {
				files[f], done = withImports(out, last), true
				break
			}
		}
		if !done {
			t.Errorf("%s: no stub %q in %v for its hint", s.Todo, name, ex.Files)
			continue
		}
		applied++
	}
	return files, applied
}

// buildSkeleton vets ex's package with -tags workshop and files in place of
// the exercise files.
func buildSkeleton(t testing.TB, root string, ex course.Exercise, files map[string]string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	replace := map[string]string{}
	for f, src := range files {
		p := filepath.Join(dir, strings.ReplaceAll(f, "/", "_"))
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, f)] = p
	}
	overlay := `{"Replace":{`
	first := true
	for from, to := range replace {
		if !first {
			overlay += ","
		}
		first = false
		overlay += quote(from) + ":" + quote(to)
	}
	overlay += "}}"
	op := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(op, []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.Dir(ex.Files[0])
	cmd := exec.Command("go", "vet", "-tags", "workshop", "-overlay", op, pkg)
	cmd.Dir = root
	return cmd.CombinedOutput()
}

// TestAHintThatPassesAConnWhereASessionIsTakenDoesNotBuild is the check's
// own test: 07's campaign hint as it once was.
func TestAHintThatPassesAConnWhereASessionIsTakenDoesNotBuild(t *testing.T) {
	root := moduleRootOf(t)
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := course.Find(all, "07")
	if err != nil {
		t.Fatal(err)
	}
	table := hint.MustLoad()
	var steps []hint.Step
	for _, s := range table.Steps {
		if s.Chapter == "07" && s.Todo == "campaign —" {
			last := s.Hints.EN[len(s.Hints.EN)-1]
			broken := strings.Replace(last, "seqlock.NewWithRule(e.s,", "seqlock.NewWithRule(e.conn,", 1)
			if broken == last {
				t.Fatalf("07's campaign hint no longer calls seqlock.NewWithRule(e.s, …): %s", last)
			}
			s.Hints.EN = []string{broken}
			steps = append(steps, s)
		}
	}
	files, applied := writeAsHinted(t, root, ex, steps)
	if applied != 1 {
		t.Fatalf("applied %d hints, want 1", applied)
	}
	out, err := buildSkeleton(t, root, ex, files)
	if err == nil || !strings.Contains(string(out), "*seqlock.Session") {
		t.Fatalf("the hint passing e.conn to seqlock.NewWithRule built (err %v):\n%s", err, out)
	}
}

// isGo says whether a hint is a Go statement list or declaration.
func isGo(h string) bool {
	if strings.Contains(h, "…") {
		return false
	}
	if strings.HasPrefix(h, "var ") || strings.HasPrefix(h, "func ") {
		_, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+h, 0)
		return err == nil
	}
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+h+"\n}", 0)
	return err == nil
}

// applyHint puts hint in place of the stub name in src: a declaration
// replaces the stub's whole declaration, statements replace the body of the
// block whose panic names the stub.
func applyHint(src, name, h string) (string, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return "", false
	}
	var start, end token.Pos
	if strings.HasPrefix(h, "var ") {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						if n.Name == name {
							start, end = g.Pos(), g.End()
						}
					}
				}
			}
		}
	} else {
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BlockStmt)
			if !ok {
				return true
			}
			for _, st := range b.List {
				if panicsWith(st, "TODO(workshop): "+name+" ") {
					start, end = b.Lbrace+1, b.Rbrace
				}
			}
			return true
		})
		h = "\n" + h + "\n"
	}
	if start == 0 {
		return "", false
	}
	var out bytes.Buffer
	out.WriteString(src[:fset.Position(start).Offset])
	out.WriteString(h)
	out.WriteString(src[fset.Position(end).Offset:])
	return out.String(), true
}

// importable are the packages a hint may use that its skeleton need not
// import yet, by the name a hint calls them: the standard ones, ZooKeeper's
// client and the module's own that the lessons use. The learner's editor
// (gopls) adds such an import on save.
var importable = map[string]string{
	"context": "context",
	"errors":  "errors",
	"fmt":     "fmt",
	"slices":  "slices",
	"strings": "strings",
	"time":    "time",
	"zk":      "github.com/go-zookeeper/zk",
	"seqlock": "github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock",
	"event":   "github.com/lockstep-zk/lockstep/event",
	"zkcall":  "github.com/lockstep-zk/lockstep/internal/zkcall",
	"zkpath":  "github.com/lockstep-zk/lockstep/internal/zkpath",
}

// withImports adds to src an import of each package of importable that hint
// names (name. not preceded by a letter, digit, _ or .) and src does not
// import yet.
func withImports(src, h string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if err != nil {
		return src
	}
	have := map[string]bool{}
	for _, im := range f.Imports {
		have[strings.Trim(im.Path.Value, `"`)] = true
	}
	var add []string
	for name, path := range importable {
		if !have[path] && regexp.MustCompile(`(^|[^\w.])`+name+`\.`).MatchString(h) {
			add = append(add, "import \""+path+"\"\n")
		}
	}
	if len(add) == 0 {
		return src
	}
	slices.Sort(add)
	i := strings.Index(src, "\npackage ") + 1
	j := i + strings.Index(src[i:], "\n") + 1
	return src[:j] + strings.Join(add, "") + src[j:]
}

func panicsWith(st ast.Stmt, prefix string) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "panic" {
		return false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	return ok && strings.HasPrefix(strings.Trim(lit.Value, "\"`"), prefix)
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

func moduleRootOf(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
