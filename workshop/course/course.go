// Package course finds the workshop's exercises in a clone of lockstep,
// runs a chapter's tests in tiers (the lesson's tests first, the full suite
// only when they pass) and says what the result means for the learner: a
// step still to write, a compile error, a named mistake from the hint
// table, or a pass. The runner (go run ./workshop) and the non-interactive
// check (scripts/exercise NN) both use it, so they print the same verdicts.
package course

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// Exercise is one chapter's exercise: the _workshop.go files in its
// package, each next to the reference file it replaces.
type Exercise struct {
	Chapter string   // "04"
	Dir     string   // "04-sequential-lock"
	Pkg     string   // "04-sequential-lock/seqlock"
	Files   []string // "04-sequential-lock/seqlock/acquire_workshop.go", relative to the root
}

// Reference is the reference file an exercise file replaces.
func Reference(file string) string { return strings.TrimSuffix(file, "_workshop.go") + ".go" }

// Discover lists the exercises under root, in chapter order.
func Discover(root string) ([]Exercise, error) {
	files, err := filepath.Glob(filepath.Join(root, "[0-9][0-9]-*", "*", "*_workshop.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Exercise
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		ch := rel[:2]
		if len(out) == 0 || out[len(out)-1].Chapter != ch {
			dir, _, _ := strings.Cut(rel, "/")
			out = append(out, Exercise{Chapter: ch, Dir: dir, Pkg: filepath.ToSlash(filepath.Dir(rel))})
		}
		out[len(out)-1].Files = append(out[len(out)-1].Files, rel)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no exercise files (NN-name/<pkg>/*_workshop.go) under %s", root)
	}
	return out, nil
}

// Find returns the exercise of chapter ch ("4" or "04").
func Find(all []Exercise, ch string) (Exercise, error) {
	if len(ch) == 1 {
		ch = "0" + ch
	}
	var have []string
	for _, e := range all {
		if e.Chapter == ch {
			return e, nil
		}
		have = append(have, e.Chapter)
	}
	return Exercise{}, fmt.Errorf("no chapter %s (chapters with an exercise: %s)", ch, strings.Join(have, " "))
}

// Overlay writes, in dir, a go -overlay file that puts every OTHER
// chapter's reference in place of its exercise file (the workshop tag is
// global, and chapter 05's tests must run on the reference 04, whatever
// state the learner's 04 is in) and, when from is set, from's files in
// place of ex's (acquire.go or acquire_workshop.go, whatever their build
// line: a copy of the reference is a fine scratch file).
func Overlay(root, dir string, all []Exercise, ex Exercise, from string) (string, error) {
	replace := map[string]string{}
	put := func(target, content string) error {
		name := filepath.Join(dir, strings.ReplaceAll(target, "/", "_"))
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			return err
		}
		replace[filepath.Join(root, target)] = name
		return nil
	}
	for _, e := range all {
		for _, f := range e.Files {
			var src string
			switch {
			case e.Chapter != ex.Chapter:
				src = filepath.Join(root, Reference(f))
			case from != "":
				base := filepath.Base(f)
				src = filepath.Join(from, base)
				if _, err := os.Stat(src); err != nil {
					src = filepath.Join(from, filepath.Base(Reference(f)))
					if _, err := os.Stat(src); err != nil {
						return "", fmt.Errorf("%s has neither %s nor %s", from, base, filepath.Base(Reference(f)))
					}
				}
			default:
				continue
			}
			b, err := os.ReadFile(src)
			if err != nil {
				return "", err
			}
			if err := put(f, WorkshopBuild(string(b))); err != nil {
				return "", err
			}
		}
	}
	out, _ := json.Marshal(map[string]any{"Replace": replace})
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, out, 0o644)
}

var buildLine = regexp.MustCompile(`(?m)^//go:build .*$`)

// WorkshopBuild gives a Go file the workshop's build line, whatever it had.
func WorkshopBuild(src string) string {
	if buildLine.MatchString(src) {
		return buildLine.ReplaceAllString(src, "//go:build workshop")
	}
	return "//go:build workshop\n\n" + src
}

// Tier is which tests a run runs.
type Tier int

const (
	Lesson Tier = iota // the lesson's tests, a few seconds
	Full               // every test of the chapter
	Custom             // the flags the caller gave
	// Record: the lesson's tests again, each run to its end, so that
	// every one that records (LOCKSTEP_RECORD_DIR) leaves its replay. The
	// lesson tier stops at the first failure, often a rule's table test
	// that needs no server and so records nothing.
	Record
	// Rule: the rule's table tests (hints.json's "rule"), no ZooKeeper,
	// a second or so; the Lesson tier runs them first.
	Rule
)

func (t Tier) String() string {
	return [...]string{"lesson", "full suite", "custom", "recording", "rule"}[t]
}

// Options of a run.
type Options struct {
	From      string    // a scratch directory whose files replace the learner's
	Solution  bool      // the reference, without the workshop tag
	RecordDir string    // LOCKSTEP_RECORD_DIR for the tests (replays of failures)
	Args      []string  // extra go test flags (Tier Custom)
	Out       io.Writer // go test's output as it comes, if set
	TempDir   string    // where the run's overlay directory goes (default: os.TempDir())
	// Built, if set, is called once the chapter is compiled and its
	// tests start (the first time, a cold build cache takes a while).
	Built func()
	// Env is added to go test's environment: a class's ZK_SERVERS,
	// ZK_ROOT and ZK_AUTH (the tests then run in the learner's subtree of
	// the class's ZooKeeper).
	Env []string
	// SkipExamples leaves the Example functions out of every tier (a
	// Custom run's own -skip included): in a class they cannot run, as
	// they write at fixed paths at the top of the tree
	// (/seqlock-example/…), where a learner may not.
	SkipExamples bool
}

// OnSharedServer says whether a run of chapter's tier may use a ZooKeeper
// that other runs use too (the runner's, passed as ZK_SERVERS in
// Options.Env; each test works in a random root of its own). The full suite
// may not: a few of its tests skip under ZK_SERVERS, and the full verdict
// keeps them. Nor may a tier that runs an Example (02's lesson): examples
// write at fixed paths at the top of the tree, where a run stopped halfway,
// or a learner's lock that leaves its node, left one behind.
func OnSharedServer(table *hint.Table, chapter string, tier Tier) bool {
	switch tier {
	case Rule, Record:
		return true // table tests; the recordings skip the examples
	case Lesson:
		return !strings.Contains(table.Lesson(chapter), "Example")
	}
	return false
}

// Kind is what a result means.
type Kind int

const (
	Pass     Kind = iota
	Todo          // a TODO(workshop) stub was reached
	NoBuild       // it does not compile
	Mistake       // a failing test names a mistake of the table
	Failing       // a test fails, and the table knows no mistake for it
	Untested      // no run yet
)

// Result of one tier.
type Result struct {
	Tier    Tier
	Kind    Kind
	Todo    string // the TODO(workshop) message
	Step    int    // 1-based index of that TODO in the exercise file, 0 if unknown
	Failed  []string
	First   string // the first failing test's failure message (not its logs), an Example's got/want, a panic and our frame, a build error
	Said    string // everything the first failing test printed, its subtests' lines included
	Mistake *hint.Mistake
	Output  string
	Elapsed time.Duration
	// Hash is the hash (Hash) of the exercise files the run judged; ""
	// when they changed while it ran, so that nobody knows which version
	// the verdict is about.
	Hash string
}

// A stub that is not written yet panics with this.
var todoLine = regexp.MustCompile(`TODO\(workshop\): [^"\n]*`)

// timedOut is go test's -timeout panic.
var timedOut = regexp.MustCompile(`panic: test timed out after \S+`)

// createdBy names the test that started a goroutine, in a panic's stack.
var createdBy = regexp.MustCompile(`(?m)^created by \S+?\.(Test[A-Za-z0-9_]*)`)

// Run runs one tier of ex's tests. When ctx ends, the run ends at once, and
// all of it: the build or the test binary's process group, what its tests
// started (ZooKeeper included) and the run's directory are gone when Run
// returns.
//
// The Lesson tier is itself two tiers when the chapter has a rule (hints.json's
// "rule": the rule's table tests, no ZooKeeper): the rule's tests first, then
// the lesson's others, and the run stops at the first that fails; its
// Result's Tier is then Rule.
//
// The chapter's test binary is built once per run (go test -c, vet
// included, as go test runs it) and each of the run's tiers runs it, as go
// test -json would (go tool test2json, in the package's directory): two go
// tests would build and link it twice. A Custom run is go test itself,
// with the caller's flags, whatever they are.
func Run(ctx context.Context, root string, all []Exercise, ex Exercise, tier Tier, table *hint.Table, opts Options) Result {
	start := time.Now()
	judged := Hash(root, ex)
	if bad := untagged(root, ex, opts); bad != "" {
		return Result{Tier: tier, Kind: NoBuild, First: bad, Output: bad + "\n", Elapsed: time.Since(start), Hash: judged}
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "lockstep-workshop-")
	if err != nil {
		return Result{Tier: tier, Kind: Failing, First: err.Error()}
	}
	defer os.RemoveAll(tmp)
	var build []string // go's build flags
	if !opts.Solution {
		overlay, err := Overlay(root, tmp, all, ex, opts.From)
		if err != nil {
			return Result{Tier: tier, Kind: Failing, First: err.Error()}
		}
		build = append(build, "-tags", "workshop", "-overlay", overlay)
	}
	// Each step is one run of the tests; the full suite is two: -failfast
	// does not stop the examples, and an example on a broken lock can hang
	// until -timeout, so they run only once every test has passed.
	type step struct {
		tier Tier
		args []string // go test's flags
	}
	var runs []step
	rule, lesson := table.Rule(ex.Chapter), table.Lesson(ex.Chapter)
	switch tier {
	case Lesson, Rule:
		if rule != "" {
			runs = append(runs, step{Rule, []string{"-failfast", "-run", rule, "-timeout", "1m"}})
		}
		if tier == Lesson {
			l := []string{"-failfast", "-run", lesson, "-timeout", "3m"}
			if rule != "" {
				l = append(l, "-skip", rule)
			}
			runs = append(runs, step{Lesson, l})
		}
	case Full:
		runs = []step{{Full, []string{"-failfast", "-run", "^Test", "-timeout", "10m"}}}
		if !opts.SkipExamples {
			runs = append(runs, step{Full, []string{"-run", "^Example", "-timeout", "2m"}})
		}
	case Custom:
		runs = []step{{Custom, opts.Args}}
	case Record:
		// No -failfast, and no examples: an example on a broken lock can
		// hang until -timeout.
		runs = []step{{Record, []string{"-run", lesson, "-skip", "^Example", "-timeout", "2m"}}}
	}
	if opts.SkipExamples {
		for i := range runs {
			runs[i].args = skipping(runs[i].args, "^Example")
		}
	}
	env := os.Environ()
	if opts.RecordDir != "" {
		env = append(env, "LOCKSTEP_RECORD_DIR="+opts.RecordDir)
	}
	env = append(env, opts.Env...) // the last value of a name wins
	pkg := "./" + ex.Pkg + "/"
	bin := filepath.Join(tmp, filepath.Base(ex.Pkg)+".test")
	var rep *report
	if tier != Custom {
		rep = newReport(opts.Out)
		// -s -w: no symbol table and no DWARF, as go test links a
		// binary it runs itself (a panic's frames stay: they come from
		// the pclntab); the link is the slowest part of the build.
		err = command(ctx, root, env, rep, "go", append(append([]string{"test", "-c", "-json", "-ldflags=-s -w", "-o", bin}, build...), pkg)...)
		if err == nil {
			if _, serr := os.Stat(bin); serr != nil {
				// go test -c writes no binary for a package without
				// test files, and says nothing.
				err = fmt.Errorf("go test -c wrote no test binary for %s: %w", ex.Pkg, serr)
			}
		} else if len(rep.build) > 0 && !strings.Contains(rep.text.String(), "[build failed]") && !strings.Contains(rep.text.String(), "[setup failed]") {
			rep.say("FAIL\t" + importPath(root, ex) + " [build failed]\n") // as go test says it
		}
		if err != nil {
			runs = nil
		}
	}
	ran := tier
	for _, extra := range runs {
		rep = newReport(opts.Out)
		rep.verbose = slices.Contains(extra.args, "-v") || slices.Contains(extra.args, "-test.v")
		rep.started, opts.Built = opts.Built, nil
		ran = extra.tier
		if extra.tier == Custom {
			err = command(ctx, root, env, rep, "go", append(append(append([]string{"test", "-json", "-count=1"}, build...), extra.args...), pkg)...)
		} else {
			var tool string
			if tool, err = test2json(ctx, root); err != nil {
				break
			}
			rep.summary = importPath(root, ex)
			flags := append([]string{"-t", "-p", rep.summary, bin, "-test.v=test2json", "-test.paniconexit0"}, binaryFlags(extra.args)...)
			dir := filepath.Join(root, ex.Pkg)
			// PWD too, as go test sets it for the binary it runs.
			err = command(ctx, dir, append(slices.Clip(env), "PWD="+dir), rep, tool, flags...)
		}
		if err != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return Result{Tier: tier, Kind: Failing, First: "the check was stopped: " + ctx.Err().Error(), Elapsed: time.Since(start)}
	}
	r := rep.classify(root, ex, table, err == nil)
	r.Tier = ran
	if tier == Lesson && ran == Lesson && r.Kind == Pass {
		r.Tier = Lesson
	}
	r.Elapsed = time.Since(start)
	if err != nil && !errors.As(err, new(*exec.ExitError)) {
		r.Kind, r.First = Failing, err.Error()
	}
	if Hash(root, ex) == judged {
		r.Hash = judged
	}
	return r
}

// command runs one command of a run in dir, its output read into rep, as
// the leader of its own process group, and makes sure nothing it started
// outlives it (endRun).
func command(ctx context.Context, dir string, env []string, rep *report, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = slices.Clip(env)
	cmd.Stdout, cmd.Stderr = rep.stdout(), rep.stderr()
	mark := fmt.Sprintf("%d-%d", os.Getpid(), runCount.Add(1))
	startGroup(cmd, mark)
	err := cmd.Run()
	endRun(cmd, mark, 10*time.Second)
	rep.flush()
	return err
}

// test2json is the path of go's test2json, which go test -json runs the
// test binary under (go tool -n test2json: the first time, go builds it
// into its cache). Run calls it directly, not through go tool, which keeps
// a build directory of its own while the tool runs, and leaves it behind
// when the run is cancelled.
func test2json(ctx context.Context, root string) (string, error) {
	test2jsonPath.Lock()
	defer test2jsonPath.Unlock()
	if test2jsonPath.path != "" {
		if _, err := os.Stat(test2jsonPath.path); err == nil {
			return test2jsonPath.path, nil
		}
		// go clean -cache, or a trim of an old entry: ask again.
	}
	cmd := exec.CommandContext(ctx, "go", "tool", "-n", "test2json")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool -n test2json: %w", err)
	}
	test2jsonPath.path = strings.TrimSpace(string(out))
	return test2jsonPath.path, nil
}

var test2jsonPath struct {
	sync.Mutex
	path string
}

// binaryFlags are go test's flags of a step (-run, -skip, -failfast,
// -timeout, -v) as the test binary takes them (-test.run, …).
func binaryFlags(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "-test.") && (i == 0 || !takesValue(out[i-1])) {
			out[i] = "-test." + strings.TrimPrefix(a, "-")
		}
	}
	return out
}

// takesValue: the flag's value is the next argument.
func takesValue(flag string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(flag, "-"), "test.") {
	case "run", "skip", "timeout":
		return true
	}
	return false
}

// importPath is ex's package's import path.
func importPath(root string, ex Exercise) string { return modulePath(root) + "/" + ex.Pkg }

// skipping adds pattern to args' -skip (go test keeps only the last -skip
// it is given, so one pattern says both).
func skipping(args []string, pattern string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == "-skip" || out[i] == "-test.skip" {
			out[i+1] += "|" + pattern
			return out
		}
	}
	return append(out, "-skip", pattern)
}

// untagged says which of the files a run would judge lacks the workshop's
// build line, and what to do; "" if none does. Without it, go test
// -tags workshop compiles the file beside the reference it replaces (every
// name declared twice) or, with a build line of its own, ignores it and
// tests the reference: a verdict about somebody else's code.
func untagged(root string, ex Exercise, opts Options) string {
	if opts.Solution || opts.From != "" {
		return "" // the reference has its own line; a scratch copy gets the workshop's (Overlay)
	}
	for _, f := range ex.Files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err.Error()
		}
		head, _, _ := strings.Cut(string(b), "\npackage ")
		if m := buildLine.FindString(head); strings.TrimSpace(m) != "//go:build workshop" {
			return fmt.Sprintf(BuildTagMissing, f)
		}
	}
	return ""
}

// BuildTagMissing is the message of a run whose exercise file has lost its
// build line (%s: the file).
const BuildTagMissing = "%s: its first line must be //go:build workshop (then an empty line, then package …): without it, every build of the module compiles your file beside the reference it replaces"

// runCount numbers the runs of this process, for their marks.
var runCount atomic.Int64

// Classify says what a run's output (go test -json's) means.
func Classify(root string, ex Exercise, table *hint.Table, out string, ok bool) Result {
	rep := newReport(nil)
	_, _ = rep.stdout().Write([]byte(out))
	rep.flush()
	return rep.classify(root, ex, table, ok)
}

func (rep *report) classify(root string, ex Exercise, table *hint.Table, ok bool) Result {
	out := rep.text.String()
	r := Result{Output: out}
	if ok {
		r.Kind = Pass
		return r
	}
	failed := rep.failed
	if t := rep.unfinished(); t != "" && len(failed) == 0 {
		// The test binary died in a test (a panic in a goroutine it
		// started, a -timeout): go test says no "--- FAIL" for it.
		failed = append(failed, t)
	}
	if m := createdBy.FindStringSubmatch(out); len(failed) == 0 && m != nil {
		failed = append(failed, m[1])
	}
	// The innermost failures first: a subtest names the property, its
	// parent only repeats it.
	for _, f := range failed {
		leaf := true
		for _, g := range failed {
			if strings.HasPrefix(g, f+"/") {
				leaf = false
			}
		}
		if leaf {
			r.Failed = append(r.Failed, f)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "internal", "*"))
	dirs = append([]string{filepath.Join(root, ex.Pkg)}, dirs...)
	mod := modulePath(root)
	own := func(test string) string { return strings.Join(rep.own(test), "\n") }
	if len(r.Failed) > 0 {
		r.First = failure(rep.own(r.Failed[0]), dirs, mod)
		r.Said = own(r.Failed[0])
		if m := timedOut.FindString(out); m != "" && !strings.Contains(r.First, m) {
			// -timeout ended the binary in this test: say so, then
			// what the test said last.
			r.First = strings.TrimSpace(m + "\n" + r.First)
		}
	} else if p := panicOf(strings.Split(out, "\n"), mod); p != "" {
		r.First, r.Said = p, out
	}
	switch {
	case todoLine.MatchString(out):
		// The test that ran first may have reached any stub (05's rule
		// tests reach readRule before writeRule): what is still to write
		// is the first stub left in the file, in the skeleton's order,
		// which is the order its comments and hints teach.
		r.Kind = Todo
		r.Todo, _, _ = strings.Cut(todoLine.FindString(out), " [recovered")
		r.Todo = strings.TrimSpace(r.Todo)
		if first := firstStub(root, ex); first != "" {
			r.Todo = first
		}
		r.Step = stepOf(root, ex, r.Todo)
	case len(rep.build) > 0 || strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		r.Kind = NoBuild
		r.First = buildError(rep.build, out)
	default:
		r.Kind = Failing
		if m := table.Match(ex.Chapter, r.Failed, own); m != nil {
			r.Kind, r.Mistake = Mistake, m
		}
	}
	return r
}

// buildError is the first lines of a build's errors (up to five), without
// go's "# package" headers.
func buildError(build []string, out string) string {
	if len(build) == 0 {
		build = strings.Split(out, "\n")
	}
	var keep []string
	for _, l := range build {
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "FAIL") || strings.TrimSpace(l) == "" || !strings.Contains(l, ".go:") && len(keep) == 0 {
			continue
		}
		keep = append(keep, strings.TrimSpace(l))
		if len(keep) == 5 {
			break
		}
	}
	return strings.Join(keep, "\n")
}

// stepOf is the 1-based place of todo among the TODO(workshop) stubs of
// ex's files, in file order.
func stepOf(root string, ex Exercise, todo string) int {
	n := 0
	for _, f := range ex.Files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		for _, t := range todoLine.FindAllString(string(b), -1) {
			n++
			if strings.TrimSpace(t) == todo {
				return n
			}
		}
	}
	return 0
}

// FirstStub is the first TODO(workshop) stub left in ex's files, in file
// order ("" if none): the step the learner is on, before any check.
func FirstStub(root string, ex Exercise) string { return firstStub(root, ex) }

// firstStub is the first TODO(workshop) stub left in ex's files, in file
// order; "" if none.
func firstStub(root string, ex Exercise) string {
	for _, f := range ex.Files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		if t := todoLine.FindString(string(b)); t != "" {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// StubName is the name a TODO(workshop) message gives its stub, the function
// to write: "writeRule" for "TODO(workshop): writeRule — a writer holds…".
func StubName(todo string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(todo, "TODO(workshop): "), " —")
	return strings.TrimSpace(name)
}

// Todos counts the TODO(workshop) stubs left in ex's files.
func Todos(root string, ex Exercise) int {
	n := 0
	for _, f := range ex.Files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err == nil {
			n += len(todoLine.FindAllString(string(b), -1))
		}
	}
	return n
}

func (k Kind) String() string {
	return [...]string{"passing", "TODO", "does not compile", "mistake", "failing", "untouched"}[k]
}
