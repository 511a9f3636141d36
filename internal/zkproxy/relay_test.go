package zkproxy_test

import (
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

// These tests put the relay in front of a plain TCP server of their own,
// which hands the test the server's end of each connection: every byte and
// every close is seen from both sides.

// quiet is how long a test listens for bytes that must not arrive: the
// only evidence of "held" is that nothing came.
const quiet = 300 * time.Millisecond

type upstream struct {
	ln    net.Listener
	conns chan net.Conn
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{ln: ln, conns: make(chan net.Conn, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.conns <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		close(u.conns)
		for c := range u.conns {
			c.Close()
		}
	})
	return u
}

// accept is the server's end of the next connection the relay made.
func (u *upstream) accept(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-u.conns:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("the relay never connected to the server")
		return nil
	}
}

func newProxy(t *testing.T, u *upstream) *zkproxy.Proxy {
	t.Helper()
	p, err := zkproxy.New(u.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func dialProxy(t *testing.T, p *zkproxy.Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// expect reads exactly want from c, within 10 s.
func expect(t *testing.T, c net.Conn, want string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read %q: got %q, %v", want, got, err)
	}
	if string(got) != want {
		t.Fatalf("read %q, want %q", got, want)
	}
}

// silent checks that nothing arrives on c for quiet.
func silent(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(quiet))
	defer c.SetReadDeadline(time.Time{})
	var b [64]byte
	n, err := c.Read(b[:])
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: read %q, %v; want nothing for %v", what, b[:n], err, quiet)
	}
}

// closed checks that c reads the end of the stream within 10 s.
func closed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [64]byte
	n, err := c.Read(b[:])
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: read %q, %v; want the connection closed", what, b[:n], err)
	}
}

// handshake is a connection's first frame, a ConnectRequest, which has no
// opcode: protocol version 0, then the last zxid the client saw, here of
// epoch 12 (its high 32 bits), where a request would have its opcode —
// getChildren2's.
var handshake = frame(append(binary.BigEndian.AppendUint64([]byte{0, 0, 0, 0}, 12<<32), make([]byte, 32)...))

// request is a request frame: xid, opcode and a body.
func request(xid, op int32, body string) string {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	return frame(append(b, body...))
}

func frame(body []byte) string {
	return string(binary.BigEndian.AppendUint32(nil, uint32(len(body)))) + string(body)
}

