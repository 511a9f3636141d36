package zksession

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// A Link is what stands between one client and the server and can go
// silent: internal/zkproxy's relay, which the tests, the visualizer and the
// demos use. Cut holds the bytes both ways; Restore lets them flow again.
type Link interface {
	Cut() error
	Restore()
}

// Expire makes the server expire conn's session for real, on any server:
// it cuts the link conn goes through and keeps it cut until the session
// can no longer exist, then restores the link and waits until conn has
// learned it (its session ID changes or it reports StateExpired).
//
// How long "can no longer exist" takes is the server's business: it
// expires a session between its granted timeout and one tick later
// (ZooKeeper checks sessions once a tick, and a tick is at most half the
// smallest session it grants). So Expire waits 1.5× the timeout the server
// granted conn (sessionTimeout: pass what it granted, not what was asked)
// plus a margin. Should the session still be alive when the link
// comes back (a server with a custom minSessionTimeout), conn reconnects to
// it, and Expire cuts again for longer, until ctx ends.
func Expire(ctx context.Context, link Link, conn *zk.Conn, sessionTimeout time.Duration) error {
	old := conn.SessionID()
	timeout := sessionTimeout
	expired := func() bool { return conn.SessionID() != old || conn.State() == zk.StateExpired }
	for attempt := 1; ; attempt++ {
		if err := link.Cut(); err != nil {
			return err
		}
		wait := time.Duration(attempt)*timeout + timeout/2 + 500*time.Millisecond
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			link.Restore()
			return ctx.Err()
		}
		link.Restore()
		for {
			if expired() {
				return nil
			}
			// Back in a session with the old ID: it outlived the cut.
			if conn.State() == zk.StateHasSession && conn.SessionID() == old && reconnected(conn) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("zksession: session %#x not expired yet: %w", old, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// reconnected reports whether conn has a live connection through the link now: a
// request succeeds. (Right after Restore, conn may still believe in the
// connection the cut broke; a request tells.)
func reconnected(conn *zk.Conn) bool {
	_, err := conn.Sync("/")
	return err == nil
}
