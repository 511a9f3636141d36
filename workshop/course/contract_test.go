package course_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// A lesson test may demand of the learner's code only what the exercise
// file says. These tests hold the two together: every literal expectation
// of a chapter's lesson tests (a string it compares, searches or matches,
// an event kind or op it counts or waits for) is either part of a stub's
// contract — and then that stub's comment names it, in its English part and
// in its Chinese part — or is listed below as the reference's own doing,
// with the reason.
//
// Why a scanner and a table, not one of them alone: the scanner (go/ast
// over the lesson tests and the helpers they call) finds every literal a
// test asserts, so a new assertion cannot slip in unstated; the table says
// which stub owes each one and in which words, which the scanner cannot
// know (a test counts event.Waiting; the stub of 02 states it as
// l.waiting()). The table must match what the scanner finds, both ways: an
// entry no lesson test asserts any more is reported as stale.

// contract is one expectation of a chapter's lesson tests that the
// learner's code must meet, and the stub that owes it.
type contract struct {
	chapter string
	asserts string   // what the scanner finds: a quoted literal ("create") or a selector (event.Waiting)
	stub    string   // the function (or rule variable) whose comment states it
	says    []string // the words the comment must contain, in English and in Chinese; default: the literal
}

// plumbing is an expectation the learner's code does not produce: the
// reference's code around the exercise does, or the test itself. Chapter
// "*" is every chapter whose lesson asserts it.
type plumbing struct {
	chapter, asserts, why string
}

// order is an expectation no literal shows (an order of calls): the stub's
// comment must still say it, in both languages.
type order struct {
	chapter, test, stub string
	says                []string // in the English part
	saysZh              []string // in the Chinese part
}

var contracts = []contract{
	{"02", `"create lock node "`, "attempt", []string{"naivelock: create lock node <path>"}},
	{"02", "event.Waiting", "Lock", []string{"l.waiting()"}},

	{"03", "event.Waiting", "Lock", []string{"l.waiting()"}},
	{"03", "event.Notified", "Lock", []string{"l.notified(ev)"}},
	{"03", "event.WatchSet", "Lock", []string{"l.existsW"}},
	{"03", `"exists"`, "Lock", []string{"l.existsW"}},
	{"03", "event.Request", "Lock", []string{"l.existsW"}},

	{"04", "event.Request", "waitTurn", []string{"Request"}},
	{"04", `"children"`, "waitTurn", nil},
	{"04", `"get"`, "waitTurn", nil},
	{"04", "event.Waiting", "waitTurn", []string{"Waiting"}},
	{"04", "event.Notified", "waitTurn", []string{"Notified"}},
	{"04", "event.Acquired", "waitTurn", []string{"Acquired"}},

	{"06", `"re-entered, depth 2"`, "acquire", []string{`m.info(fmt.Sprintf("re-entered, depth %d", N+1))`}},
	{"06", `"re-entered, depth 3"`, "acquire", []string{`m.info(fmt.Sprintf("re-entered, depth %d", N+1))`}},
	{"06", `"re-entry refused at depth 2: "`, "acquire", []string{`m.info(fmt.Sprintf("re-entry refused at depth %d: %s", N, reason))`}},
	{"06", "event.Info", "acquire", []string{"m.info"}},
	{"06", `"left depth 3, still held at depth 2"`, "release", []string{`m.info(fmt.Sprintf("left depth %d, still held at depth %d", N, N-1))`}},
	{"06", `"left depth 2, still held at depth 1"`, "release", []string{`m.info(fmt.Sprintf("left depth %d, still held at depth %d", N, N-1))`}},
	{"06", `"left depth 2 of a lost lock"`, "release", []string{`m.info(fmt.Sprintf("left depth %d of a lost lock", N))`}},

	{"07", "event.Request", "lookup", []string{"e.emit(event.Event{Kind: event.Request"}},
	{"07", `"children"`, "lookup", []string{`Op: "children"`}},
	{"07", `"get"`, "lookup", []string{`"get"`}},
	{"07", "event.WatchSet", "lookup", []string{"event.WatchSet"}},
	{"07", "event.Notified", "Observe", []string{"e.emit(event.Event{Kind: event.Notified, Node: e.dir"}},

	{"09", "event.Waiting", "acquire", []string{`s.emit(event.Waiting, "", s.leaseDir(),`}},
	{"09", "event.Notified", "acquire", []string{`s.emit(event.Notified, "", s.leaseDir(),`}},
	{"09", `"/leases"`, "acquire", []string{"s.leaseDir()"}},
}

