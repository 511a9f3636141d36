package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// observeRun runs go run ./visualizer -observe (this test binary as the
// visualizer) with args and env, and returns what it printed.
func observeRun(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(zktest.Context(t), os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestObserveModeShowsALockItDoesNotOwn(t *testing.T) {
	ctx := zktest.Context(t)
	dir := zktest.Root(t) + "/orders"
	s := zktest.DialSession(t, seqlock.NewSession)
	l, err := seqlock.New(s, dir, seqlock.WithData([]byte("alice")))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Unlock(context.Background()) })

	t.Run("from ZK_SERVERS, in frames: the holder named by its node's data", func(t *testing.T) {
		out, err := observeRun(t, []string{"ZK_SERVERS=" + zktest.Server(t).ConnectString()},
			"-observe", dir, "-frames", "2", "-interval", "200ms", "-width", "80", "-height", "24")
		if err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		for _, want := range []string{"── frame 2/2 ──", "1 queued", "holder lock-0000000000 (alice)", "HOLDS", "keys that act on workers are off"} {
			if !strings.Contains(out, want) {
				t.Errorf("the frames lack %q:\n%s", want, out)
			}
		}
	})
	t.Run("in Chinese", func(t *testing.T) {
		out, err := observeRun(t, nil, "-observe", dir, "-servers", zktest.Server(t).ConnectString(),
			"-frames", "1", "-interval", "200ms", "-lang", "zh")
		if err != nil || !strings.Contains(out, "持有者 lock-0000000000（alice）") {
			t.Errorf("%v:\n%s", err, out)
		}
	})
	t.Run("without servers, or with a path that is not one, it says so", func(t *testing.T) {
		for args, want := range map[string]string{
			"-observe " + dir:                        "give -servers host:port,… or set ZK_SERVERS",
			"-observe orders -servers 127.0.0.1:1":   `want a znode path`,
			"-observe /orders/ -servers 127.0.0.1:1": `want a znode path`,
		} {
			out, err := observeRun(t, []string{"ZK_SERVERS="}, strings.Fields(args)...)
			if err == nil || !strings.Contains(out, want) {
				t.Errorf("%s (%v): want %q:\n%s", args, err, want, out)
			}
		}
	})
}
