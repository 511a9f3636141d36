// Package zkproxy stands between ZooKeeper clients and a server, in the
// process that runs them, and can hurt the link: cut it (a partition, or a
// stop-the-world pause as the server sees one), slow it down, close its
// connections slowly or at once, close one under a given request (as a
// server that dies under it), or have a session expired for real. The
// tests, the visualizer's kill and expire keys and the chapters' demos all
// go through it.
//
// A Link is the faults and the connections they act on, and counts what
// it relays (Requests, Counts); its Dial is a zk.Dialer, for a client in
// the same process. A Proxy is a Link that listens on a loopback port and
// forwards to one server, for a client that is given an address.
//
// It is a plain relay of our own (the standard library and nothing else):
// every goroutine it starts ends when its connection does, or when the
// Link or Proxy is closed.
package zkproxy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

// ErrClosed is returned by a Link or Proxy that was closed.
var ErrClosed = errors.New("zkproxy: closed")

// A Link relays the connections of the clients that dial through it and
// applies its faults to them. The zero value is not usable: call NewLink.
type Link struct {
	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine of every pair

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced when a fault changes
	cut       bool
	latency   time.Duration // of what the server sends
	jitter    time.Duration
	slowClose time.Duration // of the client's side, once the server's closed
	traps     []int32       // DropOn's opcodes still to spring, in order
	requests  map[int32]int // what the clients sent, by opcode
	notified  int           // watch notifications the server sent
	dropped   int           // connections a trap closed
	drops     int           // Drops so far: a connection set up across one is dropped too
	pairs     map[*pair]struct{}
}

// NewLink returns a Link that lets everything through.
func NewLink() *Link {
	ctx, cancel := context.WithCancel(context.Background())
	return &Link{ctx: ctx, cancel: cancel, changed: make(chan struct{}), requests: map[int32]int{}, pairs: map[*pair]struct{}{}}
}

// Cut makes the link silent in both directions without closing anything —
// a partition, as the client sees one. Bytes are held, not dropped, and
// flow again on Restore, as TCP would retransmit them once the network
// heals; a connection the client closes meanwhile closes on the server's
// side after its held bytes. New connections are made at once (the
// client's connect succeeds), and their bytes held too until Restore.
func (l *Link) Cut() error {
	return l.set(func() { l.cut = true })
}

// Restore ends every fault: the held bytes, and every later one, flow,
// and DropOn's traps that have not sprung are disarmed.
func (l *Link) Restore() {
	l.set(func() { l.cut, l.latency, l.jitter, l.slowClose, l.traps = false, 0, 0, 0, nil })
}

// Latency delays every chunk the server sends by d, give or take up to
// jitter (chosen per chunk), in order: a later chunk never overtakes an
// earlier one.
func (l *Link) Latency(d, jitter time.Duration) error {
	if d < 0 || jitter < 0 {
		return fmt.Errorf("zkproxy: latency %v ± %v: durations must not be negative", d, jitter)
	}
	return l.set(func() { l.latency, l.jitter = d, jitter })
}

// SlowClose delays by d the close of the client's side of a connection
// once the server's side has closed (or the client's, which closes the
// server's at once).
func (l *Link) SlowClose(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("zkproxy: slow close %v: the delay must not be negative", d)
	}
	return l.set(func() { l.slowClose = d })
}

// DropOn arms a trap per opcode (zkwire's Op constants), in order: the
// next request a client sends with opcodes[0] is not forwarded, and its
// connection closes at once both ways, as when a server dies under that
// one request; then the next with opcodes[1], and so on. What the client
// sent before it goes through first (under a cut, the close waits with it
// for Restore); the client reconnects as after Drop.
func (l *Link) DropOn(opcodes ...int32) error {
	return l.set(func() { l.traps = append(l.traps, opcodes...) })
}

// Requests is how many requests with opcode the link has read from its
// clients, whether forwarded, held or dropped (the handshake is none, and
// what follows a dropped request on its connection is never read).
func (l *Link) Requests(opcode int32) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests[opcode]
}

