package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// VisualizerPackage is the visualizer, which -tui runs.
const VisualizerPackage = "github.com/lockstep-zk/lockstep/visualizer"

// buildVisualizer compiles the visualizer and returns the binary. It
// builds into the user's cache directory, where the go command finds the
// binary up to date on the next -tui and does not link it again (a second
// or so instead of several); without a cache directory, into scratch, a
// temporary directory removed after the run. (A variable, so tests can put
// a stand-in there.)
var buildVisualizer = func(ctx context.Context, scratch string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("-tui builds the visualizer with the go command: %w", err)
	}
	dir := scratch
	if cache, err := os.UserCacheDir(); err == nil {
		if err := os.MkdirAll(filepath.Join(cache, "lockstep"), 0o755); err == nil {
			dir = filepath.Join(cache, "lockstep")
		}
	}
	exe := filepath.Join(dir, "visualizer")
	fmt.Fprintf(os.Stderr, "-tui: building the visualizer (%s)…\n", VisualizerPackage)
	build := exec.CommandContext(ctx, goTool, "build", "-o", exe, VisualizerPackage)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("build the visualizer: %w", err)
	}
	return exe, nil
}

// visualize runs the visualizer on chapter ("04") as a child process, with
// the terminal (stdin, stdout, stderr) handed over to it, and returns its
// exit code as an ExitCode. A chapter does not import the visualizer, so a
// chapter compiles only itself, earlier chapters and shared internals —
// never a later chapter, an exercise, or the visualizer's dependencies.
//
// It is `go run …/visualizer -chapter NN …` in two steps, build then run,
// so that the visualizer is our own child: every SIGINT, SIGTERM and SIGHUP
// we get is forwarded to it, and its exit code is ours. (Under `go run`,
// the go command would sit between us: it dies of SIGTERM and SIGHUP
// without passing them on, leaving the visualizer — its sessions and its
// nodes — running, and it turns every failure into exit status 1.)
func visualize(ctx context.Context, chapter string, args []string) error {
	dir, err := os.MkdirTemp("", "lockstep-visualizer-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	exe, err := buildVisualizer(ctx, dir)
	if err != nil {
		return err
	}

	// Catch the signals before the child starts, so none is lost between.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	cmd := exec.Command(exe, append([]string{"-chapter", chapter}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the visualizer: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				cmd.Process.Signal(s)
			case <-exited:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(exited)
	var exit *exec.ExitError
	if err == nil {
		return ExitCode(0) // its code, even if a signal cancelled ours
	}
	if !errors.As(err, &exit) {
		return err
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitCode(128 + int(ws.Signal()))
	}
	return ExitCode(exit.ExitCode())
}
