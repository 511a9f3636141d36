package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/fsnotify/fsnotify"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

// ReplayDir is where the runner's test runs leave recordings of failing
// tests (LOCKSTEP_RECORD_DIR), one directory per chapter; .gitignore lists it.
const ReplayDir = ".lockstep-replays"

// env is the runner's world: go test, fsnotify, git, the visualizer.
type env struct {
	root      string
	table     *hint.Table
	exercises []course.Exercise
	saves     chan string
	progress  chan tea.Msg // a check's chapter is compiled (runner.Built); the shared server lost (runner.ZKLost)

	mu   sync.Mutex
	runs map[string]*checkRun // by chapter: the check running, one per chapter

	// In a class (-class): the joined learner, and news of the session.
	class     *class
	classNews chan runner.ClassNews

	// zk: the runner's one ZooKeeper for the lesson's checks (sharedzk.go);
	// nil in a class, or when the learner set ZK_SERVERS.
	zk *sharedZK
}

// checkRun is a run in progress: cancel stops it, done is closed when it is
// over, all of it (course.Run has waited for its processes and removed its
// overlay).
type checkRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	// started: Bubble Tea has begun the run's command. Until then
	// nothing runs, and a quit (stopAll) closes done itself: Update
	// registers a run when it asks for it, and the program may end
	// before it runs the command, or never run it at all.
	started bool
	over    sync.Once
}

// end closes done, once, whoever gets there first.
func (c *checkRun) end() { c.over.Do(func() { close(c.done) }) }

// runTUI runs the runner until the learner quits or ctx ends (a signal);
// flagLang is -lang's value ("" if not given), c the class it joined (nil:
// none).
func runTUI(ctx context.Context, root, flagLang string, c *class) int {
	table := hint.MustLoad()
	all, err := course.Discover(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "workshop:", err)
		return 2
	}
	st, err := course.LoadState(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "workshop: %s is unreadable (%v): starting afresh\n", course.StateFile, err)
	}
	e := newEnv(root, table, all)
	if wantSharedZK(c != nil) {
		// Its start (a JVM, 1–2.5 s) runs while the learner reads and
		// edits; it would print over the runner's screen.
		zkserver.Progress = nil
		e.zk = startSharedZK(ctx)
		defer e.zk.stop() // after stopAll below: no check uses it any more
	}
	if c != nil {
		// The session lives while the runner runs; quitting ends it, and
		// the host's screen shows the learner gone.
		ctx, cancel := context.WithCancel(context.Background())
		e.class, e.classNews = c, make(chan runner.ClassNews, 4)
		go c.keepJoined(ctx, e.classNews)
		defer func() { cancel(); c.Close() }()
	}
	stop, err := e.watchFiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, "workshop: watching the exercise files:", err)
		return 2
	}
	defer stop()
	disk := map[string]runner.Disk{}
	for _, ex := range all {
		disk[ex.Chapter] = e.disk(ex)
	}
	m := runner.New(e, table, all, st, disk, language(flagLang, st.Lang))
	if c != nil {
		m = m.InClass(c.name)
	}
	_, err = tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx)).Run()
	// Quitting during a check leaves nothing behind: no go test, no
	// ZooKeeper, no overlay directory; then the shared server stops.
	e.stopAll()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "workshop: stopped:", context.Cause(ctx))
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "workshop:", err)
		return 1
	}
	return 0
}

func newEnv(root string, table *hint.Table, all []course.Exercise) *env {
	return &env{root: root, table: table, exercises: all, saves: make(chan string, 16), progress: make(chan tea.Msg, 16), runs: map[string]*checkRun{}}
}

// disk is what ex's files are on disk now.
func (e *env) disk(ex course.Exercise) runner.Disk {
	return runner.Disk{Hash: course.Hash(e.root, ex), Untouched: e.isSkeleton(ex), Todo: course.FirstStub(e.root, ex)}
}

