// Package zkwire reads ZooKeeper's framing as it passes on a connection,
// for the code that must see the wire: the session's read of the timeout
// the server granted (zksession), the tests' count of notifications
// (zktest), the bench's count of requests and notifications, and the
// relay's count of the requests and notifications it forwards, which can
// close a connection under one request (zkproxy's DropOn).
//
// Every frame is a 4-byte big-endian length and that many bytes. The first
// frame each way is the connect handshake (ConnectRequest, ConnectResponse);
// after it, a request starts with xid int32 and opcode int32, and a reply
// with xid int32, zxid int64 and err int32, a watch notification's xid
// being -1.
package zkwire

import (
	"bufio"
	"encoding/binary"
	"net"
	"time"

	"github.com/go-zookeeper/zk"
)

// Opcodes and xids of the jute protocol (go-zookeeper's constants.go).
const (
	OpGetData      int32 = 4
	OpPing         int32 = 11
	OpGetChildren2 int32 = 12
	OpSetWatches   int32 = 101
	XidWatch       int32 = -1 // a reply with this xid is a watch notification
)

// A Splitter splits one direction of a connection into frames, however
// reads and writes cut the bytes. It calls Frame once per frame, with the
// frame's index (0: the handshake) and the first Head bytes of its body
// (all of it, if the body is shorter), as soon as it has them. Once Frame
// returns false, the Splitter stops listening.
//
// Head 8 gives a request's xid and opcode (Opcode reads it).
type Splitter struct {
	Head  int
	Frame func(index int, head []byte) (more bool)

	stopped bool
	index   int     // frames started so far
	lenBuf  [4]byte // the length being read
	lenN    int     // bytes of lenBuf filled
	body    int     // body bytes still to come in the current frame
	head    []byte  // the start of the current body, up to Head bytes
	told    bool    // Frame has had the current frame
}

// Feed gives s the next bytes of its direction and returns how many it
// read: all of them, unless a Frame call returned false, and then those up
// to the end of the head that call was given (none if s had stopped
// before). That frame starts 4+len(head) bytes earlier: in p at
// n-4-len(head), or in an earlier Feed if that is negative.
func (s *Splitter) Feed(p []byte) (n int) {
	all := len(p)
	for len(p) > 0 && !s.stopped {
		if s.body == 0 {
			k := copy(s.lenBuf[s.lenN:], p)
			s.lenN += k
			p = p[k:]
			if s.lenN < 4 {
				break
			}
			s.lenN = 0
			s.body = int(binary.BigEndian.Uint32(s.lenBuf[:]))
			s.head, s.told = s.head[:0], false
			s.index++
			if s.body == 0 {
				s.tell()
				continue
			}
		}
		if !s.told { // read up to the end of the head, and no further
			k := min(len(p), s.body, s.Head-len(s.head))
			s.head = append(s.head, p[:k]...)
			s.body -= k
			p = p[k:]
			if len(s.head) == s.Head || s.body == 0 {
				s.tell()
			}
			continue
		}
		k := min(len(p), s.body)
		s.body -= k
		p = p[k:]
	}
	return all - len(p)
}

// Stopped reports whether a Frame call has returned false.
func (s *Splitter) Stopped() bool { return s.stopped }

// Requests returns a Splitter for what a client sends: it calls f with
// the opcode of each request after the handshake, once the request's
// length, xid and opcode (12 bytes) have been read; a frame too short to
// hold an opcode is skipped. Once f returns false, it stops.
func Requests(f func(op int32) (more bool)) *Splitter {
	return &Splitter{Head: 8, Frame: func(index int, head []byte) bool {
		op, ok := Opcode(head)
		if index == 0 || !ok {
			return true
		}
		return f(op)
	}}
}

// Replies returns a Splitter for what a server sends: it calls f with the
// xid of each frame after the handshake, XidWatch for a watch
// notification.
func Replies(f func(xid int32)) *Splitter {
	return &Splitter{Head: 4, Frame: func(index int, head []byte) bool {
		if index > 0 && len(head) == 4 {
			f(int32(binary.BigEndian.Uint32(head)))
		}
		return true
	}}
}

