package main

import (
	"encoding/binary"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Counting at the wire is the only way to count every lock the same way:
// go-zookeeper's zk.Lock has no observer, and even our own locks could
// forget to emit an event. So every contender's connection goes through a
// net.Conn wrapper that reads ZooKeeper's framing as it passes:
//
//   - every frame is a 4-byte big-endian length and that many bytes;
//   - the first frame each way is the connect request / response: skipped;
//   - client → server, a frame starts with xid int32, opcode int32: that is
//     one request, except ping (11) and the setWatches (101) a client sends
//     after a reconnect, which no lock asked for;
//   - server → client, a frame whose xid is -1 is a watch notification.

const (
	opPing       = 11
	opSetWatches = 101
	xidWatch     = -1
)

// opNames name the opcodes the locks send as package event names them
// (create, delete, exists, get, set, children, multi), and the two Curator
// sends when it removes the watches a lock left behind.
var opNames = map[int32]string{
	1: "create", 2: "delete", 3: "exists", 4: "get", 5: "set", 8: "children",
	12: "children", 14: "multi", 15: "create", 17: "checkWatches", 18: "removeWatches", 19: "createContainer", -11: "close",
}

func opName(op int32) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return "op" + strconv.Itoa(int(op))
}

// wire counts requests and notifications on every connection it dialed.
type wire struct {
	mu            sync.Mutex
	ops           map[int32]int64 // requests by opcode
	notifications int64
}

// wireCount is a snapshot of a wire's counters.
type wireCount struct {
	ops           map[int32]int64
	notifications int64
}

func (c wireCount) requests() int64 {
	var n int64
	for _, v := range c.ops {
		n += v
	}
	return n
}

// sub returns what happened between before and c.
func (c wireCount) sub(before wireCount) wireCount {
	d := wireCount{ops: map[int32]int64{}, notifications: c.notifications - before.notifications}
	for op, n := range c.ops {
		if n -= before.ops[op]; n != 0 {
			d.ops[op] = n
		}
	}
	return d
}

// byName returns the requests per operation, for the JSON and the README.
func (c wireCount) byName() map[string]int64 {
	m := map[string]int64{}
	for op, n := range c.ops {
		m[opName(op)] += n
	}
	return m
}

func newWire() *wire { return &wire{ops: map[int32]int64{}} }

func (w *wire) snapshot() wireCount {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := wireCount{ops: make(map[int32]int64, len(w.ops)), notifications: w.notifications}
	for op, n := range w.ops {
		c.ops[op] = n
	}
	return c
}

func (w *wire) request(op int32) {
	if op == opPing || op == opSetWatches {
		return
	}
	w.mu.Lock()
	w.ops[op]++
	w.mu.Unlock()
}

func (w *wire) reply(xid int32) {
	if xid != xidWatch {
		return
	}
	w.mu.Lock()
	w.notifications++
	w.mu.Unlock()
}

// dialer is a zk.Dialer whose connections report to w.
func (w *wire) dialer() zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &countingConn{
			Conn: c,
			out:  frames{head: 8, frame: func(h []byte) { w.request(int32(binary.BigEndian.Uint32(h[4:8]))) }},
			in:   frames{head: 4, frame: func(h []byte) { w.reply(int32(binary.BigEndian.Uint32(h[0:4]))) }},
		}, nil
	}
}

// countingConn feeds what is written to out and what is read to in.
type countingConn struct {
	net.Conn
	wmu, rmu sync.Mutex
	out, in  frames
}

// Write counts before it writes: once the bytes are out, the reply can
// come back and the caller return before Write does, and a count taken
// after Write would miss the request.
func (c *countingConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	c.out.feed(p)
	c.wmu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.rmu.Lock()
	c.in.feed(p[:n])
	c.rmu.Unlock()
	return n, err
}

// frames splits one direction of a connection into ZooKeeper frames,
// however the bytes arrive, and calls frame with the first head bytes of
// each frame's body (every frame after the first, the connect handshake).
type frames struct {
	head  int          // body bytes frame wants: 8 (xid, opcode) or 4 (xid)
	frame func([]byte) // called once per frame after the first

	seen   int     // frames started so far
	lenBuf [4]byte // the length prefix being read
	lenN   int     // bytes of lenBuf filled
	body   int     // body bytes still to come in the current frame
	hdr    []byte  // the start of the current body, up to head bytes
}

func (f *frames) feed(p []byte) {
	for len(p) > 0 {
		if f.body == 0 {
			// Reading the 4-byte length of the next frame.
			k := copy(f.lenBuf[f.lenN:], p)
			f.lenN += k
			p = p[k:]
			if f.lenN < 4 {
				return
			}
			f.lenN = 0
			f.body = int(binary.BigEndian.Uint32(f.lenBuf[:]))
			f.hdr = f.hdr[:0]
			f.seen++
			if f.body == 0 {
				continue
			}
		}
		k := min(len(p), f.body)
		if want := f.head - len(f.hdr); want > 0 {
			f.hdr = append(f.hdr, p[:min(k, want)]...)
			if len(f.hdr) == f.head && f.seen > 1 {
				f.frame(f.hdr)
			}
		}
		f.body -= k
		p = p[k:]
	}
}
