package zktest

import (
	"encoding/binary"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
)

// Every session zktest opens dials through notifyingDialer, which counts the
// watch notifications the server sends it, by path, as they go by on the
// wire. Watched uses the count where the server refuses wchp: it fires the
// watches on a path and looks whether anyone was told. Reading the wire
// (rather than an event callback) sees every notification, whatever
// options the test gave the conn, and in order: once a later reply has
// arrived on a conn, every notification sent before it has been counted.

type notifyLog struct {
	mu     sync.Mutex
	byPath map[string]int
}

var notifications = &notifyLog{byPath: map[string]int{}}

func (l *notifyLog) add(path string) {
	l.mu.Lock()
	l.byPath[path]++
	l.mu.Unlock()
}

func (l *notifyLog) count(path string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byPath[path]
}

// live is every conn zktest opened and has not closed yet.
var live = struct {
	sync.Mutex
	conns map[*zk.Conn]bool
}{conns: map[*zk.Conn]bool{}}

func track(conn *zk.Conn) func() {
	live.Lock()
	live.conns[conn] = true
	live.Unlock()
	return func() {
		live.Lock()
		delete(live.conns, conn)
		live.Unlock()
	}
}

// syncAll makes a round trip on every live conn that has a session, in
// parallel, for at most 5 s: after it, each has received (and we have
// counted) every notification its server sent before.
func syncAll() {
	live.Lock()
	var conns []*zk.Conn
	for c := range live.conns {
		if c.State() == zk.StateHasSession {
			conns = append(conns, c)
		}
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.Sync("/") })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// withNotifyLog is the dial option that counts notifications.
func withNotifyLog() func(*zk.Conn) { return zkconn.WithDialer(notifyDialer(nil)) }

// notifyDialer wraps base (nil: net.DialTimeout) so that its connections
// count notifications.
func notifyDialer(base zk.Dialer) zk.Dialer {
	if base == nil {
		base = net.DialTimeout
	}
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := base(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return &notifyConn{Conn: c}, nil
	}
}

// notifyConn splits what the server sends into frames (a 4-byte length,
// then the body). After the first frame (the ConnectResponse), a body that
// starts with xid -1 is a notification: xid int32, zxid int64, err int32,
// then type int32, state int32 and the path (int32 length, bytes).
type notifyConn struct {
	net.Conn
	frames   int
	head     [4]byte
	headN    int
	body     []byte // the notification being read; nil while skipping
	left     int    // bytes of the current body still to come
	bodyXid  [4]byte
	bodyXidN int
}

func (c *notifyConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.feed(p[:n])
	return n, err
}

func (c *notifyConn) feed(p []byte) {
	for len(p) > 0 {
		if c.left == 0 { // reading a length
			k := copy(c.head[c.headN:], p)
			c.headN += k
			p = p[k:]
			if c.headN == 4 {
				c.headN = 0
				c.left = int(binary.BigEndian.Uint32(c.head[:]))
				c.body, c.bodyXidN = nil, 0
				c.frames++
			}
			continue
		}
		k := min(c.left, len(p))
		chunk := p[:k]
		p, c.left = p[k:], c.left-k
		if c.frames > 1 && c.bodyXidN < 4 {
			m := copy(c.bodyXid[c.bodyXidN:], chunk)
			c.bodyXidN += m
			if c.bodyXidN == 4 && int32(binary.BigEndian.Uint32(c.bodyXid[:])) == -1 {
				c.body = append([]byte{}, c.bodyXid[:]...)
			}
			chunk = chunk[m:]
		}
		if c.body != nil {
			c.body = append(c.body, chunk...)
		}
		if c.left == 0 && c.body != nil {
			if path, ok := notificationPath(c.body); ok {
				notifications.add(path)
			}
			c.body = nil
		}
	}
}

func notificationPath(b []byte) (string, bool) {
	const at = 4 + 8 + 4 + 4 + 4 // xid, zxid, err, type, state
	if len(b) < at+4 {
		return "", false
	}
	n := int(int32(binary.BigEndian.Uint32(b[at:])))
	if n < 0 || len(b) < at+4+n {
		return "", false
	}
	return string(b[at+4 : at+4+n]), true
}
