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

	cmd := exec.Command(exe, append([]string{"-chapter", chapter}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	code, err := RunChild(cmd)
	if err != nil {
		return fmt.Errorf("run the visualizer: %w", err)
	}
	return ExitCode(code) // its code, even 0 after a signal that ended ours
}

// RunChild starts cmd, passes every SIGINT, SIGTERM and SIGHUP this
// process gets on to it while it runs, waits for it, and returns its exit
// code: 128+n if signal n ended it. The error is only for a cmd that could
// not start.
func RunChild(cmd *exec.Cmd) (int, error) {
	// Catch the signals before the child starts, so none is lost between.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, err
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
	err := cmd.Wait()
	close(exited)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case !errors.As(err, &exit):
		return 1, nil // the child ran, but waiting for it failed (its I/O)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return exit.ExitCode(), nil
}