func (s *Splitter) tell() {
	s.told = true
	s.stopped = !s.Frame(s.index-1, s.head)
}

// Tap returns c, whose reads feed in and whose writes feed out (nil: that
// direction is not split). A write is fed before it is sent: once the
// bytes are out, the reply can come back, and a count taken after would
// come late. Like go-zookeeper, use it from one reader and one writer.
func Tap(c net.Conn, in, out *Splitter) net.Conn { return &tapConn{Conn: c, in: in, out: out} }

type tapConn struct {
	net.Conn
	in, out *Splitter
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.in != nil {
		c.in.Feed(p[:n])
	}
	return n, err
}

func (c *tapConn) Write(p []byte) (int, error) {
	if c.out != nil {
		c.out.Feed(p)
	}
	return c.Conn.Write(p)
}

// ReadAhead returns c with a read buffer of size bytes. go-zookeeper reads
// every frame in two reads, its 4-byte length and then its body: on a bare
// TCP conn, two system calls. Through the buffer the first read usually
// brings in the whole frame and the second is a copy, which saves a system
// call per reply and per notification. Nothing else changes: the buffer
// only ever holds bytes the server sent, and a read that finds it empty
// reads the conn, under the deadline go-zookeeper set on it.
func ReadAhead(c net.Conn, size int) net.Conn {
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, size)}
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Dialer dials with base (nil: net.DialTimeout) and wraps each connection
// it opens with wrap: the one way lockstep puts something between
// go-zookeeper and its TCP connections.
func Dialer(base zk.Dialer, wrap func(net.Conn) net.Conn) zk.Dialer {
	if base == nil {
		base = net.DialTimeout
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := base(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return wrap(c), nil
	}
}

// Opcode reads a request's opcode from the start of its body (a
// Splitter's head of 8 bytes or more, after the handshake); ok is false if
// head is too short to hold one.
func Opcode(head []byte) (op int32, ok bool) {
	if len(head) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(head[4:8])), true
}

// OpCloseSession is the request that ends a session (go-zookeeper's opClose).
const OpCloseSession int32 = -11

// A ConnectResponse is the server's answer to a client's handshake: the
// session it granted (ID 0: the session the client asked to resume has
// expired), its timeout and the session's password, which a client must
// present to resume the session on another connection.
type ConnectResponse struct {
	TimeoutMs int32
	SessionID int64
	Passwd    []byte
}

// ConnectResponseMax is more than a ConnectResponse's body ever holds
// (protocolVersion int32, timeOut int32, sessionId int64, passwd as an
// int32 length and 16 bytes, readOnly bool): a Splitter's Head for it.
const ConnectResponseMax = 64

// ParseConnectResponse reads a ConnectResponse body (or its first
// ConnectResponseMax bytes); ok is false if body is too short to hold one.
func ParseConnectResponse(body []byte) (r ConnectResponse, ok bool) {
	if len(body) < 20 {
		return r, false
	}
	r.TimeoutMs = int32(binary.BigEndian.Uint32(body[4:8]))
	r.SessionID = int64(binary.BigEndian.Uint64(body[8:16]))
	n := int(int32(binary.BigEndian.Uint32(body[16:20])))
	if n < 0 || 20+n > len(body) {
		return r, false
	}
	r.Passwd = append([]byte(nil), body[20:20+n]...)
	return r, true
}

// ConnectRequest is the body of a client's handshake asking to resume
// session id with its password (id 0 and no password ask for a new
// session of timeoutMs): protocolVersion 0, lastZxidSeen 0, timeOut,
// sessionId, passwd.
func ConnectRequest(timeoutMs int32, id int64, passwd []byte) []byte {
	b := make([]byte, 0, 28+len(passwd))
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint64(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(timeoutMs))
	b = binary.BigEndian.AppendUint64(b, uint64(id))
	b = binary.BigEndian.AppendUint32(b, uint32(len(passwd)))
	return append(b, passwd...)
}
