package world

import (
	"context"
	"testing"
	"time"

	seqscene "github.com/lockstep-zk/lockstep/04-sequential-lock/scene"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// A worker's session is one ZooKeeper session: when the server expires it,
// the worker opens a new one and carries on, as an etcd program does when
// its session's Done fires. The view hears the expiry, then the new
// session by its id, and then the worker holding the lock again.
func TestAnExpiredWorkerComesBackWithANewSessionAndLocksAgain(t *testing.T) {
	lo, _ := zktest.SessionBounds(t)
	ch := seqscene.New()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, err := New(ctx, Config{Servers: zktest.Servers(t), Base: zktest.Root(t), Hold: 50 * time.Millisecond, Session: lo})
	if err != nil {
		t.Fatal(err)
	}
	feed := feedOf(t, w)
	if err := w.Start(ch, 1); err != nil {
		t.Fatal(err)
	}
	acquired := func(it worldmsg.Msg) bool {
		e, ok := it.(worldmsg.LockEvent)
		return ok && e.Event.Owner == "worker-1" && e.Event.Kind == event.Acquired
	}
	await(t, feed, "worker-1 holding", acquired)

	old := w.find("worker-1").current()
	expiring := make(chan struct{})
	go func() { defer close(expiring); w.Expire("worker-1") }()
	defer func() { <-expiring }()

	// The expiry takes the cut Expire makes (1.5× the granted timeout and
	// a margin), and then as long as go-zookeeper takes to reconnect and
	// hear it, which is seconds more (a handshake begun during the cut
	// waits for its deadline): a limit, never an expectation.
	within := zktest.Patience
	awaitWithin(t, feed, within, "worker-1 cut off", change("worker-1", worldmsg.CutOff))
	cut := time.Now()
	awaitWithin(t, feed, within, "worker-1's session expired", change("worker-1", worldmsg.Expired))
	t.Logf("the view heard of the expiry %v after the cut (session timeout granted: %v)", time.Since(cut).Round(time.Millisecond), old.timeout)
	select {
	case <-old.ended:
	default:
		t.Fatal("the view says expired, but the worker's old session has not ended")
	}
	var id int64
	await(t, feed, "worker-1 with a new session", func(it worldmsg.Msg) bool {
		c, ok := it.(worldmsg.WorkerChange)
		if ok && c.Name == "worker-1" && c.Session != 0 {
			id = c.Session
		}
		return id != 0
	})
	if id == 0 || id == old.conn.SessionID() {
		t.Fatalf("new session %#x, want one other than the expired %#x", id, old.conn.SessionID())
	}
	if now := w.find("worker-1").current().conn.SessionID(); now != id {
		t.Fatalf("worker-1 works on session %#x, the view was told %#x", now, id)
	}
	await(t, feed, "worker-1 holding again, on its new session", acquired)
}

// awaitWithin is await with a bound of its own.
func awaitWithin(t *testing.T, feed <-chan worldmsg.Msg, d time.Duration, what string, want func(worldmsg.Msg) bool) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case it := <-feed:
			if want(it) {
				return
			}
		case <-deadline:
			t.Fatalf("no %s within %v", what, d)
		}
	}
}
