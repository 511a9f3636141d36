package zkproxy

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// A Proxy is a Link that listens on a loopback port and forwards every
// connection to one server. Give each client that a test wants to hurt its
// own Proxy, and the client the Proxy's Addr instead of the server's.
type Proxy struct {
	*Link
	upstream string
	addr     string

	mu       sync.Mutex // guards the three below
	listener net.Listener
	stop     context.CancelFunc // ends a dial the accept loop is making
	accepted chan struct{}      // closed when the accept loop has ended
}

// New listens on a free loopback port and forwards to upstream.
func New(upstream string) (*Proxy, error) {
	p := &Proxy{Link: NewLink(), upstream: upstream}
	addr, err := p.listen("127.0.0.1:0")
	if err != nil {
		p.Link.Close()
		return nil, err
	}
	p.addr = addr
	return p, nil
}

// Addr is where clients should connect instead of the server.
func (p *Proxy) Addr() string { return p.addr }

// Down stops listening and closes every connection: new ones are refused,
// as when a server's host goes down. Up listens again on the same address.
func (p *Proxy) Down() {
	p.mu.Lock()
	ln, stop, accepted := p.listener, p.stop, p.accepted
	p.listener = nil
	p.mu.Unlock()
	if ln != nil {
		stop()
		ln.Close()
		<-accepted
	}
	p.abortAll()
}

// Up listens again, on the same address, after Down.
func (p *Proxy) Up() error {
	_, err := p.listen(p.addr)
	return err
}

// Close stops listening, closes every connection and waits until every
// goroutine of the proxy has ended.
func (p *Proxy) Close() {
	p.Link.cancel() // before Down: Up now fails
	p.Down()
	p.Link.Close()
}

// listen starts the accept loop on addr and returns the address it got.
func (p *Proxy) listen(addr string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return "", ErrClosed
	}
	if p.listener != nil {
		return addr, nil // already up
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("zkproxy: listen on %s for %s: %w", addr, p.upstream, err)
	}
	ctx, stop := context.WithCancel(p.ctx)
	p.listener, p.stop, p.accepted = ln, stop, make(chan struct{})
	go p.accept(ctx, ln, p.accepted)
	return ln.Addr().String(), nil
}

// accept relays each connection to upstream, dialled at once (a cut holds
// its bytes, not its setup), until ln is closed.
func (p *Proxy) accept(ctx context.Context, ln net.Listener, accepted chan<- struct{}) {
	defer close(accepted)
	for {
		client, err := ln.Accept()
		if err != nil {
			return
		}
		gen := p.generation()
		d := net.Dialer{Timeout: 10 * time.Second}
		server, err := d.DialContext(ctx, "tcp", p.upstream)
		if err != nil {
			client.Close() // the client sees its connection close, as if refused
			continue
		}
		p.relay(client, server, gen) // an error: closed, and both conns with it
	}
}
