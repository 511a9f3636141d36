package demo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// The test binary doubles as a demo and as a stand-in visualizer, so the
// tests below can run them as child processes and send them signals.
const (
	childEnv    = "LOCKSTEP_DEMO_TEST_CHILD" // "demo" or "visualizer"
	fakeArgsEnv = "LOCKSTEP_DEMO_TEST_ARGS"  // where the stand-in visualizer writes its arguments
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "demo": // chapter 04's demo, as `go run ./04-sequential-lock` runs it
		Main(Chapter{Name: "04-sequential-lock", Title: "04 under test",
			Sessions: OnSession(seqlock.NewSession, func(s *seqlock.Session, path string, obs event.Observer) (Locker, error) {
				return seqlock.New(s, path, seqlock.WithObserver(obs))
			}, nil)})
		os.Exit(0)
	case "visualizer":
		os.WriteFile(os.Getenv(fakeArgsEnv), []byte(strings.Join(os.Args[1:], " ")), 0o600)
		os.Exit(3)
	case "slow visualizer": // says it runs, then runs until a signal ends it
		os.WriteFile(os.Getenv(fakeArgsEnv), []byte("running"), 0o600)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	zktest.Main(m)
}

var runRoot = regexp.MustCompile(`this run works under (/lockstep/\S+/run-[0-9a-f]{6})`)

// A workshop host runs one ZooKeeper for the room; a learner who presses
// Ctrl-C or closes the terminal must leave nothing on it.
func TestASignalLeavesNothingBehind(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(fmt.Sprintf("%v while one worker holds the lock and another waits: lock released, sessions closed, the run's nodes gone", sig), func(t *testing.T) {
			admin := zktest.Connect(t)
			sessionsBefore, sessionsKnown := sessions(t)

			cmd := exec.Command(os.Args[0], "-servers", strings.Join(zktest.Servers(t), ","),
				"-workers", "2", "-rounds", "1", "-hold", "10m", "-session", "20s")
			cmd.Env = append(os.Environ(), childEnv+"=demo")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			lines := make(chan string, 100)
			go func() {
				defer close(lines)
				s := bufio.NewScanner(stdout)
				for s.Scan() {
					lines <- s.Text()
				}
			}()

			// Wait until the run holds the lock and has a waiter.
			var out []string
			var root string
			holds, waits := false, false
			deadline := time.After(zktest.Patience)
			for !holds || !waits {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("the demo ended early:\n%s\n%s", strings.Join(out, "\n"), stderr.String())
					}
					out = append(out, l)
					if m := runRoot.FindStringSubmatch(l); m != nil && root == "" {
						root = m[1]
					}
					holds = holds || strings.Contains(l, " acquired ")
					waits = waits || strings.Contains(l, " waits behind ")
				case <-deadline:
					t.Fatalf("no holder and waiter after %v:\n%s", zktest.Patience, strings.Join(out, "\n"))
				}
			}
			if root == "" {
				t.Fatalf("the first line does not say where the run works:\n%s", strings.Join(out, "\n"))
			}
			if ok, _, err := admin.Exists(root); !ok || err != nil {
				t.Fatalf("%s while the demo runs: exists=%v err=%v", root, ok, err)
			}

			cmd.Process.Signal(sig)
			exited := make(chan error, 1)
			go func() {
				for l := range lines {
					out = append(out, l)
				}
				exited <- cmd.Wait()
			}()
			select {
			case err = <-exited:
			case <-time.After(zktest.Patience):
				t.Fatalf("the demo still runs %v after %v", zktest.Patience, sig)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 128+int(sig) {
				t.Errorf("exit: %v, want exit status %d (128+%d)", err, 128+int(sig), int(sig))
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say it was interrupted: %q", stderr.String())
			}
			if !strings.Contains(strings.Join(out, "\n"), " released ") {
				t.Errorf("the holder did not release the lock:\n%s", strings.Join(out, "\n"))
			}
			if ok, _, err := admin.Exists(root); ok || err != nil {
				t.Errorf("%s after the demo exited: exists=%v err=%v; left: %s", root, ok, err, zktest.Describe(zktest.Tree(t, admin, root)))
			}
			// A session the demo did not close would live on for its
			// timeout (20 s asked) after the process is gone.
			if !sessionsKnown {
				t.Log("this server does not allow the dump four-letter word: sessions not checked")
				return
			}
			after, _ := sessions(t)
			for s := range after {
				if !sessionsBefore[s] {
					t.Errorf("session %s outlived the demo", s)
				}
			}
		})
	}
}

