package zkproxy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func TestProxy(t *testing.T) {
	root := zktest.Root(t)
	observer := zktest.Connect(t)
	t.Run("Expire makes the server end the session: its ephemeral node goes and the conn gets a new session", func(t *testing.T) {
		const timeout = time.Second
		conn, proxy := zktest.ConnectViaProxy(t, timeout)
		if _, err := conn.Create(root+"/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		old := conn.SessionID()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := proxy.Expire(ctx, conn, timeout); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := observer.Exists(root + "/mine"); err != nil || ok {
			t.Fatalf("ephemeral node still exists (err %v) after its session expired", err)
		}
		zktest.Eventually(t, 30*time.Second, "the conn never got a new session", func() bool {
			return conn.State() == zk.StateHasSession && conn.SessionID() != old
		})
	})
	t.Run("a short Cut keeps the session: the ephemeral node survives", func(t *testing.T) {
		const timeout = 4 * time.Second
		conn, proxy := zktest.ConnectViaProxy(t, timeout)
		if _, err := conn.Create(root+"/kept", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		old := conn.SessionID()
		if err := proxy.Cut(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		proxy.Restore()
		if _, err := conn.Sync(root); err != nil {
			t.Fatalf("after Restore: %v", err)
		}
		if ok, _, _ := observer.Exists(root + "/kept"); !ok || conn.SessionID() != old {
			t.Fatalf("exists=%v session %#x→%#x: a short cut must not end the session", ok, old, conn.SessionID())
		}
	})
	t.Run("DropOn fails the one request under it with ErrConnectionClosed, and the session lives on", func(t *testing.T) {
		conn, proxy := zktest.ConnectViaProxy(t, 4*time.Second)
		old := conn.SessionID()
		if _, _, err := conn.Get(root); err != nil { // not trapped: it passes
			t.Fatal(err)
		}
		if err := proxy.DropOn(zkwire.OpGetChildren2); err != nil {
			t.Fatal(err)
		}
		if _, _, err := conn.Children(root); !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("Children under the trap = %v, want zk.ErrConnectionClosed", err)
		}
		// go-zookeeper reconnects on its own; the listing is asked again.
		zktest.Eventually(t, 30*time.Second, "a listing never succeeded after the drop", func() bool {
			_, _, err := conn.Children(root)
			return err == nil
		})
		if conn.SessionID() != old {
			t.Fatalf("session %#x→%#x: a dropped connection must not end the session", old, conn.SessionID())
		}
		if n, m := proxy.Dropped(), proxy.Requests(zkwire.OpGetChildren2); n != 1 || m < 2 {
			t.Fatalf("Dropped = %d, Requests(getChildren2) = %d; want 1 and at least 2", n, m)
		}
	})
	t.Run("Latency slows every reply down", func(t *testing.T) {
		conn, proxy := zktest.ConnectViaProxy(t, 4*time.Second)
		if err := proxy.Latency(100*time.Millisecond, 0); err != nil {
			t.Fatal(err)
		}
		defer proxy.Restore()
		start := time.Now()
		if _, _, err := conn.Exists(root); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 100*time.Millisecond {
			t.Fatalf("a request took %v through a latency of 100 ms", d)
		}
	})
}

// The demos dial through a Link in their own process (Link.Dial, no
// listener): a cut longer than the session ends it on the server, and a
// cut holds a request until Restore instead of losing it.
func TestLinkDial(t *testing.T) {
	root := zktest.Root(t)
	observer := zktest.Connect(t)
	dial := func(t *testing.T, timeout time.Duration) (*zk.Conn, *zkproxy.Link, time.Duration) {
		t.Helper()
		link := zkproxy.NewLink()
		t.Cleanup(link.Close)
		d, err := zksession.ConnectGranted(zktest.Context(t), zktest.Servers(t), timeout, zksession.WithDialer(link.Dial))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { link.Restore(); d.Conn.Close() })
		go zksession.Drain(d.Events)
		return d.Conn, link, d.Timeout()
	}

	t.Run("Expire through a Link ends the session: its ephemeral node goes", func(t *testing.T) {
		conn, link, granted := dial(t, time.Second)
		if _, err := conn.Create(root+"/expired", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		old := conn.SessionID()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := link.Expire(ctx, conn, granted); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := observer.Exists(root + "/expired"); err != nil || ok {
			t.Fatalf("ephemeral node still exists (err %v) after the session expired", err)
		}
		zktest.Eventually(t, 30*time.Second, "the conn never got a new session", func() bool {
			return conn.State() == zk.StateHasSession && conn.SessionID() != old
		})
	})

	t.Run("a request sent during a short cut waits for Restore and is not lost", func(t *testing.T) {
		conn, link, _ := dial(t, 4*time.Second)
		old := conn.SessionID()
		if err := link.Cut(); err != nil {
			t.Fatal(err)
		}
		created := make(chan error, 1)
		go func() {
			_, err := conn.Create(root+"/held", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
			created <- err
		}()
		// The server has not seen it (TestRelay shows, byte by byte, that
		// a cut holds what the client sent; here the request is whole).
		if _, err := observer.Sync(root); err != nil {
			t.Fatal(err)
		}
		if ok, _, err := observer.Exists(root + "/held"); err != nil || ok || len(created) > 0 {
			t.Fatalf("exists=%v (err %v), create returned=%v: the create went through a cut link", ok, err, len(created) > 0)
		}
		link.Restore()
		select {
		case err := <-created:
			if err != nil {
				t.Fatalf("create after Restore: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the held create never completed after Restore")
		}
		if ok, _, _ := observer.Exists(root + "/held"); !ok || conn.SessionID() != old {
			t.Fatalf("exists=%v session %#x→%#x: a short cut must keep the session and deliver the request", ok, old, conn.SessionID())
		}
	})
}
