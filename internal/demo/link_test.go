package demo

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// The demos cut a client off with a Link instead of a toxiproxy; it must
// do what the lessons say: a cut longer than the session ends the session
// on the server, and a cut holds a request until Restore instead of losing it.
func TestLink(t *testing.T) {
	root := zktest.Root(t)
	observer := zktest.Connect(t)
	dial := func(t *testing.T, timeout time.Duration) (*zk.Conn, *Link, time.Duration) {
		t.Helper()
		link := newLink()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := zksession.ConnectGranted(ctx, zktest.Servers(t), timeout, zksession.WithDialer(link.dial))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { link.Restore(); d.Conn.Close() })
		go zksession.Drain(d.Events)
		return d.Conn, link, d.Timeout()
	}

	t.Run("zksession.Expire over a Link ends the session: its ephemeral node goes", func(t *testing.T) {
		conn, link, granted := dial(t, time.Second)
		if _, err := conn.Create(root+"/expired", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		old := conn.SessionID()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := zksession.Expire(ctx, link, conn, granted); err != nil {
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
		// The server must not see the create while the link is cut.
		zktest.Eventually(t, 10*time.Second, "the create never reached the client's send loop", func() bool {
			ok, _, err := observer.Exists(root + "/held")
			return err == nil && !ok && len(created) == 0
		})
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
