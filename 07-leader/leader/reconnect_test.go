package leader_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

// A candidate's connection can drop while it waits: the ZooKeeper server it
// was on dies, and go-zookeeper moves the session to another one. Requests
// on their way fail with zk.ErrConnectionClosed, requests sent before a
// server answers fail with zk.ErrNoServer — yet the session, and the
// candidate's node, live on. These tests drop the connection at the exact
// request that matters, with a proxy that reads the client's requests
// (zkproxy's DropOn).
func TestCampaignSurvivesAConnectionThatDrops(t *testing.T) {
	const sessionTimeout = 15 * time.Second // far longer than any outage below

	t.Run("a listing and a watch cut by a dropped connection are asked again, and the candidate leads later", func(t *testing.T) {
		dir := zktest.Root(t) + "/election"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		holder := leadNow(t, seqlocktest.Session(t), dir, "holder")
		conn, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
		sessionID := conn.Conn().SessionID()
		// The waiter's first listing (getChildren2) and its first watch
		// (getData) each lose their connection on the way to the server.
		if err := proxy.DropOn(zkwire.OpGetChildren2, zkwire.OpGetData); err != nil {
			t.Fatal(err)
		}
		tally := &event.Tally{}
		waiter := newElection(t, conn, dir, seqlock.WithObserver(tally.Observe))
		res := campaignInBackground(ctx, waiter, "waiter")
		waitUntilWaiting(t, tally, res)
		if n := proxy.Dropped(); n != 2 {
			t.Fatalf("the proxy dropped %d connections, want 2 (one listing, one watch)", n)
		}
		if conn.Conn().SessionID() != sessionID {
			t.Fatal("the waiter's session changed: this test needs it to survive")
		}
		if n := proxy.Requests(zkwire.OpGetChildren2); n != 2 {
			t.Errorf("%d listings reached the proxy, want 2 (the one cut off, asked again)", n)
		}
		if n := proxy.Requests(zkwire.OpGetData); n != 2 {
			t.Errorf("%d watch requests reached the proxy, want 2 (the one cut off, asked again)", n)
		}
		holderToken := holder.Token()
		if err := holder.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, res, "waiter")
		if waiter.Token() <= holderToken {
			t.Errorf("waiter's token %d, want more than the holder's %d", waiter.Token(), holderToken)
		}
		if err := waiter.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if got := zktest.Tree(t, admin, dir); len(got) != 0 {
			t.Errorf("left in %s:\n  %s", dir, zktest.Describe(got))
		}
	})

	t.Run("a candidate that gives up while no server answers deletes its node once one does", func(t *testing.T) {
		dir := zktest.Root(t) + "/election"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		holder := leadNow(t, seqlocktest.Session(t), dir, "holder")
		holderNodes := zktest.Tree(t, admin, dir)
		conn, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
		sessionID := conn.Conn().SessionID()
		tally := &event.Tally{}
		waiter := newElection(t, conn, dir, seqlock.WithObserver(tally.Observe))
		cctx, cancel := context.WithCancel(ctx)
		res := campaignInBackground(cctx, waiter, "waiter")
		waitUntilWaiting(t, tally, res)
		// The server goes away (as far as this client can tell), and the
		// waiter gives up meanwhile. Its delete finds no server: the
		// client fails it (zk.ErrNoServer) after a round through its
		// server list. Only once the waiter has sent it again does the
		// server come back.
		proxy.Down()
		cancel()
		zktest.Eventually(t, zktest.Patience, "the delete that found no server is sent again", func() bool {
			return tally.Requests("delete") >= 2
		})
		if err := proxy.Up(); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-res:
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("Campaign = %v, want context.Canceled", r.err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("Campaign did not return after its context was cancelled")
		}
		zktest.Eventually(t, zktest.Patience, "the waiter's node is deleted", func() bool {
			return slices.Equal(zktest.Tree(t, admin, dir), holderNodes)
		})
		if conn.Conn().SessionID() != sessionID {
			t.Error("the waiter's session changed: its node may have gone with it, not by its delete")
		}
		t.Logf("%d deletes until one reached the server", tally.Requests("delete"))
		if err := holder.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// waitUntilWaiting waits until the candidate reports it waits, and fails at
// once if its Campaign returns instead.
func waitUntilWaiting(t testing.TB, tally *event.Tally, res <-chan campaignResult) {
	t.Helper()
	deadline := time.After(zktest.Patience)
	for tally.Count(event.Waiting) == 0 {
		select {
		case r := <-res:
			t.Fatalf("Campaign returned %v before it waited", r.err)
		case <-deadline:
			t.Fatal("the candidate never waited")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A question to the election can lose its connection too: the asker's
// listing, or its read of the leader's data, is cut on its way. That is no
// answer. Leader must say it could not tell — not that nobody leads, not a
// leader without its value — and Observe must ask again once the session is
// back, since its caller is still listening.
func TestAQuestionCutByADroppedConnectionIsNoAnswer(t *testing.T) {
	const sessionTimeout = 15 * time.Second // far longer than any outage below
	// After a drop, go-zookeeper waits a second before it dials its only
	// server again (conn.go's connect, when its server list has come round):
	// an observer can report only after that.
	const reconnectedWithin = reportWithin + time.Second

	// cut makes a candidate lead, opens an asker through a proxy that
	// drops the asker's next request with opcode op, and returns both.
	cut := func(t *testing.T, op int32) (*leader.Election, *leader.Election, *zkproxy.Proxy) {
		t.Helper()
		dir := zktest.Root(t) + "/election"
		alpha := leadNow(t, seqlocktest.Session(t), dir, "alpha")
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), zktest.Patience)
			defer cancel()
			if err := alpha.Resign(ctx); err != nil {
				t.Error(err)
			}
		})
		conn, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
		asker := newElection(t, conn, dir)
		if err := proxy.DropOn(op); err != nil {
			t.Fatal(err)
		}
		return alpha, asker, proxy
	}
	dropped := func(t *testing.T, proxy *zkproxy.Proxy) {
		t.Helper()
		if n := proxy.Dropped(); n != 1 {
			t.Fatalf("the proxy dropped %d connections, want 1", n)
		}
	}
	observe := func(t *testing.T, asker, alpha *leader.Election, proxy *zkproxy.Proxy, why string) {
		t.Helper()
		octx, stop := context.WithCancel(zktest.Context(t))
		defer stop()
		select {
		case l, ok := <-asker.Observe(octx):
			if !ok {
				t.Fatalf("Observe's channel closed after one dropped connection: %s", why)
			}
			if l.Value != "alpha" || l.Node != alpha.Node() {
				t.Fatalf("Observe reported %+v, want alpha (%s): %s", l, alpha.Node(), why)
			}
		case <-time.After(reconnectedWithin):
			t.Fatalf("Observe reported nothing within %v while alpha leads: %s", reconnectedWithin, why)
		}
		dropped(t, proxy)
	}

	t.Run("Leader whose listing is cut says it could not tell, not that nobody leads", func(t *testing.T) {
		_, asker, proxy := cut(t, zkwire.OpGetChildren2)
		l, err := asker.Leader(zktest.Context(t))
		dropped(t, proxy)
		if errors.Is(err, leader.ErrNoLeader) || !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("Leader = %+v, %v; want zk.ErrConnectionClosed: alpha leads, the asker just could not see it", l, err)
		}
	})
	t.Run("Leader whose read of the leader's data is cut returns the error, not a leader without a value", func(t *testing.T) {
		_, asker, proxy := cut(t, zkwire.OpGetData)
		l, err := asker.Leader(zktest.Context(t))
		dropped(t, proxy)
		if !errors.Is(err, zk.ErrConnectionClosed) || l != (leader.Leadership{}) {
			t.Fatalf("Leader = %+v, %v; want no leadership and zk.ErrConnectionClosed: the leader's value was never read", l, err)
		}
	})
	t.Run("Observe whose listing is cut lists again once reconnected and reports the leader", func(t *testing.T) {
		alpha, asker, proxy := cut(t, zkwire.OpGetChildren2)
		observe(t, asker, alpha, proxy, "a listing that failed set no watch, so only a new listing can report a leader; and while ctx lives, a lost connection is no reason to stop")
	})
	t.Run("Observe whose read of the leader's data is cut reads again and reports the leader with its value", func(t *testing.T) {
		alpha, asker, proxy := cut(t, zkwire.OpGetData)
		observe(t, asker, alpha, proxy, "the read failed, so the leader's value is unknown: ask again, do not report it empty")
	})
}
