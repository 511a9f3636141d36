package zksession

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
)

// Connect is Dial for a plain conn: it connects to servers and waits until
// the session is established (Dial refuses a chroot, gives up once the
// list has been tried, and learns the granted timeout). Chapters 01–03 and
// the harness's admin sessions use it; a lock from chapter 04 on lives on
// a seqlock.Session instead.
//
// With ZK_AUTH=user:password in the environment the session authenticates
// with ZooKeeper's digest scheme before Connect returns.
//
// opts are go-zookeeper connection options (zk.WithEventCallback(…), …);
// give a dialer with WithDialer, not zk.WithDialer, or the granted timeout
// goes unread.
func Connect(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event, error) {
	d, err := ConnectGranted(ctx, servers, sessionTimeout, opts...)
	if err != nil {
		return nil, nil, err
	}
	return d.Conn, d.Events, nil
}

// ConnectGranted is Connect for callers that need what the server granted
// (Dialled.Timeout) or the credentials (Dialled.Auth).
func ConnectGranted(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*Dialled, error) {
	auth, err := AuthFromEnv()
	if err != nil {
		return nil, err
	}
	return Dial(ctx, servers, Config{Timeout: sessionTimeout, Auth: auth, ZKOptions: opts})
}

// AuthEnv names the environment variable that holds user:password for
// ZooKeeper's digest authentication.
const AuthEnv = "ZK_AUTH"

// AuthFromEnv parses ZK_AUTH; nil when it is unset or empty.
func AuthFromEnv() (*Auth, error) {
	s := os.Getenv(AuthEnv)
	if s == "" {
		return nil, nil
	}
	a, err := ParseAuth(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", AuthEnv, err)
	}
	return a, nil
}

// Drain reads a connection's event channel until it closes, so go-zookeeper
// never drops events for lack of a reader. Callers that don't care about
// session events run it in a goroutine.
func Drain(events <-chan zk.Event) {
	for range events {
	}
}