const (
	sharedSuiteOwnEvents = "internal/locktest makes this event itself, for its own record of who held when; it does not read the lock's"
	sharedSuitePaths     = "internal/locktest's clean-up check walks the lock path up to the root; no lock's output"
	sharedSuiteFilters   = "internal/locktest's recording drops the lock's own Acquired, Released and Lost (ownWork): who holds is the suite's to say; nothing is asked of the lock"
)

var plumbings = []plumbing{
	{"02", `"create"`, "l.create (naivelock.go) reports the create request"},
	{"02", "event.Request", "the helpers in naivelock.go (l.create, l.get, l.delete) report every request"},
	{"02", "event.Acquired", sharedSuiteOwnEvents},
	{"02", "event.Released", sharedSuiteOwnEvents},
	{"*", `"."`, sharedSuitePaths},
	{"*", `"/"`, sharedSuitePaths},

	{"03", `"create"`, "TryLock (watchlock.go, chapter 02's step) reports its create"},
	{"03", "event.Acquired", sharedSuiteOwnEvents},
	{"03", "event.Released", sharedSuiteOwnEvents},
	{"02", "event.Lost", sharedSuiteFilters},
	{"03", "event.Lost", sharedSuiteFilters},

	{"04", `"/lock/"`, "acquire (queue.go) creates our node under the directory"},
	{"04", `"^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\\d{10}$"`, "acquire (queue.go) names our node"},
	{"04", `"holder waiter-0 waiter-1 waiter-2"`, "the test's own data for its nodes, read back by Participants"},

	{"05", "event.Waiting", "the queue core reports a side's wait; the rules only decide whom it watches"},
	{"05", "event.Notified", "the queue core reports a wake-up; how many wake is the rules' behaviour, which the test checks, not a wording"},
	{"05", "event.Acquired", "the queue core reports a hold; the order is the rules' behaviour, not a wording"},
	{"05", `"[A W B]"`, "the test's own names for its owners, in the order the rules must let them in"},

	{"06", "event.Acquired", "chapter 04's lock underneath reports its hold"},
	{"06", "event.Released", "chapter 04's lock underneath reports its release"},

	{"07", "event.Waiting", "campaign's queue core (chapter 04) reports a candidate's wait"},
	{"07", `"alpha"`, "the test's own candidate value, read back"},
	{"07", `"beta"`, "the test's own candidate value, read back"},
	{"07", `"host-a:8080"`, "the test's own candidate value, read back"},

	{"09", `"/leases/"`, "the lease's queue core (chapter 04) creates it under s.leaseDir()"},
	{"09", "event.WatchSet", "count (semaphore.go) reports its watch on the lease directory once the listing's reply is in; the learner's acquire only calls count"},
	{"09", `"create"`, "the lease's queue core reports its create"},
	{"09", "event.Request", "the lease's queue core reports its requests"},
	{"09", `"-lease-"`, "leaseName (semaphore.go) names the lease nodes"},
}

var orders = []order{
	{"03", "ExampleLock", "Lock",
		[]string{"only once the watch is set and the node still exists does it say that it waits", "after l.existsW"},
		[]string{"只有监听设好、节点也还在时，才调用 l.waiting() 报告自己在等", "在 l.existsW 之后"}},
}

// expectation is one literal a lesson test asserts.
type expectation struct {
	asserts string
	test    string // the lesson test (or the helper of it) that asserts it
	at      string // file:line
}

// assertingCalls are the calls whose literal arguments are expectations:
// searches and matches of a text, and the event tally's counts.
var assertingCalls = map[string]bool{
	"Contains": true, "HasPrefix": true, "HasSuffix": true, "EqualFold": true, "Index": true,
	"MustCompile": true, "MatchString": true, "Compile": true, "Requests": true, "Count": true,
}

// wanted tells the names that hold or check what a test expects: want,
// wantLines, expected, mustHaveSaid, expectEvent.
func wanted(name string) bool {
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "want") || strings.HasPrefix(name, "expect") || strings.HasPrefix(name, "must")
}

