package zksession

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkwire"
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

// ErrNoPassword is returned by ExpireNow for a conn whose session password
// it does not know: the conn was not opened by Dial (or Connect), or its
// session has ended.
var ErrNoPassword = errors.New("zksession: the session's password is unknown (the conn was not dialled by zksession.Dial)")

// passwords holds the password of every live session a Recorder saw
// granted in this process, by session ID: what ExpireNow presents to take
// a session over. go-zookeeper keeps its own copy unexported.
var passwords sync.Map // int64 → []byte

// ExpireNow makes the server end conn's session at once, and waits until
// conn has learned it (its session ID changes or it reports StateExpired).
//
// It is what the ZooKeeper FAQ suggests for tests, and what Curator's
// KillSession did before 3.0 (curator-test's
// com/netflix/curator/test/KillSession.java): a second connection presents
// the session's ID and password, which takes the session over (the server
// closes conn's connection), and sends closeSession on it. The server then
// deletes the session's ephemeral nodes and fires their watches, as on an
// expiry; conn, reconnecting, is told its session has expired. go-zookeeper
// waits 1 s before it dials again a server list it has been through (a
// list of one: every time), so conn learns it about 1 s later.
//
// servers are where the second connection goes, straight to ZooKeeper (the
// first that answers; none: conn.Server()). If link is not nil (conn goes
// through it), ExpireNow cuts it first, so that conn cannot win the session
// back in between, and restores it (ending every fault, as Expire does)
// once the session is over.
//
// Use Expire instead where the test is about the timeout itself: ExpireNow
// ends the session without waiting for it.
func ExpireNow(ctx context.Context, link Link, servers []string, conn *zk.Conn) error {
	id := conn.SessionID()
	pw, ok := passwords.Load(id)
	if id == 0 || !ok {
		return ErrNoPassword
	}
	if len(servers) == 0 {
		servers = []string{conn.Server()}
	}
	if link != nil {
		if err := link.Cut(); err != nil {
			return err
		}
	}
	// Without a cut, conn may win the session back before closeSession
	// reaches the server (the server then closes our connection): take it
	// over again, until ctx ends.
	var err error
	for i := 0; ; i++ {
		if err = closeSession(ctx, servers[i%len(servers)], id, pw.([]byte)); err == nil || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	if link != nil {
		link.Restore()
	}
	if err != nil {
		return fmt.Errorf("zksession: expire session %#x: %w", id, err)
	}
	passwords.Delete(id)
	for conn.SessionID() == id && conn.State() != zk.StateExpired {
		select {
		case <-ctx.Done():
			return fmt.Errorf("zksession: session %#x ended, but its conn has not learned it yet: %w", id, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// closeSession connects to server, resumes session id with its password
// and closes it. A server that answers the handshake with session 0 says
// the session is over already: nothing to close.
func closeSession(ctx context.Context, server string, id int64, passwd []byte) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if err := writeFrame(c, zkwire.ConnectRequest(int32(DefaultTimeout/time.Millisecond), id, passwd)); err != nil {
		return err
	}
	body, err := readFrame(c)
	if err != nil {
		return fmt.Errorf("resume session %#x: %w", id, err)
	}
	resp, ok := zkwire.ParseConnectResponse(body)
	switch {
	case !ok:
		return fmt.Errorf("resume session %#x: a reply of %d bytes is no ConnectResponse", id, len(body))
	case resp.SessionID == 0:
		return nil
	case resp.SessionID != id:
		return fmt.Errorf("resume session %#x: the server granted %#x instead", id, resp.SessionID)
	}
	const xid = 1
	req := binary.BigEndian.AppendUint32(nil, xid)
	op := zkwire.OpCloseSession
	req = binary.BigEndian.AppendUint32(req, uint32(op))
	if err := writeFrame(c, req); err != nil {
		return err
	}
	// The reply: xid int32, zxid int64, err int32.
	for {
		reply, err := readFrame(c)
		if err != nil {
			return fmt.Errorf("close session %#x: %w", id, err)
		}
		if len(reply) < 16 || int32(binary.BigEndian.Uint32(reply[:4])) != xid {
			continue // a watch notification or a ping's reply: not ours
		}
		if code := int32(binary.BigEndian.Uint32(reply[12:16])); code != 0 {
			return fmt.Errorf("close session %#x: server error %d", id, code)
		}
		return nil
	}
}

func writeFrame(c net.Conn, body []byte) error {
	_, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...))
	return err
}

// readFrame reads one frame's body (at most 1 MiB: what this file reads is
// tiny).
func readFrame(c net.Conn) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > 1<<20 {
		return nil, fmt.Errorf("a frame of %d bytes", size)
	}
	body := make([]byte, size)
	_, err := io.ReadFull(c, body)
	return body, err
}
