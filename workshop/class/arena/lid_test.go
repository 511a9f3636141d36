package arena_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/childproc"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// The lid test needs a learner in a process of its own: only a real
// process can be frozen (SIGSTOP), as a laptop's closed lid freezes its
// runner. As reliability/ does, the test runs its own binary again
// (internal/childproc) with childEnv set, and TestMain hands over to
// childMain. The two speak typed messages: a childConfig in the
// environment, a childMsg per line on the child's stdout, and one line on
// its stdin (the lid opens).
const childEnv = "LOCKSTEP_ARENA_CHILD" // a childConfig, as JSON

type childConfig struct {
	Servers        []string      `json:"servers"`
	Dir            string        `json:"dir"` // the arena
	Code           string        `json:"code"`
	Name           string        `json:"name"`
	LockSession    time.Duration `json:"lock_session"`
	CounterSession time.Duration `json:"counter_session"`
}

type childMsg struct {
	Event   string         `json:"event"` // "inside", "round", "error"
	Node    string         `json:"node,omitempty"`
	Outcome *arena.Outcome `json:"outcome,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// childMain is one learner playing one round: it takes the class lock,
// reads the counter, says "inside", and waits for a line on stdin before
// it writes — the test freezes it meanwhile, for longer than its lock's
// session. Then it carries on exactly where it stopped.
func childMain() int {
	say := func(m childMsg) { childproc.Say(m) }
	fail := func(err error) int { say(childMsg{Event: "error", Error: err.Error()}); return 1 }
	cfg, _, err := childproc.Config[childConfig](childEnv)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := seqlock.NewSession(ctx, cfg.Servers, seqlock.WithSessionTimeout(cfg.LockSession))
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	counterConn, events, err := zksession.Connect(ctx, cfg.Servers, cfg.CounterSession)
	if err != nil {
		return fail(err)
	}
	go zksession.Drain(events)
	defer counterConn.Close()
	for _, c := range []interface {
		AddAuth(string, []byte) error
	}{s.Conn(), counterConn} {
		if err := c.AddAuth("digest", classroom.ArenaAuth(cfg.Code)); err != nil {
			return fail(err)
		}
	}
	a, err := arena.Open(counterConn, cfg.Dir)
	if err != nil {
		return fail(err)
	}
	m, err := seqlock.New(s, a.LockDir(), arena.LockOptions(cfg.Name)...)
	if err != nil {
		return fail(err)
	}
	stdin := bufio.NewScanner(os.Stdin)
	w := &arena.Worker{Name: cfg.Name, Lock: m, Arena: a, Inside: func(context.Context) error {
		say(childMsg{Event: "inside", Node: m.Node()})
		if !stdin.Scan() {
			return fmt.Errorf("stdin closed before the lid opened")
		}
		return nil
	}}
	out, err := w.Round(ctx)
	if err != nil {
		return fail(err)
	}
	say(childMsg{Event: "round", Outcome: &out})
	return 0
}

// child is the learner process.
type child struct{ *childproc.Child[childMsg] }

func startChild(t *testing.T, cfg childConfig) child {
	t.Helper()
	return child{childproc.Start[childMsg](t, childEnv, cfg)}
}

// expect waits for the child's next message, which must be event.
func (c child) expect(t *testing.T, event string) childMsg {
	t.Helper()
	m := c.Next(t, zktest.Patience)
	if m.Event != event {
		t.Fatalf("the child said %+v, want %q", m, event)
	}
	return m
}

func TestLidClosed(t *testing.T) {
	t.Run("a holder frozen past its session is refused when it writes, and the class sees who wrote instead", func(t *testing.T) {
		r := newRoom(t)
		lo, hi := zktest.SessionBounds(t)
		c := startChild(t, childConfig{Servers: r.servers, Dir: r.host.Dir(), Code: r.code, Name: "lid",
			LockSession: lo, CounterSession: hi})
		inside := c.expect(t, "inside")

		bob := r.learner(t, "bob")
		bobDone := round(zktest.Context(t), bob.worker(bob.mutex(t, r)))
		queued(t, r, 2)

		// The lid closes: the runner stops between its read and its write.
		if err := c.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		stopped := time.Now()
		bobOut := zktest.Await(t, bobDone, "bob's round while the lid is closed")
		if bobOut.err != nil || !bobOut.out.Wrote {
			t.Fatalf("bob's round: %+v, %v", bobOut.out, bobOut.err)
		}
		entered := time.Since(stopped)

		// The lid opens: the runner carries on where it stopped, and writes.
		if err := c.Send("open"); err != nil {
			t.Fatal(err)
		}
		if err := c.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		got := c.expect(t, "round").Outcome
		if got == nil || got.Wrote || got.Caught == nil || got.Caught.Kind != arena.NodeGone ||
			got.Caught.Writer != "lid" || got.Caught.WriterNode != inside.Node || got.Caught.Other != "bob" {
			t.Fatalf("the resumed holder's round: %+v, want its write refused (node gone), naming bob", got)
		}
		t.Logf("lock session %v: bob entered %v after the SIGSTOP; on SIGCONT: %v", lo, entered.Round(time.Millisecond), got.Caught)
		if recorded := caught(t, r); len(recorded) != 1 || recorded[0].Writer != "lid" {
			t.Fatalf("caught/ holds %v, want the resumed holder's refusal", recorded)
		}
		if n := counter(t, r); n.N != 1 || n.Writer != "bob" {
			t.Fatalf("counter %+v, want 1 by bob", n)
		}
	})
}