// eventConsts is every constant package event declares (its kinds, and its
// ops if they are constants): a selector event.X of one of them in a lesson
// test is an expectation.
func eventConsts(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join(root, "event"), func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
					for _, s := range g.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							if n.IsExported() {
								out[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return out
}

// lessonExpectations parses the test files of ex's package and returns
// every expectation of the tests that lesson (the chapter's lesson-tier
// pattern) matches, following the calls to the package's own test helpers.
func lessonExpectations(t *testing.T, ex course.Exercise, lesson *regexp.Regexp, kinds map[string]bool) (map[string][]expectation, []string) {
	t.Helper()
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(root, ex.Pkg, "*_test.go"))
	// The shared suite is the lesson's too (TestConformance runs it): its
	// functions are known as locktest.Name.
	shared, _ := filepath.Glob(filepath.Join(root, "internal", "locktest", "*.go"))
	funcs := map[string]*ast.FuncDecl{}
	for _, f := range append(files, shared...) {
		if strings.HasSuffix(f, "_test.go") && strings.Contains(f, "locktest") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		prefix := ""
		if af.Name.Name == "locktest" {
			prefix = "locktest."
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				funcs[prefix+fd.Name.Name] = fd // methods too: a test's helper type
			}
		}
	}
	var tests []string
	for name, fd := range funcs {
		if fd.Recv == nil && lesson.MatchString(name) {
			tests = append(tests, name)
		}
	}
	sort.Strings(tests)
	out := map[string][]expectation{}
	seen := map[string]bool{}
	var visit func(test, name string)
	visit = func(test, name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		prefix, _, ok := strings.Cut(name, ".")
		if ok {
			prefix += "."
		} else {
			prefix = ""
		}
		local := func(name string) (string, bool) {
			_, ok := funcs[prefix+name]
			return prefix + name, ok
		}
		add := func(key string, n ast.Node) {
			p := fset.Position(n.Pos())
			out[key] = append(out[key], expectation{key, test, fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)})
		}
		literals := func(e ast.Expr) {
			ast.Inspect(e, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if n.Kind == token.STRING {
						if s, err := strconv.Unquote(n.Value); err == nil && strings.TrimSpace(s) != "" {
							add(strconv.Quote(s), n)
						}
					}
				case *ast.CallExpr:
					return false // a call inside an operand is judged on its own
				}
				return true
			})
		}
		ast.Inspect(funcs[name].Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					literals(n.X)
					literals(n.Y)
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					literals(e)
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && wanted(id.Name) && i < len(n.Rhs) {
						literals(n.Rhs[i])
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if wanted(id.Name) && i < len(n.Values) {
						literals(n.Values[i])
					}
				}
			case *ast.CallExpr:
				var callee string
				switch f := n.Fun.(type) {
				case *ast.Ident:
					callee = f.Name
					if q, ok := local(f.Name); ok {
						visit(test, q)
					}
				case *ast.SelectorExpr:
					callee = f.Sel.Name
					if x, ok := f.X.(*ast.Ident); ok && x.Name == "locktest" {
						if _, ok := funcs["locktest."+f.Sel.Name]; ok {
							visit(test, "locktest."+f.Sel.Name)
						}
					} else if q, ok := local(f.Sel.Name); ok {
						visit(test, q)
					}
				}
				if assertingCalls[callee] || wanted(callee) {
					for _, a := range n.Args {
						literals(a)
					}
				}
				for _, a := range n.Args { // a helper passed as a value
					if id, ok := a.(*ast.Ident); ok {
						if q, ok := local(id.Name); ok {
							visit(test, q)
						}
					}
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "event" && kinds[n.Sel.Name] {
					add("event."+n.Sel.Name, n)
				}
			}
			return true
		})
	}
	for _, name := range tests {
		visit(name, name)
	}
	return out, tests
}

// testNamed tells whether ex's package has a test (or example) called name.
func testNamed(t *testing.T, ex course.Exercise, name string) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, ex.Pkg, "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "\nfunc "+name+"(") {
			return true
		}
	}
	return false
}

// stubComments returns the comment of every function and variable of ex's
// exercise files, by name.
func stubComments(t *testing.T, ex course.Exercise, src map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range ex.Files {
		var text any // nil: the file on disk
		if s, ok := src[f]; ok {
			text = s
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, text, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				out[d.Name.Name] = d.Doc.Text()
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if v, ok := s.(*ast.ValueSpec); ok {
						doc := v.Doc
						if doc == nil {
							doc = d.Doc
						}
						for _, n := range v.Names {
							out[n.Name] = doc.Text()
						}
					}
				}
			}
		}
	}
	return out
}

// split cuts a comment into its English part and its Chinese part: the
// Chinese part starts at the first line with a Han character.
func split(comment string) (en, zh string) {
	lines := strings.Split(comment, "\n")
	for i, l := range lines {
		for _, r := range l {
			if unicode.Is(unicode.Han, r) {
				return strings.Join(lines[:i], "\n"), strings.Join(lines[i:], "\n")
			}
		}
	}
	return comment, ""
}

