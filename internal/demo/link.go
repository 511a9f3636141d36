package demo

import (
	"net"
	"os"
	"sync"
	"time"
)

// A Link stands between one client of the demo and the server, inside the
// client's own process, and can go silent. Cut holds every byte in both
// directions: nothing reaches the server (no request, no heartbeat), no
// reply reaches the client, and the TCP connection stays open — from the
// server's side, exactly what a partition or a stop-the-world pause looks
// like. Restore lets the held bytes through, as TCP would retransmit them
// once the network heals. Connections opened while cut are held too.
//
// The tests cut a client off with a toxiproxy (internal/zkproxy); a
// chapter's binary does it with this wrapper around the client's own TCP
// connections and links no fault-injection library.
type Link struct {
	mu    sync.Mutex
	open  chan struct{} // closed while the link works; a fresh one while it is cut
	conns map[*linkConn]struct{}
}

func newLink() *Link {
	l := &Link{open: make(chan struct{}), conns: map[*linkConn]struct{}{}}
	close(l.open)
	return l
}

// Cut makes the link silent until Restore. (It never fails; the error is
// there so that a Link can be given to zksession.Expire.)
func (l *Link) Cut() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.open:
		l.open = make(chan struct{})
	default: // already cut
	}
	return nil
}

// Restore lets the held bytes, and every later one, through.
func (l *Link) Restore() {
	l.mu.Lock()
	select {
	case <-l.open:
	default:
		close(l.open)
	}
	conns := make([]*linkConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.flush()
	}
}

func (l *Link) isCut() bool {
	select {
	case <-l.gate():
		return false
	default:
		return true
	}
}

func (l *Link) gate() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// dial is the client's dialer (a zk.Dialer): the TCP connection is made at
// once, as the kernel would, and its bytes wait at the gate while cut.
func (l *Link) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	lc := &linkConn{Conn: c, link: l, closed: make(chan struct{})}
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// linkConn is one TCP connection through a Link.
type linkConn struct {
	net.Conn
	link      *Link
	closeOnce sync.Once
	closed    chan struct{}

	mu     sync.Mutex
	readBy time.Time // the read deadline the client set

	wmu     sync.Mutex
	pending []byte // written during a cut, sent on Restore
}

// Read reads what the server sent, but hands it over only once the link
// works: bytes that arrive during a cut are held, not lost. The client's
// read deadline still applies, so it notices the silence as it would.
func (c *linkConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	by := c.readBy
	c.mu.Unlock()
	if werr := c.wait(by); werr != nil {
		return 0, werr // the client drops a connection after any error
	}
	return n, err
}

// Write during a cut succeeds at once, as a write into the kernel's
// buffer does, and the bytes are sent on Restore, in order.
func (c *linkConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.link.isCut() {
		c.pending = append(c.pending, p...)
		return len(p), nil
	}
	if err := c.flushLocked(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

func (c *linkConn) flush() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.flushLocked() // an error shows again on the client's next read or write
}

func (c *linkConn) flushLocked() error {
	if len(c.pending) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.pending)
	c.pending = nil
	return err
}

// wait returns nil once the link works, or an error when the connection is
// closed or the deadline passes first.
func (c *linkConn) wait(deadline time.Time) error {
	gate := c.link.gate()
	select {
	case <-gate:
		return nil
	default:
	}
	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-gate:
		return nil
	case <-c.closed:
		return net.ErrClosed
	case <-expired:
		return os.ErrDeadlineExceeded
	}
}

// Close closes the connection at once: what a cut held back is never sent.
func (c *linkConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.link.mu.Lock()
		delete(c.link.conns, c)
		c.link.mu.Unlock()
	})
	return c.Conn.Close()
}

func (c *linkConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.readBy = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *linkConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.readBy = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}