// watchFiles sends a chapter on e.saves each time one of its exercise files
// is written. It watches the package directories (editors save by renaming
// a new file over the old one, which a watch on the file itself misses).
func (e *env) watchFiles() (func(), error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	byFile := map[string]string{}
	dirs := map[string]bool{}
	for _, ex := range e.exercises {
		for _, f := range ex.Files {
			abs := filepath.Join(e.root, f)
			byFile[abs] = ex.Chapter
			dirs[filepath.Dir(abs)] = true
		}
	}
	for d := range dirs {
		if err := w.Add(d); err != nil {
			w.Close()
			return nil, err
		}
	}
	go func() {
		// One save is often several events (a truncate, then the write;
		// or a new file renamed over the old one): the check runs once
		// the file has been quiet for 200 ms, so it never reads half a save.
		timers := map[string]*time.Timer{}
		for ev := range w.Events {
			ch, ok := byFile[ev.Name]
			if !ok || !ev.Has(fsnotify.Write|fsnotify.Create|fsnotify.Rename) {
				continue
			}
			if t := timers[ch]; t != nil {
				t.Stop()
			}
			timers[ch] = time.AfterFunc(200*time.Millisecond, func() { e.saves <- ch })
		}
	}()
	go func() {
		for range w.Errors {
		}
	}()
	return func() { w.Close() }, nil
}

func (e *env) Watch() tea.Cmd {
	return func() tea.Msg {
		ch := <-e.saves
		ex, err := course.Find(e.exercises, ch)
		if err != nil {
			return runner.Saved{Chapter: ch}
		}
		d := e.disk(ex)
		return runner.Saved{Chapter: ch, Hash: d.Hash, Untouched: d.Untouched, Todo: d.Todo}
	}
}

func (e *env) Progress() tea.Cmd {
	return func() tea.Msg { return <-e.progress }
}

// Run stops the chapter's check still running, if any, waits until all of
// it is gone, and runs c.
func (e *env) Run(c runner.Check) tea.Cmd {
	e.mu.Lock()
	prev := e.runs[c.Chapter]
	ctx, cancel := context.WithCancel(context.Background())
	this := &checkRun{cancel: cancel, done: make(chan struct{})}
	e.runs[c.Chapter] = this
	if prev != nil {
		prev.cancel()
		if !prev.started {
			prev.end() // it never ran, and now never will: this one need not wait for it
		}
	}
	e.mu.Unlock()
	return func() tea.Msg {
		defer func() {
			cancel()
			e.mu.Lock()
			if e.runs[c.Chapter] == this {
				delete(e.runs, c.Chapter)
			}
			e.mu.Unlock()
			this.end()
		}()
		e.mu.Lock()
		this.started = true
		e.mu.Unlock()
		if prev != nil {
			<-prev.done
		}
		if ctx.Err() != nil {
			// Stopped before it began: a newer check, or quit.
			return runner.RunDone{Chapter: c.Chapter, ID: c.ID, Result: course.Result{Tier: c.Tier, Kind: course.Failing, First: "the check was stopped: " + ctx.Err().Error()}}
		}
		return e.run(ctx, c)
	}
}

// stopAll stops every check and waits until each is gone.
func (e *env) stopAll() {
	e.mu.Lock()
	var all []*checkRun
	for _, c := range e.runs {
		c.cancel()
		if !c.started {
			c.end() // its command never ran: nothing to wait for
		}
		all = append(all, c)
	}
	e.mu.Unlock()
	for _, c := range all {
		<-c.done
	}
}

