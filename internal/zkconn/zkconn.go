// Package zkconn connects to ZooKeeper the way demos and tests need it:
// Dial waits for a session (zk.Connect does not), and Proxy puts a
// toxiproxy between one client and the server so that client alone can be
// cut off, slowed down, or have its session expired for real.
package zkconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultSessionTimeout is what demos and tests ask for unless they say otherwise.
const DefaultSessionTimeout = 4 * time.Second

// Dial connects to servers and waits until the session is established, the
// context ends, or no server could be reached once through the whole list
// (zk.Connect alone never fails for an unreachable server: it retries for
// ever). The go-zookeeper logger is routed to slog at debug level.
//
// opts are go-zookeeper connection options (zk.WithDialer(…), …).
func Dial(ctx context.Context, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event, error) {
	if len(servers) == 0 {
		return nil, nil, fmt.Errorf("zkconn: no servers to dial")
	}
	all := func(c *zk.Conn) {
		zk.WithLogger(slogLogger{})(c)
		zk.WithLogInfo(false)(c)
		for _, o := range opts {
			o(c)
		}
	}
	conn, events, err := zk.Connect(servers, sessionTimeout, all)
	if err != nil {
		return nil, nil, fmt.Errorf("zkconn: connect to %v: %w", servers, err)
	}
	// go-zookeeper spends 1 s per failed dial and then pauses 1 s before
	// starting over, so two rounds through the list are a fair bound.
	giveUp := time.NewTimer(time.Duration(2*len(servers)+1) * time.Second)
	defer giveUp.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, nil, fmt.Errorf("zkconn: connect to %v: connection closed", servers)
			}
			if ev.State == zk.StateHasSession {
				return conn, events, nil
			}
		case <-giveUp.C:
			conn.Close()
			return nil, nil, fmt.Errorf("zkconn: connect to %v: %w", servers, zk.ErrNoServer)
		case <-ctx.Done():
			conn.Close()
			return nil, nil, fmt.Errorf("zkconn: connect to %v: %w", servers, ctx.Err())
		}
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
