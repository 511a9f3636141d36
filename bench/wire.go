package main

import (
	"net"
	"strconv"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

// Counting at the wire is the only way to count every lock the same way:
// go-zookeeper's zk.Lock has no observer, and even our own locks could
// forget to emit an event. So every Go contender's connection goes through
// a net.Conn wrapper, and Curator's (in a JVM) through zkproxy's relay,
// both reading ZooKeeper's framing with zkwire's splitters as it passes:
//
//   - the first frame each way is the connect request / response: skipped;
//   - client → server, a frame is one request, counted by its opcode,
//     except ping (11) and the setWatches (101) a client sends after a
//     reconnect, which no lock asked for;
//   - server → client, a frame whose xid is -1 is a watch notification.

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

// asked says whether a request with opcode op is one a lock asked for:
// not a ping, nor the setWatches of a reconnect.
func asked(op int32) bool { return op != zkwire.OpPing && op != zkwire.OpSetWatches }

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

// request counts a request the client sent, if a lock asked for it.
func (w *wire) request(op int32) (more bool) {
	if asked(op) {
		w.mu.Lock()
		w.ops[op]++
		w.mu.Unlock()
	}
	return true
}

// reply counts a frame the server sent, if it is a notification.
func (w *wire) reply(xid int32) {
	if xid != zkwire.XidWatch {
		return
	}
	w.mu.Lock()
	w.notifications++
	w.mu.Unlock()
}

// dialer is a zk.Dialer whose connections report to w.
func (w *wire) dialer() zk.Dialer {
	return zkwire.Dialer(nil, func(c net.Conn) net.Conn {
		return zkwire.Tap(c, zkwire.Replies(w.reply), zkwire.Requests(w.request))
	})
}

// proxied is what proxies have read, counted as a wire counts: the
// requests a lock asked for, and the notifications.
func proxied(proxies ...*zkproxy.Proxy) wireCount {
	c := wireCount{ops: map[int32]int64{}}
	for _, p := range proxies {
		n := p.Counts()
		for op, k := range n.Requests {
			if asked(op) {
				c.ops[op] += int64(k)
			}
		}
		c.notifications += int64(n.Notifications)
	}
	return c
}