func (e *env) run(ctx context.Context, c runner.Check) runner.RunDone {
	ch := c.Chapter
	done := runner.RunDone{Chapter: ch, ID: c.ID}
	ex, err := course.Find(e.exercises, ch)
	if err != nil {
		done.Result = course.Result{Tier: c.Tier, Kind: course.Failing, First: err.Error()}
		return done
	}
	rec := filepath.Join(e.root, ReplayDir, ch)
	os.RemoveAll(rec)
	if err := os.MkdirAll(rec, 0o755); err != nil {
		rec = ""
	}
	opts := course.Options{RecordDir: rec, Built: func() { e.tell(runner.Built{Chapter: ch, ID: c.ID}) }}
	opts.Env, opts.SkipExamples = e.checkEnv(ctx, ch, c.Tier)
	tier := c.Tier
	if c.Tier == course.Record && c.Test != "" {
		// The test the check named, alone, to its end: what its locks
		// did, even when the lesson's run stopped at another test first.
		tier, opts.Args = course.Custom, []string{"-run", runPattern(c.Test), "-skip", "^Example", "-timeout", "2m"}
	}
	done.Result = course.Run(ctx, e.root, e.exercises, ex, tier, e.table, opts)
	done.Result.Tier = c.Tier
	test, msg := c.Test, c.Message
	if c.Tier != course.Record && len(done.Result.Failed) > 0 {
		test, msg = done.Result.Failed[0], done.Result.First
	}
	if rec == "" {
		return done
	}
	if c.Tier == course.Record && !named(rec, test) && ctx.Err() == nil {
		// The named test records nothing (a rule's table test needs no
		// server; 04's "a predecessor gone before our watch" gives its
		// lock an observer of its own, not zktest.Observe): the lesson's
		// tests, each to its end, for one that does.
		course.Run(ctx, e.root, e.exercises, ex, course.Record, e.table, course.Options{RecordDir: rec, Env: opts.Env, SkipExamples: opts.SkipExamples})
	}
	done.Replays, _ = filepath.Glob(filepath.Join(rec, "*.events.jsonl"))
	sortReplays(done.Replays)
	if f := recordingOf(rec, test); named(rec, test) {
		done.Named = true
		done.Replays = append([]string{f}, slices.DeleteFunc(done.Replays, func(s string) bool { return s == f })...)
		sayWhat(f, msg)
	}
	return done
}

// checkEnv is what a check of chapter's tier adds to go test's
// environment, and whether it leaves the examples out. In a class: the
// class's servers and the learner's subtree, no examples. Else the lesson's
// tiers get the runner's shared server, when it serves
// (course.OnSharedServer says which); the full suite, and a lesson that
// runs an Example, start their own, as scripts/exercise does.
func (e *env) checkEnv(ctx context.Context, chapter string, tier course.Tier) (vars []string, skipExamples bool) {
	if e.class != nil {
		return e.class.Env(), true
	}
	if !course.OnSharedServer(e.table, chapter, tier) {
		return nil, false
	}
	servers, lost := e.zk.servers(ctx)
	if lost != nil {
		// One line under the list: zkserver's no-ZooKeeper error goes on
		// with what to install, which scripts/exercise NN prints in full.
		first, _, _ := strings.Cut(lost.Error(), "\n")
		e.tell(runner.ZKLost{Err: errors.New(first)})
	}
	if servers == "" {
		return nil, false
	}
	return []string{"ZK_SERVERS=" + servers}, false
}

// tell gives the runner news of a check, if it listens.
func (e *env) tell(msg tea.Msg) {
	select {
	case e.progress <- msg:
	default: // nobody listens (a test of the env): the check goes on
	}
}

// runPattern is the -run pattern of exactly one test or subtest, as go test
// prints its name ("TestQueue/a_predecessor_gone_…").
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// recordingOf is the file a failing test's recording goes to in dir
// (internal/zktest.RecordingFile: a test's name with _ for /).
func recordingOf(dir, test string) string {
	return filepath.Join(dir, strings.ReplaceAll(test, "/", "_")+".events.jsonl")
}

func named(dir, test string) bool {
	if test == "" {
		return false
	}
	_, err := os.Stat(recordingOf(dir, test))
	return err == nil
}

// sayWhat gives a recording whose test did not mark where the property
// broke the test's own failure message, so that the replay's headline says
// what the test asserted.
func sayWhat(file, msg string) {
	if msg == "" {
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return
	}
	rec, err := event.ReadRecording(bytes.NewReader(b))
	if err != nil || rec.Header.Why != "" {
		return
	}
	rec.Header.Why = msg
	var out bytes.Buffer
	if rec.Write(&out) == nil {
		_ = os.WriteFile(file, out.Bytes(), 0o644)
	}
}

// pristine is the skeleton as the clone's last commit has it. (Not an
// embedded copy: go:embed cannot reach the chapters' directories from
// here, and git is what the learner cloned with. A learner who committed
// their own work resets to that commit.)
func (e *env) pristine(f string) ([]byte, error) {
	out, err := exec.Command("git", "-C", e.root, "show", "HEAD:"+f).Output()
	if err != nil {
		return nil, fmt.Errorf("git show HEAD:%s: %w", f, err)
	}
	return out, nil
}

