package zkproxy_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
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
			t.Fatalf("a request took %v through a 100 ms latency toxic", d)
		}
	})
}
