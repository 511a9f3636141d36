package rwlock_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zksession"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestLostCreateReply injects the failure that made the old copy of the
// plumbing in this chapter orphan a node: the create lands on the server,
// its reply is lost with the connection, and the lookup for our node that
// follows fails too, because the client cannot reach the server yet. The
// old code then created a second node and left the first behind, blocking
// the queue until the session ended. Chapter 04's core keeps looking within
// the session, and cleans up if the caller gives up.
func TestLostCreateReply(t *testing.T) {
	t.Run("the create's reply and the lookup after it both fail: exactly one node of ours, and it gets the lock", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		holder := mutex(t, dir, "holder", nil)
		must(t, holder.Write().Lock(ctx))

		c := cutOff(t, dir)
		done := make(chan error, 1)
		go func() { done <- c.m.Write().Lock(ctx) }()
		ours := c.loseReplyAndLookup(t, admin)
		c.heal(t)

		// The client is back in the same session: its lookup finds the node
		// the lost create made, and it queues with that one node.
		zktest.Eventually(t, zktest.Patience, "the lock never reported finding its node by UUID", func() bool {
			return c.tally.Count(event.Info) > 0
		})
		if nodes := zktest.Tree(t, admin, dir); len(nodes) != 2 {
			t.Fatalf("queue %v: want the holder's node and the one node of ours", nodes)
		}
		must(t, holder.Write().Unlock(ctx))
		await(t, done, "Lock after the lost reply")
		if got := c.m.Write().Node(); got != ours {
			t.Errorf("holds %s, but the node the lost create made is %s", got, ours)
		}
		if n := c.tally.Requests("create"); n != 1 {
			t.Errorf("%d creates, want 1: the lost create must not be repeated", n)
		}
		if c.conn.SessionID() != c.session {
			t.Error("the session expired: this test did not lose a reply within a live session")
		}
		must(t, c.m.Write().Unlock(ctx))
		locktest.AssertClean(t, admin, root, dir)
	})

	t.Run("the caller gives up while the lookup fails: no node of ours is left and the queue moves on", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		holder := mutex(t, dir, "holder", nil)
		must(t, holder.Write().Lock(ctx))

		c := cutOff(t, dir)
		lctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.m.Read().Lock(lctx) }()
		ours := c.loseReplyAndLookup(t, admin)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Lock = %v, want context.Canceled", err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("Lock did not return after its context was cancelled")
		}
		c.heal(t)

		// Behind the orphan a writer would wait for as long as our session
		// lives. It must get the lock once the holder leaves.
		w := mutex(t, dir, "w", nil)
		wdone := lockAsync(ctx, w.Write())
		must(t, holder.Write().Unlock(ctx))
		await(t, wdone, "a writer queued after the cancelled Lock")
		if ok, _, err := admin.Exists(ours); err != nil || ok {
			t.Errorf("the node the lost create made, %s, is still there (err %v)", ours, err)
		}
		if c.conn.SessionID() != c.session {
			t.Error("the session expired: this test did not lose a reply within a live session")
		}
		must(t, w.Write().Unlock(ctx))
		locktest.AssertClean(t, admin, root, dir)
	})
}

// cutOffClient is one client behind its own proxy, whose dials are counted.
type cutOffClient struct {
	m       *rwlock.RWMutex
	conn    *zk.Conn
	proxy   *zkproxy.Proxy
	session int64
	dials   atomic.Int32
	tally   event.Tally
	prefix  atomic.Value // the path the create asked for: dir/_c_<uuid>-<marker>
	lookups atomic.Int32 // listings sent after that create
}

// session is long enough that the server keeps it while the link is down:
// in the second case that is the time to lose the reply and the lookup (a
// second or two), the cancelled Lock's wait for its clean-up while the
// server is out of reach (the core's bound, 5 s), and the reconnect (up to
// a second). With 8 s a loaded machine let the session expire (8.09 s, once
// in CI); the stock server grants up to 40 s.
const cutOffSession = 16 * time.Second

func cutOff(t *testing.T, dir string) *cutOffClient {
	t.Helper()
	c := &cutOffClient{}
	proxy, err := zkproxy.New(zktest.Servers(t)[0])
	must(t, err)
	t.Cleanup(proxy.Close)
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		c.dials.Add(1)
		return net.DialTimeout(network, address, timeout)
	}
	dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := seqlock.NewSession(dctx, []string{proxy.Addr()}, seqlock.WithSessionTimeout(cutOffSession), zksession.DialWith(dialer))
	must(t, err)
	t.Cleanup(s.Close)
	conn := s.Conn()
	c.conn, c.proxy, c.session = conn, proxy, conn.SessionID()
	obs := event.Tee(c.tally.Observe, func(e event.Event) {
		switch {
		case e.Kind == event.Request && e.Op == "create" && e.Detail != "container":
			c.prefix.CompareAndSwap(nil, e.Node)
		case e.Kind == event.Request && e.Op == "children" && c.prefix.Load() != nil:
			c.lookups.Add(1)
		}
	})
	c.m, err = rwlock.New(s, dir, seqlock.WithObserver(obs))
	must(t, err)
	// A Session creates a lock directory the first time it uses it: have
	// it do so now, so that the scene below is about our node's create.
	warm, err := rwlock.New(s, dir)
	must(t, err)
	if err := warm.Read().TryLock(zktest.Context(t)); err == nil {
		must(t, warm.Read().Unlock(zktest.Context(t)))
	} else if !errors.Is(err, rwlock.ErrLocked) {
		t.Fatal(err)
	}
	return c
}

// loseReplyAndLookup holds the server's replies to the client, waits until
// its create has landed (admin sees the node), then takes the proxy down:
// the connection closes, the create's reply is lost, and the lookup that
// follows cannot reach the server. It returns the node the create made
// once go-zookeeper has failed the client's unsent requests with the lookup
// among them: two dials after the lookup was sent, as each round through
// the server list starts by failing unsent requests with ErrNoServer.
func (c *cutOffClient) loseReplyAndLookup(t *testing.T, admin *zk.Conn) (ours string) {
	t.Helper()
	must(t, c.proxy.Latency(time.Hour, 0))
	zktest.Eventually(t, zktest.Patience, "the create never landed on the server", func() bool {
		prefix, _ := c.prefix.Load().(string)
		if prefix == "" {
			return false
		}
		dir := prefix[:strings.LastIndexByte(prefix, '/')]
		for _, n := range zktest.Tree(t, admin, dir) {
			if strings.HasPrefix(n, prefix) {
				ours = n
			}
		}
		return ours != ""
	})
	c.proxy.Down()
	zktest.Eventually(t, zktest.Patience, "the client never looked for its node", func() bool { return c.lookups.Load() > 0 })
	from := c.dials.Load()
	zktest.Eventually(t, 3*zktest.Patience, "the client never tried to reconnect", func() bool { return c.dials.Load() >= from+2 })
	if c.conn.State() == zk.StateHasSession {
		t.Fatal("the client has a session through a proxy that is down")
	}
	return ours
}

// heal brings the proxy back without its latency: the client reconnects
// to its session.
func (c *cutOffClient) heal(t *testing.T) {
	t.Helper()
	c.proxy.Restore()
	must(t, c.proxy.Up())
}