var sessionID = regexp.MustCompile(`0x[0-9a-f]+`)

// sessions lists the sessions the server tracks (the dump four-letter
// word); false if the server does not allow dump.
func sessions(t *testing.T) (map[string]bool, bool) {
	t.Helper()
	dump, err := zkserver.FourLetter(zktest.Context(t), zktest.Servers(t)[0], "dump")
	if err != nil || strings.Contains(dump, "not in the whitelist") {
		return nil, false
	}
	dump, _, _ = strings.Cut(dump, "ephemeral nodes dump")
	ids := map[string]bool{}
	for _, id := range sessionID.FindAllString(dump, -1) {
		ids[id] = true
	}
	return ids, true
}

func TestTUIRunsTheVisualizerAsAChild(t *testing.T) {
	t.Run("with the chapter's number and the flags given, and exits with its code", func(t *testing.T) {
		argsFile := t.TempDir() + "/args"
		t.Setenv(childEnv, "visualizer")
		t.Setenv(fakeArgsEnv, argsFile)
		build := buildVisualizer
		buildVisualizer = func(context.Context, string) (string, error) { return os.Args[0], nil }
		t.Cleanup(func() { buildVisualizer = build })

		ch := testChapter()
		ch.TUIArgs = func(map[string]bool) []string { return []string{"-persistent"} }
		var out bytes.Buffer
		err := Execute(context.Background(), ch.Program(nil),
			[]string{"-servers", "zk1:2181", "-workers", "7", "-rounds", "9", "-session", "6s", "-tui"}, &out)
		var code ExitCode
		if !errors.As(err, &code) || code != 3 {
			t.Fatalf("err = %v, want the visualizer's exit code 3", err)
		}
		got, err := os.ReadFile(argsFile)
		if err != nil {
			t.Fatal(err)
		}
		if want := "-chapter 00 -servers zk1:2181 -session 6s -workers 7 -persistent"; string(got) != want {
			t.Fatalf("visualizer arguments %q, want %q", got, want)
		}
		if out.Len() > 0 {
			t.Fatalf("the demo printed %q: -tui should only run the visualizer", out.String())
		}
	})
	t.Run("a SIGTERM sent to the demo reaches the visualizer, and its end is the demo's exit code", func(t *testing.T) {
		ready := t.TempDir() + "/ready"
		t.Setenv(childEnv, "slow visualizer")
		t.Setenv(fakeArgsEnv, ready)
		build := buildVisualizer
		buildVisualizer = func(context.Context, string) (string, error) { return os.Args[0], nil }
		t.Cleanup(func() { buildVisualizer = build })

		done := make(chan error, 1)
		go func() {
			done <- Execute(context.Background(), testChapter().Program(nil), []string{"-tui"}, io.Discard)
		}()
		zktest.Eventually(t, zktest.Patience, "the visualizer never started", func() bool {
			_, err := os.Stat(ready)
			return err == nil
		})
		// While the visualizer runs, the demo catches SIGTERM (or this
		// test binary would die of it) and passes it on.
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case err := <-done:
			var code ExitCode
			if !errors.As(err, &code) || code != 128+ExitCode(syscall.SIGTERM) {
				t.Fatalf("err = %v, want exit code %d: the visualizer ended by SIGTERM", err, 128+int(syscall.SIGTERM))
			}
		case <-time.After(zktest.Patience):
			t.Fatal("the visualizer still runs: the signal was not passed on")
		}
	})
}
