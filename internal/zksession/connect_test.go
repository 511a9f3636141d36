package zksession_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func TestDial(t *testing.T) {
	t.Run("it returns once the session exists", func(t *testing.T) {
		conn, events, err := zksession.Connect(context.Background(), zktest.Servers(t), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go zksession.Drain(events)
		if conn.State() != zk.StateHasSession || conn.SessionID() == 0 {
			t.Fatalf("state %v, session %#x", conn.State(), conn.SessionID())
		}
	})
	t.Run("an unreachable server is an error, not a hang", func(t *testing.T) {
		start := time.Now()
		_, _, err := zksession.Connect(context.Background(), []string{"127.0.0.1:1"}, 2*time.Second)
		if !errors.Is(err, zk.ErrNoServer) {
			t.Fatalf("err = %v, want zk.ErrNoServer", err)
		}
		t.Logf("gave up after %v", time.Since(start).Round(time.Millisecond))
	})
	t.Run("a cancelled context stops the dial", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := zksession.Connect(ctx, []string{"127.0.0.1:1"}, 2*time.Second); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("a chroot is refused at once, naming it", func(t *testing.T) {
		_, _, err := zksession.Connect(context.Background(), []string{"127.0.0.1:1/app"}, time.Second)
		if !errors.Is(err, zksession.ErrChroot) || !strings.Contains(err.Error(), `"/app"`) {
			t.Fatalf("Dial = %v, want ErrChroot naming /app", err)
		}
	})
	t.Run("no servers is an error", func(t *testing.T) {
		if _, _, err := zksession.Connect(context.Background(), nil, time.Second); err == nil {
			t.Fatal("Dial with no servers succeeded")
		}
	})
}

// DialGranted reads the timeout the server granted from the wire: a server clamps what the client asks for
// into [minSessionTimeout, maxSessionTimeout], whatever the server is.
func TestDialRecordsTheGrantedTimeout(t *testing.T) {
	granted := func(ask time.Duration) time.Duration {
		conn := zktest.ConnectTimeout(t, ask)
		d := zktest.SessionTimeout(t, conn)
		if d <= 0 {
			t.Fatalf("asked %v: Timeout = %v, want what the server granted", ask, d)
		}
		return d
	}
	lo, hi := granted(time.Millisecond), granted(time.Hour) // the server's minSessionTimeout and maxSessionTimeout
	if lo <= time.Millisecond || hi >= time.Hour || lo > hi {
		t.Fatalf("bounds [%v, %v]: no clamp seen", lo, hi)
	}
	t.Logf("this server grants sessions of %v to %v", lo, hi)
	ask := time.Second
	want := min(max(ask, lo), hi)
	if got := granted(ask); got != want {
		t.Fatalf("asked %v from a server granting [%v, %v]: Timeout = %v, want %v", ask, lo, hi, got, want)
	}
	t.Run("WithDialer keeps the recording", func(t *testing.T) {
		var dials atomic.Int32
		d := func(network, addr string, timeout time.Duration) (net.Conn, error) {
			dials.Add(1)
			return net.DialTimeout(network, addr, timeout)
		}
		dd, err := zksession.ConnectGranted(zktest.Context(t), zktest.Servers(t), time.Hour, zksession.WithDialer(d))
		if err != nil {
			t.Fatal(err)
		}
		defer dd.Conn.Close()
		if dials.Load() == 0 || dd.Timeout() != hi {
			t.Fatalf("dials %d, Timeout %v: want ≥ 1 and %v", dials.Load(), dd.Timeout(), hi)
		}
	})
}

// ZK_AUTH=user:password: every session authenticates with the digest
// scheme, the nodes the course creates are creator-only, and another
// password is refused at once with an error that names ZK_AUTH.
func TestAuth(t *testing.T) {
	t.Setenv(zksession.AuthEnv, "alice:right")
	owner := zktest.Connect(t)
	node := "/zksession-auth-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := owner.Create(node, []byte("secret"), 0, zktest.ACL(owner)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Delete(node, -1) })
	acl, _, err := owner.GetACL(node)
	if err != nil {
		t.Fatal(err)
	}
	if len(acl) != 1 || acl[0].Scheme != "digest" || !strings.HasPrefix(acl[0].ID, "alice:") || acl[0].Perms != zk.PermAll {
		t.Fatalf("ACL = %+v, want creator-only (digest alice:…, all permissions)", acl)
	}

	t.Run("the same credentials get in, also after a reconnect", func(t *testing.T) {
		conn, proxy := zktest.ConnectViaProxy(t, 4*time.Second)
		if _, _, err := conn.Get(node); err != nil {
			t.Fatal(err)
		}
		old := conn.SessionID()
		if err := proxy.Drop(); err != nil {
			t.Fatal(err)
		}
		// The first requests may meet the dropped connection (ErrConnectionClosed)
		// or the reconnect in progress (go-zookeeper fails queued requests
		// with ErrNoServer while it cycles through its servers); the conn
		// then reconnects, and go-zookeeper sends the credentials again.
		var err error
		zktest.Eventually(t, zktest.Patience, "no read after the reconnect", func() bool {
			_, _, err = conn.Get(node)
			return !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrNoServer)
		})
		if err != nil || conn.SessionID() != old {
			t.Fatalf("after a reconnect to session %#x (was %#x): %v", conn.SessionID(), old, err)
		}
	})
	for _, who := range []string{"alice:wrong", ""} {
		t.Run("ZK_AUTH="+who+" is refused at once, with a hint", func(t *testing.T) {
			t.Setenv(zksession.AuthEnv, who)
			conn := zktest.Connect(t)
			start := time.Now()
			_, _, err := conn.Get(node)
			if !errors.Is(err, zk.ErrNoAuth) {
				t.Fatalf("Get = %v, want zk.ErrNoAuth", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("refused after %v, want at once", d)
			}
			auth, _ := zksession.AuthFromEnv()
			msg := zksession.Explain(auth, err).Error()
			if !errors.Is(zksession.Explain(auth, err), zk.ErrNoAuth) || !strings.Contains(msg, "ZK_AUTH") {
				t.Fatalf("Explain = %q: want zk.ErrNoAuth wrapped with a hint about ZK_AUTH", msg)
			}
			t.Log(msg)
		})
	}
	t.Run("a malformed ZK_AUTH is a clear error from Dial", func(t *testing.T) {
		t.Setenv(zksession.AuthEnv, "no-colon")
		_, _, err := zksession.Connect(context.Background(), zktest.Servers(t), time.Second)
		if err == nil || !strings.Contains(err.Error(), "ZK_AUTH") || !strings.Contains(err.Error(), "user:password") {
			t.Fatalf("err = %v, want one naming ZK_AUTH and user:password", err)
		}
	})
}