func TestRelay(t *testing.T) {
	t.Run("bytes flow both ways unchanged", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		send(t, c, "ping")
		expect(t, s, "ping")
		send(t, s, "pong")
		expect(t, c, "pong")
	})

	t.Run("a cut holds the bytes both ways, and on Restore they flow in order", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		if err := p.Cut(); err != nil {
			t.Fatal(err)
		}
		send(t, c, "request1,")
		send(t, s, "reply1,")
		send(t, c, "request2")
		send(t, s, "reply2")
		silent(t, s, "the server during a cut")
		silent(t, c, "the client during a cut")
		p.Restore()
		expect(t, s, "request1,request2")
		expect(t, c, "reply1,reply2")
	})

	t.Run("a connection opened during a cut is made at once, and its bytes wait for Restore", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		if err := p.Cut(); err != nil {
			t.Fatal(err)
		}
		c := dialProxy(t, p)
		s := u.accept(t)
		send(t, c, "connect")
		silent(t, s, "the server during a cut")
		p.Restore()
		expect(t, s, "connect")
	})

	t.Run("a client that closes during a cut closes on the server only after its held bytes, on Restore", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		if err := p.Cut(); err != nil {
			t.Fatal(err)
		}
		send(t, c, "goodbye")
		c.Close()
		silent(t, s, "the server during a cut")
		p.Restore()
		expect(t, s, "goodbye")
		closed(t, s, "the server after Restore")
	})

	t.Run("latency delays what the server sends, in order, and not what the client sends", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		const d = 200 * time.Millisecond
		if err := p.Latency(d, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		send(t, c, "request") // a delayed request would still arrive: this only shows it is let through
		expect(t, s, "request")
		start := time.Now()
		for _, r := range []string{"a", "b", "c", "d", "e"} {
			send(t, s, r)
		}
		expect(t, c, "abcde")
		if took := time.Since(start); took < d-50*time.Millisecond {
			t.Fatalf("replies arrived after %v through a latency of %v ± 50ms", took, d)
		}
	})

	t.Run("slow close: the client sees the server's close that much later, and Restore ends the wait", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		if err := p.SlowClose(time.Hour); err != nil {
			t.Fatal(err)
		}
		send(t, s, "last words")
		s.Close()
		expect(t, c, "last words")
		silent(t, c, "the client during a slow close")
		p.Restore()
		closed(t, c, "the client after Restore")
	})

	t.Run("Drop closes every connection at once, held bytes and all, and accepts new ones", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		if err := p.Cut(); err != nil {
			t.Fatal(err)
		}
		send(t, c, "lost")
		if err := p.Drop(); err != nil {
			t.Fatal(err)
		}
		closed(t, c, "the client after Drop")
		closed(t, s, "the server after Drop")
		p.Restore()
		c2 := dialProxy(t, p)
		s2 := u.accept(t)
		send(t, c2, "again")
		expect(t, s2, "again")
	})

	t.Run("Down refuses connections and Up listens again on the same address", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		p.Down()
		closed(t, c, "the client after Down")
		closed(t, s, "the server after Down")
		if c, err := net.Dial("tcp", p.Addr()); err == nil {
			c.Close()
			t.Fatal("a connection to a proxy that is down was accepted")
		}
		if err := p.Up(); err != nil {
			t.Fatal(err)
		}
		c2 := dialProxy(t, p)
		s2 := u.accept(t)
		send(t, c2, "back")
		expect(t, s2, "back")
	})

	t.Run("Dial's connections go through the same faults", func(t *testing.T) {
		u := newUpstream(t)
		l := zkproxy.NewLink()
		t.Cleanup(l.Close)
		c, err := l.Dial("tcp", u.ln.Addr().String(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s := u.accept(t)
		if err := l.Cut(); err != nil {
			t.Fatal(err)
		}
		send(t, c, "held")
		send(t, s, "held too")
		silent(t, s, "the server during a cut")
		silent(t, c, "the client during a cut")
		l.Restore()
		expect(t, s, "held")
		expect(t, c, "held too")
	})

	t.Run("DropOn closes the connection at the trapped request: what came before reaches the server, it and what follows do not", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		if err := p.DropOn(zkwire.OpGetChildren2); err != nil {
			t.Fatal(err)
		}
		before := goleak.IgnoreCurrent()
		c := dialProxy(t, p)
		s := u.accept(t)
		ping, read := request(1, zkwire.OpPing, ""), request(2, zkwire.OpGetData, "/a")
		send(t, c, handshake+ping+read)
		expect(t, s, handshake+ping+read) // passed: no trap on them
		// In one write, so that the relay reads them at once: a request
		// before the listing, the listing, a request after it.
		send(t, c, ping+request(3, zkwire.OpGetChildren2, "/a")+read)
		expect(t, s, ping)
		closed(t, s, "the server after the trapped listing")
		closed(t, c, "the client after the trapped listing")
		if n := p.Dropped(); n != 1 {
			t.Errorf("Dropped = %d, want 1", n)
		}
		for op, want := range map[int32]int{zkwire.OpPing: 2, zkwire.OpGetData: 1, zkwire.OpGetChildren2: 1} {
			if n := p.Requests(op); n != want {
				t.Errorf("Requests(%d) = %d, want %d (the read after the listing was never read)", op, n, want)
			}
		}
		c.Close()
		goleak.VerifyNone(t, before) // the dropped pair's goroutines have ended
	})

	t.Run("Counts has the clients' requests by opcode and the server's notifications, read before they are passed on", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		ping, read := request(-2, zkwire.OpPing, ""), request(1, zkwire.OpGetData, "/a")
		send(t, c, handshake+ping+read+read)
		expect(t, s, handshake+ping+read+read)
		// The server's handshake would read as a notification: its first
		// bytes are -1 here. Then a reply to xid 1, and two notifications.
		hello := frame([]byte{255, 255, 255, 255, 0, 0, 0, 0})
		reply, notification := frame([]byte{0, 0, 0, 1, 0}), frame([]byte{255, 255, 255, 255, 0})
		send(t, s, hello+reply+notification+notification)
		expect(t, c, hello+reply+notification+notification)
		got := p.Counts()
		want := map[int32]int{zkwire.OpPing: 1, zkwire.OpGetData: 2}
		if !maps.Equal(got.Requests, want) || got.Notifications != 2 {
			t.Fatalf("Counts = %+v, want requests %v and 2 notifications", got, want)
		}
		got.Requests[zkwire.OpGetData] = 100
		if n := p.Requests(zkwire.OpGetData); n != 2 {
			t.Fatalf("Requests(getData) = %d after a change to Counts' map, want 2: Counts must hand out a copy", n)
		}
	})

	t.Run("DropOn's traps spring in order, once each, on any connection, and Restore disarms the rest", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		if err := p.DropOn(zkwire.OpGetData, zkwire.OpGetChildren2, zkwire.OpGetData); err != nil {
			t.Fatal(err)
		}
		list, read := request(1, zkwire.OpGetChildren2, "/a"), request(2, zkwire.OpGetData, "/a")
		c := dialProxy(t, p)
		s := u.accept(t)
		send(t, c, handshake+list) // not the first trap's opcode: it passes
		expect(t, s, handshake+list)
		send(t, c, read)
		closed(t, s, "the server after the first trap")
		c = dialProxy(t, p)
		s = u.accept(t)
		send(t, c, handshake+read+list) // the second trap is for the listing
		expect(t, s, handshake+read)
		closed(t, s, "the server after the second trap")
		p.Restore()
		c = dialProxy(t, p)
		s = u.accept(t)
		send(t, c, handshake+read+list)
		expect(t, s, handshake+read+list) // the third trap was disarmed
		if n := p.Dropped(); n != 2 {
			t.Errorf("Dropped = %d, want 2", n)
		}
	})

	t.Run("a trapped request held by a cut closes its connection only on Restore", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		c := dialProxy(t, p)
		s := u.accept(t)
		send(t, c, handshake)
		expect(t, s, handshake)
		for _, err := range []error{p.DropOn(zkwire.OpGetData), p.Cut()} {
			if err != nil {
				t.Fatal(err)
			}
		}
		ping := request(1, zkwire.OpPing, "")
		send(t, c, ping+request(2, zkwire.OpGetData, "/a"))
		silent(t, s, "the server during a cut")
		p.Restore()
		expect(t, s, ping)
		closed(t, s, "the server after Restore")
	})

	t.Run("bad input gets an error: negative durations, and any fault or dial after Close", func(t *testing.T) {
		u := newUpstream(t)
		p := newProxy(t, u)
		if err := p.Latency(-time.Second, 0); err == nil {
			t.Error("Latency(-1s, 0) = nil")
		}
		if err := p.Latency(time.Second, -time.Second); err == nil {
			t.Error("Latency(1s, -1s) = nil")
		}
		if err := p.SlowClose(-time.Second); err == nil {
			t.Error("SlowClose(-1s) = nil")
		}
		p.Close()
		for name, err := range map[string]error{"Cut": p.Cut(), "Latency": p.Latency(time.Second, 0), "Drop": p.Drop(), "DropOn": p.DropOn(zkwire.OpPing), "Up": p.Up()} {
			if !errors.Is(err, zkproxy.ErrClosed) {
				t.Errorf("%s after Close = %v, want ErrClosed", name, err)
			}
		}
		if _, err := p.Dial("tcp", u.ln.Addr().String(), time.Second); !errors.Is(err, zkproxy.ErrClosed) {
			t.Errorf("Dial after Close = %v, want ErrClosed", err)
		}
		if c, err := net.Dial("tcp", p.Addr()); err == nil {
			c.Close()
			t.Error("a closed proxy accepted a connection")
		}
	})

	t.Run("Close ends every goroutine, with bytes held by a cut, a latency and a slow close pending", func(t *testing.T) {
		before := goleak.IgnoreCurrent()
		u := newUpstream(t)
		p, err := zkproxy.New(u.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		l := zkproxy.NewLink()
		var conns []net.Conn
		for range 3 {
			c, err := net.Dial("tcp", p.Addr())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c, u.accept(t))
			c, err = l.Dial("tcp", u.ln.Addr().String(), 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c, u.accept(t))
		}
		for _, link := range []interface {
			Latency(d, jitter time.Duration) error
			SlowClose(d time.Duration) error
			Cut() error
		}{p, l} {
			for _, err := range []error{link.Latency(time.Hour, 0), link.SlowClose(time.Hour), link.Cut()} {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, c := range conns {
			send(t, c, "held")
		}
		conns[1].Close() // a server's close, held behind a slow close
		p.Close()
		l.Close()
		for _, c := range conns {
			c.Close()
		}
		u.ln.Close()
		goleak.VerifyNone(t, before)
	})
}

// BenchmarkRoundTrip is what one small request and its answer cost with
// the relay between them and without it (direct): a client writes a
// request frame after the handshake, an echo server sends it back, and the
// relay reads the echo as a reply with xid -1, as a watch notification
// looks. The
// difference is the relay's price per round trip, its counting included.
func BenchmarkRoundTrip(b *testing.B) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	p, err := zkproxy.New(echo.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, bc := range []struct{ name, addr string }{{"direct", echo.Addr().String()}, {"relay", p.Addr()}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := net.Dial("tcp", bc.addr)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			got := make([]byte, len(handshake))
			if _, err := c.Write([]byte(handshake)); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(c, got); err != nil {
				b.Fatal(err)
			}
			msg := []byte(request(zkwire.XidWatch, zkwire.OpGetData, "/lockstep/bench"))
			got = make([]byte, len(msg))
			for b.Loop() {
				if _, err := c.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, got); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
