package apicheck

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lockPackages are the packages a user of the course imports.
var lockPackages = []string{
	"04-sequential-lock/seqlock",
	"05-rwlock/rwlock",
	"06-reentrant/reentrant",
	"07-leader/leader",
	"08-fencing/fencing",
	"09-semaphore/semaphore",
}

// root is the module's directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// internalNames matches what go doc shows of internal/: the path, or a
// name qualified by one of its packages (zksession.Option).
func internalNames(t *testing.T) *regexp.Regexp {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root(t), "internal"))
	if err != nil {
		t.Fatal(err)
	}
	alts := []string{`\binternal\b`}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "cmd" {
			alts = append(alts, `\b`+regexp.QuoteMeta(e.Name())+`\.`)
		}
	}
	return regexp.MustCompile(strings.Join(alts, "|"))
}

// unexported matches an exported function type over an unexported one:
// type Option func(*options).
var unexported = regexp.MustCompile(`^type [A-Z]\w* func\(\*[a-z]\w*\)`)

func TestTheLockPackagesDocumentNothingOfInternal(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	internal := internalNames(t)
	for _, pkg := range lockPackages {
		t.Run(pkg, func(t *testing.T) {
			cmd := exec.Command("go", "doc", "-all", "./"+pkg)
			cmd.Dir = root(t)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go doc -all ./%s: %v\n%s", pkg, err, out)
			}
			for i, line := range strings.Split(string(out), "\n") {
				if internal.MatchString(line) {
					t.Errorf("go doc -all line %d names internal/, which a user outside the module cannot import: %s", i+1, strings.TrimSpace(line))
				}
				if unexported.MatchString(line) {
					t.Errorf("go doc -all line %d takes an unexported type, which a user outside the module cannot write: %s", i+1, strings.TrimSpace(line))
				}
			}
		})
	}
}

// TestSeqlockExportsAtMostThirtyNames: chapter 04's package is the lesson
// and the engine; what it exports should fit in one reader's head. It
// counts the top-level names (constants, variables, types, functions),
// not methods.
func TestSeqlockExportsAtMostThirtyNames(t *testing.T) {
	const most = 30
	fset := token.NewFileSet()
	dir := filepath.Join(root(t), "04-sequential-lock/seqlock")
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go") && !strings.HasSuffix(fi.Name(), "_workshop.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, f := range pkgs["seqlock"].Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, v.Names...)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			names = append(names, f.Name)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, typ := range p.Types {
		names = append(names, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
	}
	if len(names) > most {
		t.Errorf("seqlock exports %d top-level names, want at most %d: %s", len(names), most, strings.Join(names, ", "))
	}
	t.Logf("seqlock exports %d top-level names: %s", len(names), strings.Join(names, ", "))
}
