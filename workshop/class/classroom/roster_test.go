package classroom_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// watchClass runs the host's watch for the test and returns its changes.
func watchClass(t *testing.T, c class) <-chan classroom.Change {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan classroom.Change, 64)
	done := make(chan error, 1)
	go func() { done <- c.host.Watch(ctx, changes) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("the host's watch ended with %v", err)
		}
	})
	return changes
}

// next waits for the change of name of kind, skipping others.
func next(t *testing.T, changes <-chan classroom.Change, name string, kind classroom.ChangeKind, within time.Duration) classroom.Change {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case c := <-changes:
			if c.Name == name && c.Kind == kind {
				return c
			}
		case <-deadline:
			t.Fatalf("after %v: no %s change for %s", within, kind, name)
		}
	}
}

func TestWatch(t *testing.T) {
	servers := zktest.Servers(t)

	t.Run("the host's watch sees a learner join, report, leave and come back", func(t *testing.T) {
		c := newClass(t, servers)
		changes := watchClass(t, c)
		s := secrets(t)
		ada := join(t, c.line, "ada", s)
		next(t, changes, "ada", classroom.Online, zktest.Patience)
		p := classroom.Progress{Chapter: "03", State: classroom.Failing, Mistake: "the herd", ChapterStart: time.Now().UTC()}
		if err := ada.Report(zktest.Context(t), p); err != nil {
			t.Fatal(err)
		}
		for {
			got := next(t, changes, "ada", classroom.Progressed, zktest.Patience)
			if got.Progress.Chapter == "03" {
				break
			}
		}
		ada.Close()
		next(t, changes, "ada", classroom.Offline, zktest.Patience)
		join(t, c.line, "ada", s)
		next(t, changes, "ada", classroom.Online, zktest.Patience)
	})

	t.Run("a laptop that vanishes shows gone within its session timeout, and its progress stays", func(t *testing.T) {
		c := newClass(t, servers)
		changes := watchClass(t, c)
		proxy, err := zkproxy.New(servers[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(proxy.Close)
		toProxy := func(network, _ string, timeout time.Duration) (net.Conn, error) {
			return net.DialTimeout(network, proxy.Addr(), timeout)
		}
		ada := join(t, c.line, "ada", secrets(t), classroom.WithSessionTimeout(time.Second), classroom.WithDialer(toProxy))
		next(t, changes, "ada", classroom.Online, zktest.Patience)
		if err := proxy.Cut(); err != nil { // the lid closes: no goodbye reaches the server
			t.Fatal(err)
		}
		cut := time.Now()
		next(t, changes, "ada", classroom.Offline, zktest.Patience)
		gone := time.Since(cut)
		t.Logf("gone on the host's screen %v after the cut (session granted %v)", gone.Round(time.Millisecond), ada.SessionTimeout())
		if limit := ada.SessionTimeout() + 3*time.Second; gone > limit {
			t.Errorf("shown gone after %v, want within the session timeout %v (+3 s)", gone, ada.SessionTimeout())
		}
		if _, _, err := c.host.Conn().Get(c.root + "/learners/ada/progress"); err != nil {
			t.Errorf("ada's progress after her session expired: %v", err)
		}
		proxy.Restore()
		select {
		case <-ada.Done():
		case <-time.After(zktest.Patience):
			t.Error("Done not closed after the session expired")
		}
	})

	t.Run("a learner whose servers all go away learns the session is over within its timeout", func(t *testing.T) {
		c := newClass(t, servers)
		proxy, err := zkproxy.New(servers[0])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(proxy.Close)
		toProxy := func(network, _ string, timeout time.Duration) (net.Conn, error) {
			return net.DialTimeout(network, proxy.Addr(), timeout)
		}
		ada := join(t, c.line, "ada", secrets(t), classroom.WithSessionTimeout(time.Second), classroom.WithDialer(toProxy))
		proxy.Down() // the class is served again elsewhere: no server will ever say "expired"
		down := time.Now()
		select {
		case <-ada.Done():
			t.Logf("Done %v after the servers went (session granted %v)", time.Since(down).Round(time.Millisecond), ada.SessionTimeout())
		case <-time.After(ada.SessionTimeout() + 5*time.Second):
			t.Errorf("Done still open %v after every server went away (session granted %v)", time.Since(down), ada.SessionTimeout())
		}
	})
}
