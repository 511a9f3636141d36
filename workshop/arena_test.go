package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/znode"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

// The worker the runner starts for the arena is built from the learner's
// own 04 (here a learner's file in a scratch directory, as the check's
// -from takes it): it queues in the class lock behind whoever holds it,
// writes the counter once it is its turn, and when it is stopped nothing
// of it is left — no lock node, no process, no build.
func TestAWorkerBuiltFromALearnersFileJoinsTheArenaQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arena's worker (a minute on a loaded machine): skipped in -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx)
	t.Cleanup(srv.Close)
	if errors.Is(err, zkserver.ErrNoZooKeeper) {
		t.Skip("no ZooKeeper: no Docker engine, no local install, no ZK_SERVERS")
	}
	if err != nil {
		t.Fatal(err)
	}
	root, code, admin := classroom.DefaultRoot+"-"+strings.ToLower(classroom.NewCode()), classroom.NewCode(), classroom.NewAdminSecret()
	host, err := classroom.OpenHost(ctx, srv.Servers, root, admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	t.Cleanup(func() { znode.DeleteTree(host.Conn(), root) })
	if err := host.Create(ctx, "test class", code, admin); err != nil {
		t.Fatal(err)
	}
	a, err := host.OpenArena(ctx, code, admin)
	if err != nil {
		t.Fatal(err)
	}
	line := classroom.JoinLine{Servers: srv.Servers, Root: root, Code: code}.String()

	// bob holds the class lock, so the worker must queue.
	s, err := seqlock.NewSession(ctx, srv.Servers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Conn().AddAuth("digest", classroom.ArenaAuth(code)); err != nil {
		t.Fatal(err)
	}
	bob, err := seqlock.New(s, a.LockDir(), arena.LockOptions("bob")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := bob.Lock(ctx); err != nil {
		t.Fatal(err)
	}

	// The learner's file: 04's reference, saved as their exercise file.
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	all, err := course.Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	from := t.TempDir()
	ref, err := os.ReadFile(filepath.Join(repo, "04-sequential-lock/seqlock/acquire.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(from, "acquire_workshop.go"), []byte(course.WorkshopBuild(string(ref))), 0o644); err != nil {
		t.Fatal(err)
	}
	news := make(chan runner.ArenaNews, 16)
	start := time.Now()
	w, err := startPlayer(repo, all, from, line, "ada", news)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop(true) })
	t.Logf("built and started the worker in %v", time.Since(start).Round(time.Millisecond))

	t.Run("it queues behind the holder, under the learner's name", func(t *testing.T) {
		for {
			next, err := a.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			q, err := a.Queue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if names := entryNames(q); slices.Equal(names, []string{"bob", "ada"}) {
				return
			} else if len(names) > 2 {
				t.Fatalf("the class lock's queue is %v, want bob then ada", names)
			}
			select {
			case <-next:
			case <-w.done:
				t.Fatalf("the worker ended before it queued: %v", w.err)
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
		}
	})

	t.Run("once the holder lets go, its round writes the counter", func(t *testing.T) {
		if err := bob.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-news:
			if n.Kind != runner.ArenaRound || !n.Wrote || n.Count != 1 || n.Caught != "" {
				t.Fatalf("the worker's first news = %+v, want a round that wrote 1", n)
			}
		case <-w.done:
			t.Fatalf("the worker ended: %v", w.err)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		c, _, err := a.Counter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.Writer != "ada" || c.N < 1 {
			t.Errorf("the counter = %+v, want ada's writes", c)
		}
	})

	t.Run("stopped, nothing of it is left", func(t *testing.T) {
		w.stop(false)
		if w.err != nil {
			t.Errorf("a worker stopped by the runner ended with %v", w.err)
		}
		q, err := a.Queue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(entryNames(q), "ada") {
			t.Errorf("ada's lock node is still queued after the worker stopped: %v", entryNames(q))
		}
		if _, err := os.Stat(w.tmp); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the worker's build %s is still there (%v)", w.tmp, err)
		}
		if w.cmd.ProcessState == nil {
			t.Errorf("the worker's process was not waited for")
		}
	})
}

func entryNames(q []arena.Entry) []string {
	var out []string
	for _, e := range q {
		out = append(out, e.Name)
	}
	return out
}

// The worker is the learner's file: one that does not compile does not
// enter, and the error says so; nothing of the build is left.
func TestALearnersFileThatDoesNotCompileEntersNoArena(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build: skipped in -short")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	all, err := course.Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	from := t.TempDir()
	if err := os.WriteFile(filepath.Join(from, "acquire_workshop.go"), []byte("package seqlock\n\nfunc broken( {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err = startPlayer(repo, all, from, "zk://127.0.0.1:1/lockstep-class?code=x", "ada", make(chan runner.ArenaNews, 1))
	if err == nil || !strings.Contains(err.Error(), "build your 04 for the arena") || !strings.Contains(err.Error(), "acquire_workshop.go") {
		t.Fatalf("a broken acquire_workshop.go: startPlayer = %v, want the build's error naming the file", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the failed build left %v in %s", left, tmp)
	}
}
