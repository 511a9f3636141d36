package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
	"github.com/lockstep-zk/lockstep/workshop/class/view"
)

// watch is the host's screen. It reads the class directory serve wrote
// (the admin secret is there: it runs on the host's machine).
func watch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "lockstep-class", "the class directory serve keeps")
	lang := fs.String("lang", "en", "en or zh (the l key switches)")
	frames := fs.Int("frames", 0, "print this many frames without colour and exit (no TUI): a log, a test, a projector snapshot")
	interval := fs.Duration("interval", time.Second, "time between two -frames")
	width := fs.Int("width", 100, "-frames: width")
	height := fs.Int("height", 30, "-frames: height")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	l, ok := view.ParseLang(*lang)
	if !ok {
		return fmt.Errorf("watch: -lang %q: want en or zh", *lang)
	}
	if *frames < 0 || *interval <= 0 || *width < 20 || *height < 5 {
		return fmt.Errorf("watch: want -frames ≥ 0, -interval > 0, -width ≥ 20, -height ≥ 5")
	}
	st, err := readState(*dir)
	if err != nil {
		return fmt.Errorf("watch: read the class directory (is this where serve runs? -dir): %w", err)
	}
	if !st.External && !serving(*dir) {
		return fmt.Errorf("watch: no class is served from %s (start it: go run ./workshop/class serve -dir %s)", *dir, *dir)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := make(chan classroom.Change, 64)
	failed := make(chan error, 1)
	go follow(ctx, st, changes, failed)
	snaps := make(chan arena.Snapshot, 16)
	go followArena(ctx, st, snaps)
	m := view.New(st.joinLine(), l, time.Now(), changes).WithArena(snaps)
	if *frames > 0 {
		return printFrames(ctx, m, changes, snaps, failed, *frames, *interval, *width, *height, stdout)
	}
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithOutput(stdout))
	go func() {
		select {
		case err := <-failed:
			p.Send(view.ErrMsg{Err: err})
		case <-ctx.Done():
		}
	}()
	_, err = p.Run()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// follow runs the host's watch, and opens a new session if the old one
// ends (the host's laptop slept past its session timeout): watches live
// in a session. A class that cannot be reached for 30 s is an error.
func follow(ctx context.Context, st classState, changes chan<- classroom.Change, failed chan<- error) {
	down := time.Time{}
	for ctx.Err() == nil {
		h, err := classroom.OpenHost(ctx, st.Servers, st.Root, st.AdminSecret)
		if err == nil {
			down = time.Time{}
			err = h.Watch(ctx, changes)
			h.Close()
		}
		if ctx.Err() != nil {
			return
		}
		if down.IsZero() {
			down = time.Now()
		} else if time.Since(down) > 30*time.Second {
			failed <- err
			return
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// followArena sends the class's arena as it changes (arena.Follow: on
// watches), on a session of its own; a session that ends is opened again.
// The screen shows the arena once it has been read.
func followArena(ctx context.Context, st classState, snaps chan<- arena.Snapshot) {
	for ctx.Err() == nil {
		h, err := classroom.OpenHost(ctx, st.Servers, st.Root, st.AdminSecret)
		if err == nil {
			var a *arena.Arena
			if a, err = h.OpenArena(ctx, st.Code, st.AdminSecret); err == nil {
				a.Follow(ctx, snaps)
			}
			h.Close()
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// printFrames applies changes as they come and prints the screen every
// interval, n times.
func printFrames(ctx context.Context, m view.Model, changes <-chan classroom.Change, snaps <-chan arena.Snapshot, failed <-chan error, n int, interval time.Duration, width, height int, out io.Writer) error {
	m.Width, m.Height = width, height
	next := time.NewTimer(interval)
	defer next.Stop()
	for i := 1; i <= n; {
		select {
		case c := <-changes:
			m = m.Apply(c)
		case s := <-snaps:
			m = m.ApplyArena(s)
		case err := <-failed:
			m.Err = err
		case now := <-next.C:
			m.Now = now
			fmt.Fprintf(out, "── frame %d/%d ──\n%s\n", i, n, m.View())
			i++
			next.Reset(interval)
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}
