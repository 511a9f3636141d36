package docs

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lessonPackages are the packages a learner calls, by the name the pages use.
var lessonPackages = map[string]string{
	"watch":     "01-watch/watch",
	"naivelock": "02-naive-lock/naivelock",
	"watchlock": "03-watch-lock/watchlock",
	"seqlock":   "04-sequential-lock/seqlock",
	"rwlock":    "05-rwlock/rwlock",
	"reentrant": "06-reentrant/reentrant",
	"leader":    "07-leader/leader",
	"fencing":   "08-fencing/fencing",
	"semaphore": "09-semaphore/semaphore",
	"sqlfence":  "08-fencing/sqlfence",
}

// freeNames are the names the pages' snippets use without declaring them,
// with the type each page means: a snippet that passes a conn where a
// *seqlock.Session is taken fails to type-check.
const freeNames = `var (
	ctx     context.Context
	s       *seqlock.Session
	session *seqlock.Session
	sess    *seqlock.Session
	conn    *zk.Conn
	servers []string
	dir     string
)`

var (
	goBlock = regexp.MustCompile("(?ms)^```go\n(.*?)^```")
	// usesAPI finds a call of a lesson package in a snippet.
	usesAPI = regexp.MustCompile(`\b(watch|naivelock|watchlock|seqlock|rwlock|reentrant|leader|fencing|semaphore)\.[A-Z]`)
	// unchecked are type errors that say only that the snippet is a
	// fragment: a name it leaves to the reader, a value it does not use.
	unchecked = regexp.MustCompile(`undefined: [a-zA-Z_]+$|declared and not used|imported and not used|missing return`)
)

// TestTheGoInThePagesThatNamesTheAPICompiles type-checks every ```go block
// of the READMEs and docs/ that calls a lesson package, against the
// packages as they are: a renamed function or a changed signature breaks
// this test, not a learner copying the page. Fragments are fine: the names
// a snippet leaves undeclared are either in freeNames (with their type) or
// ignored, and "…" stands for code left out.
func TestTheGoInThePagesThatNamesTheAPICompiles(t *testing.T) {
	root := ".."
	pages, _ := filepath.Glob(filepath.Join(root, "*.md"))
	for _, glob := range []string{"docs/*.md", "0*/README*.md"} {
		more, _ := filepath.Glob(filepath.Join(root, glob))
		pages = append(pages, more...)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goBlock.FindAllSubmatchIndex(b, -1) {
			snippet := string(b[m[2]:m[3]])
			if !usesAPI.MatchString(snippet) {
				continue
			}
			line := 1 + strings.Count(string(b[:m[2]]), "\n")
			where := fmt.Sprintf("%s:%d", filepath.ToSlash(page[len(root)+1:]), line)
			checked++
			for _, e := range typeErrors(fset, imp, snippet) {
				t.Errorf("%s: the snippet does not compile against the packages: %s", where, e)
			}
		}
	}
	// The package comments' code: the indented blocks of a lesson
	// package's comments (gofmt's code blocks).
	sources, _ := filepath.Glob(filepath.Join(root, "0*", "*", "*.go"))
	for _, file := range sources {
		if strings.HasSuffix(file, "_test.go") || strings.HasSuffix(file, "_workshop.go") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range commentCode(string(b)) {
			if !usesAPI.MatchString(block.code) {
				continue
			}
			where := fmt.Sprintf("%s:%d", filepath.ToSlash(file[len(root)+1:]), block.line)
			checked++
			for _, e := range typeErrors(fset, imp, block.code) {
				t.Errorf("%s: the comment's code does not compile against the packages: %s", where, e)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no snippet names the API: the page globs are wrong")
	}
	t.Logf("%d snippets type-checked", checked)
}

type codeBlock struct {
	line int
	code string
}

// commentCode returns the code blocks of a Go file's comments: runs of
// lines that start with "//\t".
func commentCode(src string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	for i, l := range strings.Split(src, "\n") {
		if code, ok := strings.CutPrefix(l, "//\t"); ok {
			if cur == nil {
				out = append(out, codeBlock{line: i + 1})
				cur = &out[len(out)-1]
			}
			cur.code += code + "\n"
			continue
		}
		cur = nil
	}
	return out
}

// TestTheSnippetCheckCatchesAConnPassedForASession is the check's own
// test: the mistake the leader package comment once had.
func TestTheSnippetCheckCatchesAConnPassedForASession(t *testing.T) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	if errs := typeErrors(fset, imp, "e, err := leader.New(conn, \"/election\")\nif err != nil { … }\n_ = e\n"); len(errs) == 0 {
		t.Error("leader.New(conn, …) passed the check; it takes a *seqlock.Session")
	}
	if errs := typeErrors(fset, imp, "m, _ := seqlock.NewWithLocks(s, dir)\n"); len(errs) == 0 {
		t.Error("a function seqlock does not have passed the check")
	}
	if errs := typeErrors(fset, imp, "e, _ := leader.New(s, \"/election\") // s: a Session\n_ = e.Campaign(ctx, \"host-a\")\n"); len(errs) != 0 {
		t.Errorf("a right snippet failed the check: %v", errs)
	}
}

// typeErrors type-checks snippet as a file (when it declares funcs or
// types) or as a function body, with every lesson package imported, and
// returns the errors that are not about it being a fragment.
func typeErrors(fset *token.FileSet, imp types.Importer, snippet string) []string {
	snippet = strings.ReplaceAll(snippet, "{ … }", "{ }")
	snippet = strings.ReplaceAll(snippet, "case … }", "default: }")
	snippet = strings.NewReplacer("…;", ";", "… }", "}").Replace(snippet)
	snippet = regexp.MustCompile(`(?m)^(\s*)…\s*$`).ReplaceAllString(snippet, "$1")
	var src strings.Builder
	src.WriteString("package snippet\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"time\"\n\n\t\"github.com/go-zookeeper/zk\"\n")
	for name, dir := range lessonPackages {
		fmt.Fprintf(&src, "\t%s \"github.com/lockstep-zk/lockstep/%s\"\n", name, dir)
	}
	src.WriteString(")\n\nvar _ = errors.New\nvar _ = fmt.Sprint\nvar _ = time.Second\nvar _ = zk.ErrNoNode\n\n")
	if regexp.MustCompile(`(?m)^(func|type) `).MatchString(snippet) {
		src.WriteString(snippet)
	} else {
		src.WriteString("func _() {\n" + freeNames + "\n{\n" + snippet + "\n}\n}\n")
	}
	f, err := parser.ParseFile(fset, "snippet.go", src.String(), 0)
	if err != nil {
		return []string{"does not parse: " + err.Error()}
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) {
		msg := err.(types.Error).Msg
		if !unchecked.MatchString(msg) {
			errs = append(errs, msg)
		}
	}}
	conf.Check("snippet", fset, []*ast.File{f}, nil)
	return errs
}
