package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// A lock can panic where no recover of ours reaches: a learner's
// TODO(workshop) stub often sits in a goroutine the lock starts itself.
// Such a panic ends the process at once, leaving the terminal in raw mode
// on the alternate screen, and the run's znodes behind. So the visualizer
// runs in two processes: this one (the supervisor) starts ZooKeeper if
// needed, runs the view as its child on the same terminal, and whatever
// way the child ends, restores the terminal, deletes the run's znodes,
// says what happened, and stops the server. The child is the same program
// with viewEnv set.
const viewEnv = "LOCKSTEP_VISUALIZER_VIEW"

// supervise runs the view as a child process and returns the exit code.
// servers is the -servers flag, base the -path flag ("" for a root of
// this run's own), scenes the chapters the child may show.
// interactive: the child draws on the terminal (no -frames).
func supervise(serversFlag, base string, scenes []scene.Scene, interactive bool) int {
	// Signals are the child's business (it cleans up); we only pass on
	// the ones sent to us alone (kill PID) and wait for it.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // a signal while the server starts ends the start
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	servers, stopServer, err := demo.Servers(ctx, serversFlag, io.Discard)
	defer stopServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		return 1
	}
	cancel()
	own := base == ""
	if own {
		// Below $ZK_ROOT in a class: the learner's subtree, the only place
		// their identity (ZK_AUTH) may create.
		if base, err = demo.RunRoot("visualizer", 4); err != nil {
			fmt.Fprintln(os.Stderr, "visualizer:", err)
			return 1
		}
	}

	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		return 1
	}
	args := append(os.Args[1:len(os.Args):len(os.Args)], "-servers", strings.Join(servers, ","), "-path", base)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), viewEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, &stderr
	saved := terminalState()
	code, err := demo.RunChild(cmd) // passes on the signals sent to us alone
	if err != nil {
		fmt.Fprintln(os.Stderr, "visualizer: start the view:", err)
		return 1
	}

	out := stderr.String()
	// A panic or a fatal error of the Go runtime: a stack on stderr, exit 2.
	crashed := code == 2 && strings.Contains(out, "\ngoroutine ")
	if interactive && (crashed || code > 128) { // also after a SIGKILL
		restoreTerminal(saved)
	}
	if err := removeRun(servers, base, own, scenes); err != nil {
		fmt.Fprintf(os.Stderr, "visualizer: warning: could not delete %s: %v\n", base, err)
	}
	value, where := panicOf(out)
	switch {
	case crashed && workshop && value != "":
		fmt.Fprintf(os.Stderr, "visualizer: your chapter %s lock is not finished yet: a worker panicked%s\n  %s\n", chapterFlag(), where, value)
		fmt.Fprintf(os.Stderr, "run its tests with: make exercise CH=%s\n", chapterFlag())
		return 1
	case crashed:
		fmt.Fprintln(os.Stderr, "visualizer: the view crashed (the terminal was restored, the run's znodes deleted):")
	}
	os.Stderr.WriteString(out)
	return code
}

// terminalState is `stty -g` of our terminal, "" if stdin is none.
func terminalState() string {
	cmd := exec.Command("stty", "-g")
	cmd.Stdin = os.Stdin
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// restoreTerminal undoes what the view did to the terminal: the alternate
// screen, the hidden cursor, bracketed paste, raw mode.
func restoreTerminal(saved string) {
	if saved == "" {
		return
	}
	os.Stdout.WriteString("\x1b[?2004l\x1b[?25h\x1b[?1049l")
	cmd := exec.Command("stty", saved)
	cmd.Stdin = os.Stdin
	cmd.Run()
}

// removeRun deletes what the view may have left: the run's own root with
// its parents while they are empty (up to $ZK_ROOT, which stays), or under a given -path the chapters'
// directories. The child does it itself unless it crashed.
func removeRun(servers []string, base string, own bool, scenes []scene.Scene) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, events, err := zksession.Connect(ctx, servers, zksession.DefaultTimeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	go zksession.Drain(events)
	if !own {
		var errs []error
		for _, s := range scenes {
			errs = append(errs, znode.DeleteTree(conn, path.Join(base, s.Name)))
		}
		return errors.Join(errs...)
	}
	return demo.RemoveRunRoot(conn, base)
}

// panicOf finds, in a crashed child's stderr, the panic's value and where
// in the module it was raised (" at 04-sequential-lock/seqlock/node.go:173").
func panicOf(stderr string) (value, where string) {
	for _, l := range strings.Split(stderr, "\n") {
		if v, ok := strings.CutPrefix(l, "panic: "); ok {
			value = v
			break
		}
	}
	if m := chapterLine.FindStringSubmatch(stderr); m != nil {
		where = at(m[1])
	}
	return value, where
}

// chapterLine is the first stack line in a chapter's source.
var chapterLine = regexp.MustCompile(`(?m)^\s+\S*/(\d\d-[^/\s]+/\S+\.go:\d+)`)
