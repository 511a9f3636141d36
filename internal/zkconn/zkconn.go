// Package zkconn connects to ZooKeeper the way demos and tests need it:
// Dial waits for a session (zk.Connect does not) and authenticates it when
// ZK_AUTH says so (zksession does the work); Expire ends a session for
// real through a Link that can be cut (internal/zkproxy's toxiproxy in
// tests, internal/demo's in-process link in the demos).
package zkconn

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// DefaultSessionTimeout is what demos and tests ask for unless they say otherwise.
const DefaultSessionTimeout = zksession.DefaultTimeout

// Dial connects to servers and waits until the session is established (see
// zksession.Dial, which does the work: it refuses a chroot, gives up once
// the list has been tried, and learns the granted timeout). Chapters 01–03
// and the harness's admin sessions use it; a lock from chapter 04 on lives
// on a seqlock.Session instead.
//
// With ZK_AUTH=user:password in the environment the session authenticates
// with ZooKeeper's digest scheme before Dial returns.
//
// opts are go-zookeeper connection options (zk.WithEventCallback(…), …);
// give a dialer with WithDialer below, not zk.WithDialer, or the granted
// timeout goes unread.
func Dial(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event, error) {
	d, err := DialGranted(ctx, servers, sessionTimeout, opts...)
	if err != nil {
		return nil, nil, err
	}
	return d.Conn, d.Events, nil
}

// DialGranted is Dial for callers that need what the server granted
// (Dialled.Timeout) or the credentials (Dialled.Auth).
func DialGranted(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zksession.Dialled, error) {
	auth, err := AuthFromEnv()
	if err != nil {
		return nil, err
	}
	d, err := zksession.Dial(ctx, servers, zksession.Config{Timeout: sessionTimeout, Auth: auth, ZKOptions: opts})
	if err != nil {
		return nil, fmt.Errorf("zkconn: %w", err)
	}
	return d, nil
}

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

// WithDialer is zk.WithDialer for Dial: d dials, and the granted session
// timeout is still read on each connection d opens.
func WithDialer(d zk.Dialer) func(*zk.Conn) { return zksession.WithDialer(d) }

// Drain reads a connection's event channel until it closes, so go-zookeeper
// never drops events for lack of a reader. Callers that don't care about
// session events run it in a goroutine.
func Drain(events <-chan zk.Event) {
	for range events {
	}
}
