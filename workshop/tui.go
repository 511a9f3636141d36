package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/fsnotify/fsnotify"

	"github.com/lockstep-zk/lockstep/event"
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
}

func runTUI(root, lang string) int {
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
	e := &env{root: root, table: table, exercises: all, saves: make(chan string, 16)}
	stop, err := e.watchFiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, "workshop: watching the exercise files:", err)
		return 2
	}
	defer stop()
	untouched := map[string]bool{}
	for _, ex := range all {
		untouched[ex.Chapter] = e.isSkeleton(ex)
	}
	if flagLangGiven(lang) {
		st.Lang = ""
	}
	m := runner.New(e, table, all, st, untouched, lang)
	if _, err := tea.NewProgram(m, tea.WithAltScreen()).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "workshop:", err)
		return 1
	}
	return 0
}

// flagLangGiven: LANG or -lang chose a language; the saved one yields.
func flagLangGiven(lang string) bool { return lang == "zh" }

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
	return func() tea.Msg { return runner.Saved{Chapter: <-e.saves} }
}

func (e *env) Run(ch string, tier course.Tier) tea.Cmd {
	return func() tea.Msg {
		ex, err := course.Find(e.exercises, ch)
		if err != nil {
			return runner.RunDone{Chapter: ch, Result: course.Result{Kind: course.Failing, First: err.Error()}}
		}
		rec := filepath.Join(e.root, ReplayDir, ch)
		os.RemoveAll(rec)
		if err := os.MkdirAll(rec, 0o755); err != nil {
			rec = ""
		}
		r := course.Run(context.Background(), e.root, e.exercises, ex, tier, e.table, course.Options{RecordDir: rec})
		var replays []string
		if rec != "" {
			replays, _ = filepath.Glob(filepath.Join(rec, "*.events.jsonl"))
			sortReplays(replays)
		}
		return runner.RunDone{Chapter: ch, Result: r, Replays: replays}
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
// Enter first.
func (e *env) Visual(ch string) *exec.Cmd {
	c := exec.Command("bash", "-c", `"$0" "$1" --visual || { s=$?; printf '\npress Enter to go back to the workshop '; read -r _; exit $s; }`,
		filepath.Join(e.root, "scripts", "exercise"), ch)
	c.Dir = e.root
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
