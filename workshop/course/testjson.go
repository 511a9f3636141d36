package course

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// go test -json is read, not its text: test2json tells which test each line
// of output belongs to (subtests and parallel tests included), so a failing
// test's message is looked for in that test's own lines, and a mistake is
// matched against them, never against what another test printed.

// testEvent is one line of go test -json (cmd/test2json's TestEvent, and
// the build-output and build-fail lines go test adds since Go 1.24).
type testEvent struct {
	Action  string
	Test    string
	Output  string
	Elapsed float64 // seconds, on a test's or the package's pass and fail
}

// report is a run's go test -json, read.
type report struct {
	mu      sync.Mutex
	text    bytes.Buffer        // the run's output as text, as go test without -json prints it
	partial []byte              // the part of go test's stdout after its last newline
	lines   map[string][]string // each test's own output lines, by test name
	failed  []string            // the tests that failed, in the order go test said so
	running map[string]bool     // tests that started and have not ended
	order   []string            // tests in the order they started
	build   []string            // build-output lines
	ended   map[string]bool     // tests that passed, failed or were skipped
	out     interface{ Write([]byte) (int, error) }
	started func() // called when the test binary starts: the build is over
	// verbose: out gets every line, as go test -v prints them; else, as
	// go test without -v: a test's lines only when it fails.
	verbose bool
	// summary, when set, is the package's import path, for the line go
	// test prints after a test binary's end ("ok  \tpkg\t1.234s"):
	// test2json, which a run reads when it runs the binary itself, does
	// not print it.
	summary string
	pending map[string][]string // a running test's lines, not yet printed to out
}

func newReport(out interface{ Write([]byte) (int, error) }) *report {
	return &report{lines: map[string][]string{}, running: map[string]bool{}, ended: map[string]bool{}, out: out, pending: map[string][]string{}}
}

// show prints to out, as go test without -json would have.
func (r *report) show(s string) {
	if r.out != nil {
		_, _ = r.out.Write([]byte(s))
	}
}

// stdout is go test -json's standard output: JSON lines. Anything else on
// it (there should be nothing) is kept as text.
func (r *report) stdout() *reportWriter { return &reportWriter{r, true} }

// stderr is go's own standard error ("go: …", a vet failure before Go
// 1.24's build-output events): text.
func (r *report) stderr() *reportWriter { return &reportWriter{r, false} }

type reportWriter struct {
	r    *report
	json bool
}

func (w *reportWriter) Write(p []byte) (int, error) {
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if !w.json {
		r.say(string(p))
		return len(p), nil
	}
	r.partial = append(r.partial, p...)
	for {
		i := bytes.IndexByte(r.partial, '\n')
		if i < 0 {
			break
		}
		r.line(r.partial[:i])
		r.partial = r.partial[i+1:]
	}
	return len(p), nil
}

// flush reads what is left after the last newline, and prints the lines
// of the tests that never ended (the binary died in them).
func (r *report) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		r.line(r.partial)
		r.partial = nil
	}
	for _, t := range r.order {
		r.showPending(t)
	}
}

// showPending prints test's lines held back so far.
func (r *report) showPending(test string) {
	for _, l := range r.pending[test] {
		r.show(l)
	}
	delete(r.pending, test)
}

// say adds text that belongs to no test to the run's output.
func (r *report) say(s string) {
	r.text.WriteString(s)
	r.show(s)
}

func (r *report) line(b []byte) {
	var ev testEvent
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &ev) != nil {
		r.say(string(b) + "\n")
		return
	}
	switch ev.Action {
	case "start":
		if r.started != nil {
			r.started()
			r.started = nil
		}
	case "build-output":
		r.build = append(r.build, strings.TrimRight(ev.Output, "\n"))
		r.say(ev.Output)
	case "output":
		if ev.Test == "" {
			r.say(ev.Output)
			break
		}
		r.text.WriteString(ev.Output)
		r.lines[ev.Test] = append(r.lines[ev.Test], strings.TrimRight(ev.Output, "\n"))
		switch {
		case r.verbose:
			r.show(ev.Output)
		case strings.HasPrefix(ev.Output, "=== "):
			// -json runs the tests verbosely; without -v, go test
			// prints no framing lines.
		default:
			r.pending[ev.Test] = append(r.pending[ev.Test], ev.Output)
		}
	case "run":
		r.running[ev.Test] = true
		r.order = append(r.order, ev.Test)
	case "fail":
		if ev.Test == "" && r.summary != "" {
			r.say(fmt.Sprintf("FAIL\t%s\t%.3fs\n", r.summary, ev.Elapsed))
		}
		if ev.Test != "" {
			r.failed = append(r.failed, ev.Test)
			r.showPending(ev.Test)
		}
		delete(r.running, ev.Test)
		r.ended[ev.Test] = true
	case "pass", "skip":
		if ev.Test == "" && r.summary != "" && ev.Action == "pass" {
			r.say(fmt.Sprintf("ok  \t%s\t%.3fs\n", r.summary, ev.Elapsed))
		}
		delete(r.pending, ev.Test) // without -v, a passing test's lines are not printed
		delete(r.running, ev.Test)
		r.ended[ev.Test] = true
	}
}

// own is test's own output and its subtests', in order.
func (r *report) own(test string) []string {
	var out []string
	for _, t := range r.order {
		if t == test || strings.HasPrefix(t, test+"/") {
			out = append(out, r.lines[t]...)
		}
	}
	if len(out) == 0 {
		out = r.lines[test] // a test that printed without a run line
	}
	return out
}