// Counts is what a link has read: the requests of its clients by opcode,
// pings included, and the watch notifications of its server (frames with
// xid -1). Each is counted as the link reads it, before passing it on.
type Counts struct {
	Requests      map[int32]int
	Notifications int
}

// Counts returns what the link has read so far, both counters at the
// same instant.
func (l *Link) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Counts{Requests: maps.Clone(l.requests), Notifications: l.notified}
}

// Dropped is how many connections DropOn's traps have closed.
func (l *Link) Dropped() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// request counts a request the client sent and reports whether a trap
// drops it.
func (l *Link) request(opcode int32) (drop bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests[opcode]++
	if len(l.traps) == 0 || l.traps[0] != opcode {
		return false
	}
	l.traps = l.traps[1:]
	l.dropped++
	return true
}

// reply counts a watch notification the server sent.
func (l *Link) reply(xid int32) {
	if xid != zkwire.XidWatch {
		return
	}
	l.mu.Lock()
	l.notified++
	l.mu.Unlock()
}

// Drop closes every connection through the link at once, as a server
// restart would, and what they held is lost. Clients may connect again.
func (l *Link) Drop() error {
	if l.ctx.Err() != nil {
		return ErrClosed
	}
	l.mu.Lock()
	l.drops++ // a connection whose upstream dial began before this is dropped when it registers
	l.mu.Unlock()
	l.abortAll()
	return nil
}

// generation is the number of Drops so far; a connection takes it before
// it dials upstream and hands it to relay.
func (l *Link) generation() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.drops
}

func (l *Link) abortAll() {
	l.mu.Lock()
	pairs := make([]*pair, 0, len(l.pairs))
	for p := range l.pairs {
		pairs = append(pairs, p)
	}
	l.mu.Unlock()
	for _, p := range pairs {
		p.abort()
	}
}

// Expire makes the server expire conn's session for real, on any server,
// by cutting this link for longer than the session can live (see
// zksession.Expire, which does the work).
func (l *Link) Expire(ctx context.Context, conn *zk.Conn, sessionTimeout time.Duration) error {
	return zksession.Expire(ctx, l, conn, sessionTimeout)
}

// Dial is a zk.Dialer: it connects to address at once and hands the client
// an in-memory connection whose bytes go through the link.
func (l *Link) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	gen := l.generation()
	d := net.Dialer{Timeout: timeout}
	server, err := d.DialContext(l.ctx, network, address)
	if err != nil {
		if l.ctx.Err() != nil {
			return nil, ErrClosed
		}
		return nil, err
	}
	client, ours := net.Pipe()
	if err := l.relay(ours, server, gen); err != nil {
		client.Close()
		return nil, err
	}
	return client, nil
}

// Close closes every connection through the link and waits until the
// goroutines that relayed them have ended. Afterwards Dial and the faults
// return ErrClosed.
func (l *Link) Close() {
	l.cancel()
	l.abortAll()
	l.wg.Wait()
}

// set changes the faults and wakes every pipe waiting on them.
func (l *Link) set(change func()) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx.Err() != nil {
		return ErrClosed
	}
	change()
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

// relay starts moving bytes between client and server, one goroutine to
// read and one to write in each direction, so that a held or delayed
// chunk does not stop the next from being read.
//
// gen is the link's generation when the connection began (before its
// upstream dial): if a Drop came since, the connection is closed at once,
// as Drop would have closed it had it been registered.
func (l *Link) relay(client, server net.Conn, gen int) error {
	p := &pair{link: l, client: client, server: server, done: make(chan struct{})}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx.Err() != nil {
		client.Close()
		server.Close()
		return ErrClosed
	}
	if gen != l.drops {
		client.Close()
		server.Close()
		return nil
	}
	l.pairs[p] = struct{}{}
	p.live.Store(4)
	up := make(chan chunk, queueLen)
	down := make(chan chunk, queueLen)
	l.wg.Add(4)
	go p.run(func() { p.read(client, up, p.requests()) })
	go p.run(func() { p.write(up, server, false) })
	go p.run(func() { p.read(server, down, zkwire.Replies(l.reply)) })
	go p.run(func() { p.write(down, client, true) })
	return nil
}

