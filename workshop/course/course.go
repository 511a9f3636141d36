// Package course finds the workshop's exercises in a clone of lockstep,
// runs a chapter's tests in tiers (the lesson's tests first, the full suite
// only when they pass) and says what the result means for the learner: a
// step still to write, a compile error, a named mistake from the hint
// table, or a pass. The runner (go run ./workshop) and the non-interactive
// check (scripts/exercise NN) both use it, so they print the same verdicts.
package course

import (
	"bufio"
	"bytes"
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
)

func (t Tier) String() string {
	return [...]string{"lesson", "full suite", "custom", "recording"}[t]
}

// Options of a run.
type Options struct {
	From      string    // a scratch directory whose files replace the learner's
	Solution  bool      // the reference, without the workshop tag
	RecordDir string    // LOCKSTEP_RECORD_DIR for the tests (replays of failures)
	Args      []string  // extra go test flags (Tier Custom)
	Out       io.Writer // go test's output as it comes, if set
	TempDir   string    // where the run's overlay directory goes (default: os.TempDir())
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
	First   string // the first failure's message
	Mistake *hint.Mistake
	Output  string
	Elapsed time.Duration
	// Hash is the hash (Hash) of the exercise files the run judged; ""
	// when they changed while it ran, so that nobody knows which version
	// the verdict is about.
	Hash string
}

// Lines of go test output that say where a test failed or what it said.
var (
	failLine = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	todoLine = regexp.MustCompile(`TODO\(workshop\): [^"\n]*`)
	msgLine  = regexp.MustCompile(`^\s+\S+\.go:\d+: (.*)$`)
	// A panic in a goroutine a test started ends the test binary before
	// any "--- FAIL" line; the stack names the test that started it.
	panicLine = regexp.MustCompile(`(?m)^panic: (.*)$`)
	createdBy = regexp.MustCompile(`(?m)^created by \S+?\.(Test[A-Za-z0-9_]*)`)
)

// Run runs one tier of ex's tests. When ctx ends, the run ends at once, and
// all of it: go test's process group, what its tests started (ZooKeeper
// included) and the overlay directory are gone when Run returns.
func Run(ctx context.Context, root string, all []Exercise, ex Exercise, tier Tier, table *hint.Table, opts Options) Result {
	start := time.Now()
	judged := Hash(root, ex)
	args := []string{"test", "-count=1"}
	if !opts.Solution {
		tmp, err := os.MkdirTemp(opts.TempDir, "lockstep-workshop-")
		if err != nil {
			return Result{Tier: tier, Kind: Failing, First: err.Error()}
		}
		defer os.RemoveAll(tmp)
		overlay, err := Overlay(root, tmp, all, ex, opts.From)
		if err != nil {
			return Result{Tier: tier, Kind: Failing, First: err.Error()}
		}
		args = append(args, "-tags", "workshop", "-overlay", overlay)
	}
	// Each run is one go test; the full suite is two: -failfast does not
	// stop the examples, and an example on a broken lock can hang until
	// -timeout, so they run only once every test has passed.
	var runs [][]string
	switch tier {
	case Lesson:
		runs = [][]string{{"-failfast", "-run", table.Lesson(ex.Chapter), "-timeout", "3m"}}
	case Full:
		runs = [][]string{{"-failfast", "-run", "^Test", "-timeout", "10m"}, {"-run", "^Example", "-timeout", "2m"}}
	case Custom:
		runs = [][]string{opts.Args}
	case Record:
		// No -failfast, and no examples: an example on a broken lock can
		// hang until -timeout.
		runs = [][]string{{"-run", table.Lesson(ex.Chapter), "-skip", "^Example", "-timeout", "2m"}}
	}
	var buf bytes.Buffer
	var w io.Writer = &buf
	if opts.Out != nil {
		w = io.MultiWriter(&buf, opts.Out)
	}
	var err error
	for _, extra := range runs {
		cmd := exec.CommandContext(ctx, "go", append(append(slices.Clip(args), extra...), "./"+ex.Pkg+"/")...)
		cmd.Dir = root
		cmd.Env = os.Environ()
		if opts.RecordDir != "" {
			cmd.Env = append(cmd.Env, "LOCKSTEP_RECORD_DIR="+opts.RecordDir)
		}
		cmd.Stdout, cmd.Stderr = w, w
		mark := fmt.Sprintf("%d-%d", os.Getpid(), runCount.Add(1))
		startGroup(cmd, mark)
		err = cmd.Run()
		endRun(cmd, mark, 10*time.Second)
		if err != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return Result{Tier: tier, Kind: Failing, First: "the check was stopped: " + ctx.Err().Error(), Elapsed: time.Since(start)}
	}
	r := Classify(root, ex, table, buf.String(), err == nil)
	r.Tier = tier
	r.Elapsed = time.Since(start)
	if err != nil && !errors.As(err, new(*exec.ExitError)) {
		r.Kind, r.First = Failing, err.Error()
	}
	if Hash(root, ex) == judged {
		r.Hash = judged
	}
	return r
}

// runCount numbers the runs of this process, for their marks.
var runCount atomic.Int64

// Classify says what a run's output means.
func Classify(root string, ex Exercise, table *hint.Table, out string, ok bool) Result {
	r := Result{Output: out}
	if ok {
		r.Kind = Pass
		return r
	}
	var failed []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := failLine.FindStringSubmatch(line); m != nil {
			failed = append(failed, m[1])
			continue
		}
		if m := msgLine.FindStringSubmatch(line); m != nil && r.First == "" && len(failed) > 0 {
			r.First = m[1]
		}
	}
	if p := panicLine.FindStringSubmatchIndex(out); len(failed) == 0 && p != nil {
		// The test that started the goroutine that panicked is the one
		// that failed: name it, and say what the panic said.
		r.First = out[p[2]:p[3]]
		if m := createdBy.FindStringSubmatch(out[p[0]:]); m != nil {
			failed = append(failed, m[1])
		}
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
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		r.Kind = NoBuild
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, ".go:") && !strings.HasPrefix(l, "#") {
				r.First = strings.TrimSpace(l)
				break
			}
		}
	default:
		r.Kind = Failing
		if m := table.Match(ex.Chapter, r.Failed, out); m != nil {
			r.Kind, r.Mistake = Mistake, m
		}
	}
	return r
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
