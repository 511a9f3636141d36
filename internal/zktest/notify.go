package zktest

import (
	"encoding/binary"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
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
func withNotifyLog() func(*zk.Conn) { return zksession.WithDialer(notifyDialer(nil)) }

// notifyDialer wraps base (nil: net.DialTimeout) so that its connections
// count notifications.
func notifyDialer(base zk.Dialer) zk.Dialer {
	return zkwire.Dialer(base, func(c net.Conn) net.Conn { return zkwire.Tap(c, notifySplitter(), nil) })
}

// notifyHead is as much of a reply's body as a notification needs: xid
// int32, zxid int64, err int32, type int32, state int32, then the path
// (int32 length, bytes), for any path a test uses.
const notifyHead = 4 + 8 + 4 + 4 + 4 + 4 + 1024

// notifySplitter counts the notifications among the frames the server
// sends after the handshake: those whose xid is -1.
func notifySplitter() *zkwire.Splitter {
	return &zkwire.Splitter{Head: notifyHead, Frame: func(index int, head []byte) bool {
		if index > 0 && len(head) >= 4 && int32(binary.BigEndian.Uint32(head)) == zkwire.XidWatch {
			if path, ok := notificationPath(head); ok {
				notifications.add(path)
			}
		}
		return true
	}}
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