// phrase makes a comment's words comparable: line breaks and runs of
// spaces become one space, and none is left where a Chinese line was
// wrapped (between two characters that are not ASCII).
func phrase(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	for i, c := range r {
		if c == ' ' && i > 0 && i+1 < len(r) && r[i-1] > unicode.MaxASCII && r[i+1] > unicode.MaxASCII {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// checkContracts returns every way the exercise files (their text in src,
// or on disk where src has none) fail to state what the lesson tests
// expect, and every way the tables above are out of step with the tests.
func checkContracts(t *testing.T, src map[string]string) []string {
	t.Helper()
	table := hint.MustLoad()
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	kinds := eventConsts(t)
	var problems []string
	for _, ex := range all {
		for i, f := range ex.Files {
			ex.Files[i] = filepath.Join(root, f)
		}
		lesson := regexp.MustCompile(table.Lesson(ex.Chapter))
		found, tests := lessonExpectations(t, ex, lesson, kinds)
		if len(tests) == 0 {
			problems = append(problems, fmt.Sprintf("%s: no lesson test matches %s", ex.Chapter, lesson))
		}
		comments := stubComments(t, ex, src)
		known := map[string]bool{}
		for _, c := range contracts {
			if c.chapter != ex.Chapter {
				continue
			}
			known[c.asserts] = true
			if len(found[c.asserts]) == 0 {
				problems = append(problems, fmt.Sprintf("%s: the contract of %s names %s, which no lesson test asserts any more: remove it from contracts", ex.Chapter, c.stub, c.asserts))
			}
			comment, ok := comments[c.stub]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: no stub %s in %v", ex.Chapter, c.stub, ex.Files))
				continue
			}
			en, zh := split(comment)
			says := c.says
			if len(says) == 0 {
				s, _ := strconv.Unquote(c.asserts)
				says = []string{s}
			}
			for _, s := range says {
				for _, part := range []struct{ lang, text string }{{"English", en}, {"Chinese", zh}} {
					if !strings.Contains(phrase(part.text), phrase(s)) {
						e := found[c.asserts]
						where := ""
						if len(e) > 0 {
							where = fmt.Sprintf(" (%s asserts %s at %s)", e[0].test, c.asserts, e[0].at)
						}
						problems = append(problems, fmt.Sprintf("%s: %s's contract does not say %q in its %s part%s", ex.Chapter, c.stub, s, part.lang, where))
					}
				}
			}
		}
		for _, p := range plumbings {
			if p.chapter == "*" {
				known[p.asserts] = true
				continue
			}
			if p.chapter != ex.Chapter {
				continue
			}
			known[p.asserts] = true
			if len(found[p.asserts]) == 0 {
				problems = append(problems, fmt.Sprintf("%s: plumbing names %s, which no lesson test asserts any more: remove it", ex.Chapter, p.asserts))
			}
		}
		for key, es := range found {
			if !known[key] {
				problems = append(problems, fmt.Sprintf("%s: %s asserts %s (%s), which no stub's contract states: add it to contracts (and to the stub's comment, in English and Chinese) or, if the reference's own code produces it, to plumbing with the reason", ex.Chapter, es[0].test, key, es[0].at))
			}
		}
		for _, o := range orders {
			if o.chapter != ex.Chapter {
				continue
			}
			if !testNamed(t, ex, o.test) {
				problems = append(problems, fmt.Sprintf("%s: orders names %s, which is no test of %s", ex.Chapter, o.test, ex.Pkg))
			}
			en, zh := split(comments[o.stub])
			for _, s := range o.says {
				if !strings.Contains(phrase(en), phrase(s)) {
					problems = append(problems, fmt.Sprintf("%s: %s's contract does not say %q in its English part (%s depends on it)", ex.Chapter, o.stub, s, o.test))
				}
			}
			for _, s := range o.saysZh {
				if !strings.Contains(phrase(zh), phrase(s)) {
					problems = append(problems, fmt.Sprintf("%s: %s's contract does not say %q in its Chinese part (%s depends on it)", ex.Chapter, o.stub, s, o.test))
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func TestEveryLessonExpectationIsStatedInItsStubsContract(t *testing.T) {
	for _, p := range checkContracts(t, nil) {
		t.Error(p)
	}
}

// stubs returns, for every TODO(workshop) stub of ex's files (their text in
// src, or on disk), its name, its comment and its panic's message.
func stubs(t *testing.T, ex course.Exercise, src map[string]string) (names []string, comments, todos map[string]string) {
	t.Helper()
	comments = stubComments(t, ex, src)
	todos = map[string]string{}
	for _, f := range ex.Files {
		var text any
		if s, ok := src[f]; ok {
			text = s
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, text, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			var name string
			switch d := d.(type) {
			case *ast.FuncDecl:
				name = d.Name.Name
			case *ast.GenDecl:
				if len(d.Specs) > 0 {
					if v, ok := d.Specs[0].(*ast.ValueSpec); ok && len(v.Names) > 0 {
						name = v.Names[0].Name
					}
				}
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
					if s, err := strconv.Unquote(l.Value); err == nil && strings.HasPrefix(s, "TODO(workshop): ") {
						names = append(names, name)
						todos[name] = s
					}
				}
				return true
			})
		}
	}
	return names, comments, todos
}

// Each stub carries its instructions in English and in Chinese, and its
// TODO names the lesson's page in both languages.
func TestEveryStubSaysItsContractInBothLanguages(t *testing.T) {
	table := hint.MustLoad()
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ex := range all {
		for i, f := range ex.Files {
			ex.Files[i] = filepath.Join(root, f)
		}
		names, comments, todos := stubs(t, ex, nil)
		for _, name := range names {
			n++
			en, zh := split(comments[name])
			if strings.TrimSpace(en) == "" || strings.TrimSpace(zh) == "" {
				t.Errorf("%s: %s's comment has %d English and %d Chinese characters: say what must hold in both (English first, then Chinese)", ex.Chapter, name, len([]rune(en)), len([]rune(zh)))
			}
			todo := todos[name]
			if !strings.Contains(todo, "README.md") || !strings.Contains(todo, "README.zh-CN.md") {
				t.Errorf("%s: %s's TODO does not name the lesson's page in both languages (README.md … / README.zh-CN.md …): %q", ex.Chapter, name, todo)
			}
			// Its step in hints.json tells the Chinese learner the same page.
			if st := table.StepOf(ex.Chapter, todo); st != nil && (!strings.Contains(st.Goal.ZH, "README.zh-CN.md") || st.Holds.EN == "" || st.Holds.ZH == "") {
				t.Errorf("%s: hints.json's step %q: its goal.zh should name README.zh-CN.md (it says %q) and its holds be said in both languages", ex.Chapter, st.Todo, st.Goal.ZH)
			}
		}
	}
	if n == 0 {
		t.Fatal("found no stubs")
	}
}

// The check is only worth something if it fails: a stub's comment that
// loses a required phrase (in either language), and a lesson expectation
// that no table entry states, are each reported.
func TestTheContractCheckCatchesWhatIsMissing(t *testing.T) {
	const file = "06-reentrant/reentrant/count_workshop.go"
	path := filepath.Join(root, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	orig := string(b)
	const words = `fmt.Sprintf("re-entered, depth %d", N+1)`
	if strings.Count(orig, words) != 2 {
		t.Fatalf("%s says %s %d times, want twice (English and Chinese)", file, words, strings.Count(orig, words))
	}
	for _, c := range []struct {
		lang string
		src  string
	}{
		{"English", strings.Replace(orig, words, `fmt.Sprintf("re-entered at depth %d", N+1)`, 1)},
		{"Chinese", orig[:strings.LastIndex(orig, words)] + strings.Replace(orig[strings.LastIndex(orig, words):], words, "重入", 1)},
	} {
		problems := checkContracts(t, map[string]string{path: c.src})
		want := fmt.Sprintf("acquire's contract does not say %q in its %s part", `m.info(fmt.Sprintf("re-entered, depth %d", N+1))`, c.lang)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("with the %s words removed from acquire's comment the check said:\n%s\nwant a line containing\n%s", c.lang, strings.Join(problems, "\n"), want)
		}
	}

	saved := contracts
	t.Cleanup(func() { contracts = saved })
	contracts = slices.DeleteFunc(slices.Clone(saved), func(c contract) bool { return c.chapter == "02" && c.asserts == `"create lock node "` })
	problems := checkContracts(t, nil)
	want := `02: TestLockDoesNotRetryAnErrorThatIsNotErrLocked asserts "create lock node "`
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
		t.Errorf("with 02's error wording taken out of the table the check said:\n%s\nwant a line starting\n%s", strings.Join(problems, "\n"), want)
	}
}