// unfinished is the first test that started and never ended: when the
// test binary dies (a panic in a goroutine a test started, -timeout),
// go test says no "--- FAIL" for it, and it is the one that was running.
func (r *report) unfinished() string {
	for _, t := range r.order {
		if r.running[t] && !r.hasRunningChild(t) {
			return t
		}
	}
	return ""
}

func (r *report) hasRunningChild(test string) bool {
	for t := range r.running {
		if strings.HasPrefix(t, test+"/") {
			return true
		}
	}
	return false
}

// Lines a failing test prints.
var (
	// "    lock_test.go:42: message": what t.Log and t.Error print alike,
	// the file and line of the call (or of the helper's caller).
	blockStart = regexp.MustCompile(`^(\s+)(\S+\.go):(\d+): (.*)$`)
	failMark   = regexp.MustCompile(`^\s*--- FAIL: `)
	panicStart = regexp.MustCompile(`^panic: (.*?)( \[recovered.*\])?$`)
	frameFile  = regexp.MustCompile(`^\t(\S+\.go):(\d+)`)
	// A call of t.Log or t.Logf (of any testing.TB, any name) on a line
	// of the test's source.
	logCall = regexp.MustCompile(`\b\w+\.Logf?\(`)
	// A call of t.Error, t.Errorf, t.Fatal or t.Fatalf.
	failCall = regexp.MustCompile(`\b\w+\.(Errorf?|Fatalf?)\(`)
)

// block is one message a test printed: its file:line and its lines.
type block struct {
	file string
	line int
	text []string
}

// failure is what test's own lines say went wrong: the message of its
// t.Error or t.Fatal, not its t.Log lines; an Example's got/want; a
// panic's first line and the first frame in module mod. dirs are where the
// test's source is read: its package directory first.
//
// t.Log and t.Error print the same "file.go:N:" prefix, so the prefix
// cannot tell them apart: the line of source it names can. A block whose
// source line calls Log or Logf is a log. Of the rest, the first that calls
// Error or Fatal is the failure (the first evidence); when none does (a
// helper marked with t.Helper reports its caller's line, which calls the
// helper), the last block before "--- FAIL", because t.Fatal ends the test.
func failure(lines []string, dirs []string, mod string) string {
	if p := panicOf(lines, mod); p != "" {
		return p
	}
	var blocks []block
	var cur *block
	var indent string
	example := -1
	for i, l := range lines {
		if failMark.MatchString(l) {
			if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL: Example") && example < 0 {
				example = i + 1
			}
			cur = nil
			continue
		}
		if m := blockStart.FindStringSubmatch(l); m != nil {
			n := 0
			for _, c := range m[3] {
				n = n*10 + int(c-'0')
			}
			blocks = append(blocks, block{file: m[2], line: n, text: []string{m[4]}})
			cur, indent = &blocks[len(blocks)-1], m[1]
			continue
		}
		if cur != nil && strings.HasPrefix(l, indent+"    ") {
			cur.text = append(cur.text, strings.TrimPrefix(l, indent+"    "))
			continue
		}
		cur = nil
	}
	if example >= 0 {
		// An Example prints "got:", its output, "want:", the output
		// its comment expects.
		var out []string
		for _, l := range lines[example:] {
			if failMark.MatchString(l) || strings.HasPrefix(l, "=== ") {
				break
			}
			out = append(out, l)
		}
		return strings.TrimSpace(strings.Join(out, "\n"))
	}
	var kept []block
	for _, b := range blocks {
		src := sourceLine(dirs, b.file, b.line)
		if logCall.MatchString(src) && !failCall.MatchString(src) {
			continue
		}
		if failCall.MatchString(src) {
			return strings.Join(b.text, "\n")
		}
		kept = append(kept, b)
	}
	if len(kept) > 0 {
		return strings.Join(kept[len(kept)-1].text, "\n")
	}
	if len(blocks) > 0 {
		// Only logs: the last one is the nearest to the failure.
		return strings.Join(blocks[len(blocks)-1].text, "\n")
	}
	return ""
}

// panicOf is a panic's first line and the first frame of module mod in its
// stack ("" if the lines hold no panic).
func panicOf(lines []string, mod string) string {
	for i, l := range lines {
		m := panicStart.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(m[1], "test timed out") {
			// -timeout's panic is no bug of the test's code: what the
			// test said last says what it waited for.
			continue
		}
		msg := "panic: " + m[1]
		// Frames come in pairs: "pkg.Func(…)" then "\tfile:line +0x…".
		for j := i + 1; j+1 < len(lines); j++ {
			fn := lines[j]
			f := frameFile.FindStringSubmatch(lines[j+1])
			if f == nil || mod == "" || !strings.HasPrefix(fn, mod+"/") && !strings.HasPrefix(fn, mod+".") {
				continue
			}
			return msg + "\n  at " + shortFunc(fn) + " (" + filepath.Base(f[1]) + ":" + f[2] + ")"
		}
		return msg
	}
	return ""
}

// shortFunc is a stack frame's function without its arguments and its
// package's path: "seqlock.(*Mutex).Lock".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "("); i > 0 && strings.HasSuffix(fn, ")") {
		fn = fn[:i]
	}
	return fn[strings.LastIndex(fn, "/")+1:]
}

// sourceLine is line n of file in the first of dirs that has it, "" if
// none does. (A helper that does not call t.Helper prints its own file:
// internal/zktest's, say.)
func sourceLine(dirs []string, file string, n int) string {
	var f *os.File
	for _, dir := range dirs {
		var err error
		if f, err = os.Open(filepath.Join(dir, filepath.Base(file))); err == nil {
			break
		}
	}
	if f == nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	return ""
}

// modulePath is the module line of root's go.mod.
func modulePath(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}
