package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

// The learner's lock in the class's arena (runner.ArenaEnv): the worker is
// workshop/class/player built as the check builds chapter 04 — -tags
// workshop with course.Overlay — so the seqlock it links is the learner's
// acquire_workshop.go. One worker at a time; leaving the arena or the
// runner stops it, and removes its build.

// playerPkg is the worker's package, in the learner's clone.
const playerPkg = "./workshop/class/player"

// arenaWorker is a worker process running, and what it built.
type arenaWorker struct {
	cmd  *exec.Cmd
	tmp  string        // the build: the overlay and the binary
	done chan struct{} // closed when the process is over and tmp removed
	err  error         // why it ended, once done is closed (nil: stopped)
	quit chan struct{} // closed when nobody reads its news any more (the runner quits)
	once sync.Once
}

// buildPlayer builds the worker with chapter 04's files as the check
// builds them (from: a directory whose files stand for the learner's, as
// course.Run's Options.From; "" for the clone's own) into tmp.
func buildPlayer(ctx context.Context, root string, all []course.Exercise, from, tmp string) (string, error) {
	ex, err := course.Find(all, runner.ArenaChapter)
	if err != nil {
		return "", err
	}
	overlay, err := course.Overlay(root, tmp, all, ex, from)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, "player")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "workshop", "-overlay", overlay, "-o", bin, playerPkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build your %s for the arena: %w\n%s", runner.ArenaChapter, err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// startPlayer builds and starts a worker playing as name in the class of
// line, and sends what it says on news until it ends.
func startPlayer(root string, all []course.Exercise, from, line, name string, news chan<- runner.ArenaNews) (*arenaWorker, error) {
	tmp, err := os.MkdirTemp("", "lockstep-arena-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := buildPlayer(ctx, root, all, from, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	cmd := exec.Command(bin, "-class", line, "-name", name)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start the arena worker: %w", err)
	}
	w := &arenaWorker{cmd: cmd, tmp: tmp, done: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer os.RemoveAll(tmp)
		w.read(out, news)
		err := cmd.Wait()
		if err != nil && !stopped(err) {
			w.err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
	}()
	return w, nil
}

// read sends a news per line the worker writes (an arena.Outcome), until
// its stdout closes.
func (w *arenaWorker) read(out io.Reader, news chan<- runner.ArenaNews) {
	s := bufio.NewScanner(out)
	for s.Scan() {
		var o arena.Outcome
		if json.Unmarshal(s.Bytes(), &o) != nil {
			continue
		}
		n := runner.ArenaNews{Kind: runner.ArenaRound, Wrote: o.Wrote, Count: o.Count}
		if o.Caught != nil {
			n.Caught = o.Caught.String()
		}
		select {
		case news <- n:
		case <-w.quit:
		}
	}
}

// stopped: the worker ended because it was told to (SIGTERM).
func stopped(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
}

// stop ends the worker (its sessions close, its lock node goes) and waits
// until nothing of it is left. abandon: nobody reads its news any more.
func (w *arenaWorker) stop(abandon bool) {
	if abandon {
		w.once.Do(func() { close(w.quit) })
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		w.cmd.Process.Kill()
		<-w.done
	}
}

// arenaSide is the env's part of the arena: the worker, and its news.
type arenaSide struct {
	mu     sync.Mutex
	worker *arenaWorker
	news   chan runner.ArenaNews
}

// enter starts the class's worker, unless one runs.
func (a *arenaSide) enter(root string, all []course.Exercise, line, name string) runner.ArenaNews {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.worker != nil {
		return runner.ArenaNews{Kind: runner.ArenaIn}
	}
	if a.news == nil {
		a.news = make(chan runner.ArenaNews, 16)
	}
	w, err := startPlayer(root, all, "", line, name, a.news)
	if err != nil {
		return runner.ArenaNews{Kind: runner.ArenaOut, Err: err}
	}
	a.worker = w
	go func() {
		<-w.done
		a.mu.Lock()
		if a.worker == w {
			a.worker = nil
		}
		a.mu.Unlock()
		select {
		case a.news <- runner.ArenaNews{Kind: runner.ArenaOut, Err: w.err}:
		case <-w.quit: // stopped: the runner may be gone
		}
	}()
	return runner.ArenaNews{Kind: runner.ArenaIn}
}

// leave stops the worker, if one runs, and waits until nothing of it is
// left; its end is news (ArenaOut) unless abandon (the runner quits).
func (a *arenaSide) leave(abandon bool) {
	a.mu.Lock()
	w := a.worker
	a.mu.Unlock()
	if w != nil {
		w.stop(abandon)
	}
}

// EnterArena, LeaveArena and ArenaNext are the runner's ArenaEnv in a class.
func (e *env) EnterArena() tea.Cmd {
	if e.class == nil {
		return nil
	}
	return func() tea.Msg { return e.class.arena.enter(e.root, e.exercises, e.class.line, e.class.name) }
}

func (e *env) LeaveArena() tea.Cmd {
	if e.class == nil {
		return nil
	}
	return func() tea.Msg {
		e.class.arena.leave(false)
		return nil // the worker's end comes as news, on ArenaNext
	}
}

func (e *env) ArenaNext() tea.Cmd {
	if e.class == nil {
		return nil
	}
	e.class.arena.mu.Lock()
	if e.class.arena.news == nil {
		e.class.arena.news = make(chan runner.ArenaNews, 16)
	}
	news := e.class.arena.news
	e.class.arena.mu.Unlock()
	return func() tea.Msg { return <-news }
}

var _ runner.ArenaEnv = (*env)(nil)