func (e *env) isSkeleton(ex course.Exercise) bool {
	for _, f := range ex.Files {
		want, err := e.pristine(f)
		if err != nil {
			return false
		}
		have, err := os.ReadFile(filepath.Join(e.root, f))
		if err != nil || string(have) != string(want) {
			return false
		}
	}
	return true
}

func (e *env) Reset(ch string) tea.Cmd {
	return func() tea.Msg {
		ex, err := course.Find(e.exercises, ch)
		if err != nil {
			return runner.ResetDone{Chapter: ch, Err: err}
		}
		stamp := time.Now().Format("20060102-150405")
		var backups []string
		for _, f := range ex.Files {
			skel, err := e.pristine(f)
			if err != nil {
				return runner.ResetDone{Chapter: ch, Err: err}
			}
			abs := filepath.Join(e.root, f)
			mine, err := os.ReadFile(abs)
			if err != nil {
				return runner.ResetDone{Chapter: ch, Err: err}
			}
			// The backup is not a .go file: no build ever sees it.
			backup := abs + ".backup-" + stamp
			if err := os.WriteFile(backup, mine, 0o644); err != nil {
				return runner.ResetDone{Chapter: ch, Err: err}
			}
			if err := os.WriteFile(abs, skel, 0o644); err != nil {
				return runner.ResetDone{Chapter: ch, Err: err}
			}
			backups = append(backups, f+".backup-"+stamp)
		}
		return runner.ResetDone{Chapter: ch, Backup: strings.Join(backups, ", ")}
	}
}

func (e *env) Diff(ch string) tea.Cmd {
	return func() tea.Msg {
		ex, err := course.Find(e.exercises, ch)
		if err != nil {
			return runner.DiffReady{Chapter: ch, Err: err}
		}
		var b strings.Builder
		for _, f := range ex.Files {
			// git diff --no-index exits 1 when the files differ.
			out, _ := exec.Command("git", "-C", e.root, "diff", "--no-index", "--no-color", f, course.Reference(f)).Output()
			b.Write(out)
		}
		if b.Len() == 0 {
			b.WriteString("your file and the reference are the same\n")
		}
		return runner.DiffReady{Chapter: ch, Text: b.String()}
	}
}

// Visual runs the visualizer on the learner's lock. When it cannot (the
// exercise is not finished, or does not build) it says why on the terminal
// and then the runner's screen would cover it at once: so it waits for
// Enter first. In a class it runs, as the checks do, on the class's
// servers inside the learner's subtree with their identity (class.Env):
// the laptop needs no ZooKeeper of its own, and the visualizer's run root
// is made below ZK_ROOT (internal/demo.RunRoot), the only place the
// learner may create.
func (e *env) Visual(ch string) *exec.Cmd {
	c := exec.Command("bash", "-c", `"$0" "$1" --visual || { s=$?; printf '\npress Enter to go back to the workshop '; read -r _; exit $s; }`,
		filepath.Join(e.root, "scripts", "exercise"), ch)
	c.Dir = e.root
	if e.class != nil {
		c.Env = append(os.Environ(), e.class.Env()...)
	}
	return c
}

func (e *env) Replay(file string) *exec.Cmd {
	c := exec.Command("go", "run", "./visualizer", "-replay", file)
	c.Dir = e.root
	return c
}

func (e *env) Save(state []byte) tea.Cmd {
	return func() tea.Msg {
		_ = course.WriteState(e.root, state)
		return nil
	}
}

// sortReplays puts first the recordings whose test said at which event the
// property broke (the replay then stops there), then by name.
func sortReplays(files []string) {
	marked := map[string]bool{}
	for _, f := range files {
		if r, err := os.Open(f); err == nil {
			rec, err := event.ReadRecording(r)
			r.Close()
			marked[f] = err == nil && rec.Header.BrokeAt >= 0
		}
	}
	sort.SliceStable(files, func(i, j int) bool {
		if marked[files[i]] != marked[files[j]] {
			return marked[files[i]]
		}
		return files[i] < files[j]
	})
}
