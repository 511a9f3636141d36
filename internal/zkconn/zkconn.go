// Package zkconn connects to ZooKeeper the way demos and tests need it:
// Dial waits for a session (zk.Connect does not), authenticates it when
// ZK_AUTH says so, and registers it with zksession (which then knows the
// session timeout the server granted and the ACL our nodes get); Proxy puts a
// toxiproxy between one client and the server so that client alone can be
// cut off, slowed down, or have its session expired for real.
package zkconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// DefaultSessionTimeout is what demos and tests ask for unless they say otherwise.
const DefaultSessionTimeout = 4 * time.Second

// Dial connects to servers and waits until the session is established, the
// context ends, or no server could be reached once through the whole list
// (zk.Connect alone never fails for an unreachable server: it retries for
// ever). The go-zookeeper logger is routed to slog at debug level.
//
// sessionTimeout is what we ask for; the server grants something between
// its minSessionTimeout and maxSessionTimeout (2 and 20 ticks unless set),
// and zksession.Timeout(conn) says what it granted.
//
// With ZK_AUTH=user:password in the environment the session authenticates
// with ZooKeeper's digest scheme before Dial returns (go-zookeeper sends
// the credentials again after every reconnect), and zksession.ACL(conn)
// is then creator-only.
//
// opts are go-zookeeper connection options (zk.WithEventCallback(…), …);
// give a dialer with WithDialer below, not zk.WithDialer, or the granted
// timeout goes unrecorded.
func Dial(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event, error) {
	if len(servers) == 0 {
		return nil, nil, fmt.Errorf("zkconn: no servers to dial")
	}
	auth, err := AuthFromEnv()
	if err != nil {
		return nil, nil, err
	}
	rec := zksession.NewRecorder()
	all := func(c *zk.Conn) {
		zk.WithLogger(slogLogger{})(c)
		zk.WithLogInfo(false)(c)
		zk.WithDialer(rec.Dialer(nil))(c)
		building.Store(c, rec)
		defer building.Delete(c)
		for _, o := range opts {
			o(c)
		}
	}
	conn, events, err := zk.Connect(servers, sessionTimeout, all)
	if err != nil {
		return nil, nil, fmt.Errorf("zkconn: connect to %v: %w", servers, err)
	}
	zksession.Register(conn, rec, auth)
	// go-zookeeper spends 1 s per failed dial and then pauses 1 s before
	// starting over, so two rounds through the list are a fair bound for
	// reaching a server. Once one has accepted the connection, a busy
	// server (a loaded machine, a long GC pause) may take longer to grant
	// the session: that gets slowSession.
	giveUp := time.NewTimer(time.Duration(2*len(servers)+1) * time.Second)
	defer giveUp.Stop()
	reached := false
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, nil, fmt.Errorf("zkconn: connect to %v: connection closed", servers)
			}
			if ev.State == zk.StateConnected && !reached {
				reached = true
				giveUp.Reset(slowSession)
			}
			if ev.State != zk.StateHasSession {
				continue
			}
			if auth != nil {
				if err := conn.AddAuth(auth.Scheme, auth.Credentials()); err != nil {
					conn.Close()
					return nil, nil, fmt.Errorf("zkconn: authenticate as %s (ZK_AUTH): %w", auth, err)
				}
			}
			return conn, events, nil
		case <-giveUp.C:
			conn.Close()
			if reached {
				return nil, nil, fmt.Errorf("zkconn: connect to %v: %w: a server accepted the connection but granted no session in %v (overloaded, or more connections from this address than its maxClientCnxns allows)", servers, zk.ErrNoServer, slowSession)
			}
			return nil, nil, fmt.Errorf("zkconn: connect to %v: %w", servers, zk.ErrNoServer)
		case <-ctx.Done():
			conn.Close()
			return nil, nil, fmt.Errorf("zkconn: connect to %v: %w", servers, ctx.Err())
		}
	}
}

// slowSession bounds the wait for a session once a server has accepted the
// connection.
const slowSession = 30 * time.Second

// AuthEnv names the environment variable that holds user:password for
// ZooKeeper's digest authentication.
const AuthEnv = "ZK_AUTH"

// AuthFromEnv parses ZK_AUTH; nil when it is unset or empty.
func AuthFromEnv() (*zksession.Auth, error) {
	s := os.Getenv(AuthEnv)
	if s == "" {
		return nil, nil
	}
	a, err := zksession.ParseAuth(s)
	if err != nil {
		return nil, fmt.Errorf("zkconn: %s: %w", AuthEnv, err)
	}
	return a, nil
}

// building holds, while Dial applies the options of a conn being built,
// that conn's Recorder, so that WithDialer can put it in front.
var building sync.Map // *zk.Conn → *zksession.Recorder

// WithDialer is zk.WithDialer for Dial: d dials, and zksession still reads
// the session timeout the server grants on each connection d opens.
func WithDialer(d zk.Dialer) func(*zk.Conn) {
	return func(c *zk.Conn) {
		if rec, ok := building.Load(c); ok {
			d = rec.(*zksession.Recorder).Dialer(d)
		}
		zk.WithDialer(d)(c)
	}
}

// slogLogger adapts go-zookeeper's Printf logger to slog.
type slogLogger struct{}

func (slogLogger) Printf(format string, args ...any) {
	slog.Debug(fmt.Sprintf(format, args...), "component", "go-zookeeper")
}

// Drain reads a connection's event channel until it closes, so go-zookeeper
// never drops events for lack of a reader. Callers that don't care about
// session events run it in a goroutine.
func Drain(events <-chan zk.Event) {
	for range events {
	}
}

// DeleteTree deletes p and everything below it; a missing node is fine.
// (Demos, the bench, the visualizer and the tests all clean up with it.)
func DeleteTree(conn *zk.Conn, p string) error {
	children, _, err := conn.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := DeleteTree(conn, path.Join(p, c)); err != nil {
			return err
		}
	}
	if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}
