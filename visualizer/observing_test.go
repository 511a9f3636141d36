package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
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

// TestObserveShowsTheArenasCounterAndCatches observes a class's arena —
// pointed at the arena's own directory, as a host would type it — after
// two learners' locks have played a round each and the host took the
// holder out: bob entered while ada still believed she held, and ada's
// write was refused. The frames show the class lock's queue, the counter
// and the refused write with both names.
func TestObserveShowsTheArenasCounterAndCatches(t *testing.T) {
	if os.Getenv(zksession.AuthEnv) != "" {
		t.Skip("the class makes its own digest identities; run without ZK_AUTH")
	}
	ctx := zktest.Context(t)
	servers := zktest.Servers(t)
	root := zktest.Root(t) + "/class"
	code, admin := classroom.NewCode(), classroom.NewAdminSecret()
	h, err := classroom.OpenHost(ctx, servers, root, admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if err := h.Create(ctx, "observe test", code, admin); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zktest.DeleteTree(h.Conn(), root) }) // as the host, before zktest.Root's own clean-up
	host, err := h.OpenArena(ctx, code, admin)
	if err != nil {
		t.Fatal(err)
	}
	// A learner: the lock on a session of its own, the counter on another.
	player := func(name string) *arena.Worker {
		s, err := seqlock.NewSession(ctx, servers)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		counter, events, err := zksession.Connect(ctx, servers, zksession.DefaultTimeout)
		if err != nil {
			t.Fatal(err)
		}
		go zksession.Drain(events)
		t.Cleanup(counter.Close)
		for _, c := range []*zk.Conn{s.Conn(), counter} {
			if err := c.AddAuth("digest", classroom.ArenaAuth(code)); err != nil {
				t.Fatal(err)
			}
		}
		lock, err := seqlock.New(s, host.LockDir(), arena.LockOptions(name)...)
		if err != nil {
			t.Fatal(err)
		}
		a, err := arena.Open(counter, host.Dir())
		if err != nil {
			t.Fatal(err)
		}
		return &arena.Worker{Name: name, Lock: lock, Arena: a}
	}
	round := func(w *arena.Worker) <-chan arena.Outcome {
		done := make(chan arena.Outcome, 1)
		go func() {
			out, err := w.Round(ctx)
			if err != nil {
				t.Errorf("%s's round: %v", w.Name, err)
			}
			done <- out
		}()
		return done
	}
	ada, bob := player("ada"), player("bob")
	inside, open := make(chan struct{}), make(chan struct{})
	ada.Inside = func(ctx context.Context) error {
		close(inside)
		select {
		case <-open:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	adaDone := round(ada)
	zktest.Await(t, inside, "ada inside the class lock")
	bobDone := round(bob)
	zktest.Eventually(t, zktest.Patience, "bob queued behind ada", func() bool {
		q, err := host.Queue(ctx)
		return err == nil && len(q) == 2
	})
	if _, err := host.TakeOut(ctx, "ada"); err != nil {
		t.Fatal(err)
	}
	if out := <-bobDone; !out.Wrote {
		t.Fatalf("bob's round once ada was out: %+v, want his write", out)
	}
	close(open)
	if out := <-adaDone; out.Caught == nil {
		t.Fatalf("ada's round after the take-out: %+v, want her write refused", out)
	}

	env := []string{"ZK_SERVERS=" + strings.Join(servers, ","), zksession.AuthEnv + "=" + string(classroom.ArenaAuth(code))}
	out, err := observeRun(t, env, "-observe", host.Dir(), "-frames", "2", "-interval", "300ms", "-width", "100", "-height", "24")
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	last := out[strings.LastIndex(out, "── frame 2/2 ──"):]
	for _, want := range []string{
		"QUEUE " + host.LockDir(), // the class lock, not the arena's directory
		"ARENA running · count 1",
		"last writer bob",
		"refused writes: 1",
		"node gone: ada wrote after its lock node was gone; bob wrote last",
	} {
		if !strings.Contains(last, want) {
			t.Errorf("the last frame lacks %q:\n%s", want, last)
		}
	}
	t.Run("in Chinese", func(t *testing.T) {
		out, err := observeRun(t, env, "-observe", host.LockDir(), "-frames", "1", "-interval", "300ms", "-width", "100", "-lang", "zh")
		if err != nil || !strings.Contains(out, "节点已不在：ada 的锁节点没了，它还在写入；最后写入的是 bob") || !strings.Contains(out, "计数器 1") {
			t.Errorf("%v:\n%s", err, out)
		}
	})
}
