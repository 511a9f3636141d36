package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkconn"
)

// A learner's lock (-impl exercise) may still hold TODO(workshop) stubs,
// and a stub panics — often in a goroutine of the lock's own, where no
// recover of ours can reach it, and a crash there would leave the terminal
// in raw mode. So before the TUI opens, the same program runs once more as
// a child that takes the learner's lock with two workers; if the child
// dies, the learner gets the stub's message and the TUI never starts.
const preflightEnv = "LOCKSTEP_TUI_PREFLIGHT"

// PreflightChild runs the preflight when this process is that child, and
// then exits. A main that lets users pick -impl exercise must call it first.
func PreflightChild() {
	spec := os.Getenv(preflightEnv)
	if spec == "" {
		return
	}
	parts := strings.SplitN(spec, "|", 3)
	if len(parts) != 3 {
		fmt.Fprintf(os.Stderr, "bad %s=%q\n", preflightEnv, spec)
		os.Exit(2)
	}
	if err := tryExercise(parts[0], strings.Split(parts[1], ","), parts[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// tryExercise takes and releases the chapter's exercise lock twice with
// two workers at once, so both the free and the contended paths run.
func tryExercise(chapter string, servers []string, lockPath string) error {
	ch, ok := lookup(chapter)
	if !ok || ch.Exercise == nil {
		return fmt.Errorf("chapter %s has no exercise", chapter)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = tryWorker(ctx, ch, servers, lockPath, i+1)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func tryWorker(ctx context.Context, ch Chapter, servers []string, lockPath string, i int) error {
	conn, events, err := zkconn.Dial(ctx, servers, zkconn.DefaultSessionTimeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	go zkconn.Drain(events)
	l, err := ch.Exercise(Worker{Conn: conn, Path: lockPath, Index: i, Name: fmt.Sprintf("worker-%d", i),
		Session: zkconn.DefaultSessionTimeout})
	if err != nil {
		return err
	}
	for range 2 {
		if err := l.Lock(ctx); err != nil {
			return fmt.Errorf("Lock: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
		if err := l.Unlock(ctx); err != nil {
			return fmt.Errorf("Unlock: %w", err)
		}
	}
	return nil
}

// preflight runs the child and turns its death into a readable error.
func preflight(ctx context.Context, r *runtime, ch Chapter) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	lockPath := path.Join(r.base, "preflight", ch.Name, "lock")
	if err := createParents(r.admin, lockPath); err != nil {
		return err
	}
	defer deleteTree(r.admin, path.Join(r.base, "preflight"))
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), preflightEnv+"="+ch.Key+"|"+strings.Join(r.servers, ",")+"|"+lockPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("your %s lock (%s/exercise) is not finished yet:\n  %s\nrun its tests with: make exercise CH=%s",
			ch.Name, ch.Name, firstClue(stderr.String()), ch.Key)
	}
	return nil
}

// firstClue picks the TODO(workshop) line, or else the panic or the first
// line, out of the child's stderr.
func firstClue(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, want := range []string{"TODO(workshop)", "panic:"} {
		for _, l := range lines {
			if strings.Contains(l, want) {
				return strings.TrimSpace(l)
			}
		}
	}
	if len(lines) > 0 && lines[0] != "" {
		return lines[0]
	}
	return "(the check died without a message)"
}
