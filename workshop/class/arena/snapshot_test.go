package arena_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

// Follow is what the host's screen and the projector read: a Snapshot at
// every change, on watches. Each step below waits for the Snapshot that
// shows it, never for time.
func TestFollowShowsEveryChangeOfTheArena(t *testing.T) {
	r := newRoom(t)
	ctx, cancel := context.WithCancel(zktest.Context(t))
	defer cancel()
	snaps := make(chan arena.Snapshot, 64)
	followed := make(chan error, 1)
	go func() { followed <- r.host.Follow(ctx, snaps) }()
	until := func(what string, ok func(arena.Snapshot) bool) arena.Snapshot {
		t.Helper()
		for {
			select {
			case s := <-snaps:
				if ok(s) {
					return s
				}
			case err := <-followed:
				t.Fatalf("Follow ended before %s: %v", what, err)
			case <-ctx.Done():
				t.Fatalf("no snapshot showed %s: %v", what, ctx.Err())
			}
		}
	}
	until("the empty arena", func(s arena.Snapshot) bool { return s.Holder() == "" && s.Counter.N == 0 && !s.Paused })

	ada, bob := r.learner(t, "ada"), r.learner(t, "bob")
	adaLock := ada.mutex(t, r)
	holder := ada.worker(adaLock)
	g := newGate()
	holder.Inside = g.wait
	adaDone := round(ctx, holder)
	zktest.Await(t, g.inside, "ada inside the class lock")
	bobDone := round(ctx, bob.worker(bob.mutex(t, r)))
	s := until("ada holding, bob queued", func(s arena.Snapshot) bool { return len(s.Queue) == 2 })
	if s.Holder() != "ada" || s.Queue[1].Name != "bob" {
		t.Fatalf("the queue %v, want ada holding, bob waiting", s.Queue)
	}

	if _, err := r.host.TakeOut(ctx, "ada"); err != nil {
		t.Fatal(err)
	}
	zktest.Await(t, bobDone, "bob's round once ada is out")
	until("bob's write", func(s arena.Snapshot) bool { return s.Counter.N == 1 && s.Counter.Writer == "bob" })
	close(g.open)
	zktest.Await(t, adaDone, "ada's round")
	s = until("ada's refused write", func(s arena.Snapshot) bool { return len(s.Caught) == 1 })
	if c := s.Caught[0].String(); !strings.Contains(c, "ada") || !strings.Contains(c, "bob") {
		t.Errorf("the catch reads %q: want both learners named", c)
	}

	if err := r.host.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	until("the pause", func(s arena.Snapshot) bool { return s.Paused })
}

// At finds the arena from its directory or from its class lock's (what an
// observer is pointed at), and says no for any other lock directory.
func TestAtFindsTheArenaOfALockDirectory(t *testing.T) {
	r := newRoom(t)
	conn := r.conn(t, zksession.DefaultTimeout)
	for _, dir := range []string{r.host.Dir(), r.host.LockDir()} {
		a, ok, err := arena.At(zktest.Context(t), conn, dir)
		if err != nil || !ok || a.Dir() != r.host.Dir() {
			t.Errorf("At(%s) = %v, %v, %v: want the arena %s", dir, a, ok, err, r.host.Dir())
		}
	}
	other := zktest.Root(t) + "/locks"
	if _, err := conn.Create(other, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := arena.At(zktest.Context(t), conn, other); ok || err != nil {
		t.Errorf("At(%s), a lock directory of no arena = %v, %v: want no arena, no error", other, ok, err)
	}
}