// queueLen chunks may wait in each direction; then the reader stops
// reading, and the sender's own buffers fill, as a partition's would.
const queueLen = 64

// A pair is one client connection and the server connection it is relayed to.
type pair struct {
	link           *Link
	client, server net.Conn
	done           chan struct{} // closed by abort
	abortOnce      sync.Once
	live           atomic.Int32 // goroutines still running
}

// A chunk is what one read returned, or the end of the stream (eof), or
// what came before a request that a trap drops (drop: then the pair ends).
type chunk struct {
	b      []byte
	at     time.Time
	jitter float64 // in [-1, 1): the share of the jitter this chunk gets
	eof    bool
	drop   bool
}

func (p *pair) run(f func()) {
	defer p.link.wg.Done()
	defer func() {
		if p.live.Add(-1) == 0 {
			p.link.mu.Lock()
			delete(p.link.pairs, p)
			p.link.mu.Unlock()
		}
	}()
	f()
}

// abort closes both connections at once, whatever they held.
func (p *pair) abort() {
	p.abortOnce.Do(func() {
		close(p.done)
		p.client.Close()
		p.server.Close()
	})
}

// requests splits what the client sends into requests, each counted by
// the link; it stops at the first one a trap drops.
func (p *pair) requests() *zkwire.Splitter {
	return zkwire.Requests(func(op int32) bool { return !p.link.request(op) })
}

// read passes what src sends to its writer, then the end of the stream
// (an error reading is an end too), feeding it to frames first, which
// counts it. If frames stops, src is the client and a trap dropped a
// request: it, and whatever follows it, is not passed on, and the chunk
// before it ends the pair once written.
func (p *pair) read(src net.Conn, out chan<- chunk, frames *zkwire.Splitter) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		c := chunk{at: time.Now(), jitter: 2*rand.Float64() - 1, eof: err != nil}
		if read := frames.Feed(buf[:n]); frames.Stopped() {
			// frames read the request up to its opcode: its length, xid
			// and opcode, 12 bytes. Its first bytes may have gone out with
			// an earlier chunk: a server does nothing with half a request.
			n, c.eof, c.drop = max(0, read-(4+8)), false, true
		}
		if n > 0 {
			c.b = append([]byte(nil), buf[:n]...)
		}
		select {
		case out <- c:
		case <-p.done:
			return
		}
		if c.eof || c.drop {
			return
		}
	}
}

// write sends each chunk to dst once the faults let it through; at the
// end of the stream it closes dst, after a dropping chunk it aborts the
// pair. An error writing aborts the pair.
// downstream says dst is the client: latency and slow close apply.
func (p *pair) write(in <-chan chunk, dst net.Conn, downstream bool) {
	for {
		var c chunk
		select {
		case c = <-in:
		case <-p.done:
			return
		}
		if !p.wait(c, downstream) {
			return
		}
		if len(c.b) > 0 {
			if _, err := dst.Write(c.b); err != nil {
				p.abort()
				return
			}
		}
		if c.drop {
			p.abort()
			return
		}
		if c.eof {
			dst.Close()
			return
		}
	}
}

// wait returns true once c may go: the link is not cut and, from the
// server, its latency (and at the end, the slow close) has passed. The
// faults are looked at again whenever they change. False: the pair was
// aborted.
func (p *pair) wait(c chunk, downstream bool) bool {
	for {
		l := p.link
		l.mu.Lock()
		cut, changed := l.cut, l.changed
		var delay time.Duration
		if downstream {
			delay = l.latency + time.Duration(c.jitter*float64(l.jitter))
			if c.eof {
				delay += l.slowClose
			}
		}
		l.mu.Unlock()
		var timer *time.Timer
		var expired <-chan time.Time // nil while cut: only a change helps
		if !cut {
			left := time.Until(c.at.Add(delay))
			if left <= 0 {
				return true
			}
			timer = time.NewTimer(left)
			expired = timer.C
		}
		select {
		case <-expired:
			return true
		case <-changed:
			if timer != nil {
				timer.Stop()
			}
		case <-p.done:
			if timer != nil {
				timer.Stop()
			}
			return false
		}
	}
}
