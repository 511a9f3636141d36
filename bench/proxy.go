package main

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

// countingProxy counts a client the bench cannot wrap: Curator runs in a
// JVM, so its sessions cannot be dialled through the wire's dialer. Instead the
// JVM connects to this proxy, which forwards every byte to one ZooKeeper
// server and feeds both directions to a wire, with the same framing rules:
// a client → server frame is a request, a server → client frame with xid
// -1 a notification, the first frame each way (connect) skipped, pings and
// setWatches not counted.
type countingProxy struct {
	ln       net.Listener
	upstream string
	w        *wire

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// newCountingProxy listens on a free loopback port in front of upstream.
func newCountingProxy(upstream string, w *wire) (*countingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("counting proxy for %s: %w", upstream, err)
	}
	p := &countingProxy{ln: ln, upstream: upstream, w: w, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is where the client connects instead of the server.
func (p *countingProxy) Addr() string { return p.ln.Addr().String() }

func (p *countingProxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		server, err := net.Dial("tcp", p.upstream)
		if err != nil {
			client.Close() // the client sees a refused server and tries again
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Add(2)
		go p.pipe(server, client, p.w.requests())
		go p.pipe(client, server, p.w.replies())
	}
}

// track remembers a pair of connections so Close can end them; false if
// the proxy is already closed.
func (p *countingProxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		a.Close()
		b.Close()
		return false
	}
	p.conns[a], p.conns[b] = true, true
	return true
}

// pipe copies src to dst, counting each chunk before it is forwarded: once
// the bytes are out the answer can come back, and a count taken after the
// write could be missing when the bench reads the counters. When either
// side ends, both do.
func (p *countingProxy) pipe(dst, src net.Conn, f *zkwire.Splitter) {
	defer p.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			f.Feed(buf[:n])
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = errors.Join(err, werr)
			}
		}
		if err != nil {
			break
		}
	}
	src.Close()
	dst.Close()
	p.mu.Lock()
	delete(p.conns, src)
	delete(p.conns, dst)
	p.mu.Unlock()
}

// Close stops listening, ends every connection and waits for the copies.
func (p *countingProxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
