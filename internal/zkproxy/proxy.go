// Package zkproxy puts an in-process toxiproxy between one client and a
// ZooKeeper server, so a test (or the visualizer's kill and expire keys)
// can cut that client alone off, slow it down, or have its session expired
// for real. It lives apart from zksession so that a chapter's binary, which
// only dials, does not link toxiproxy and what it brings (prometheus,
// zerolog, gorilla/mux): only tests, internal/zktest, reliability/ and the
// visualizer import it.
package zkproxy

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/go-zookeeper/zk"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// Proxy is an in-process toxiproxy in front of one ZooKeeper server. Give
// each client that a test wants to hurt its own Proxy.
type Proxy struct {
	p        *toxiproxy.Proxy
	upstream string
}

var proxySeq atomic.Int64

// New listens on a free loopback port and forwards to upstream.
func New(upstream string) (*Proxy, error) {
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	name := fmt.Sprintf("zk-%d", proxySeq.Add(1))
	p := toxiproxy.NewProxy(srv, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("zkproxy: proxy to %s: %w", upstream, err)
	}
	return &Proxy{p: p, upstream: upstream}, nil
}

// Addr is where clients should connect instead of the server.
func (p *Proxy) Addr() string { return p.p.Listen }

// Cut makes the link silent in both directions without closing anything —
// a partition, as the client sees one. Bytes are held, not dropped (an hour
// of latency), and flow again on Restore, as TCP would retransmit them once
// the network heals; toxiproxy's timeout toxic would drop them and corrupt
// the stream. New connections are held too until Restore.
func (p *Proxy) Cut() error {
	for _, dir := range []string{"upstream", "downstream"} {
		if err := p.add("cut-"+dir, "latency", dir, `{"latency":3600000}`); err != nil {
			return err
		}
	}
	return nil
}

// Restore removes every toxic: the link works again.
func (p *Proxy) Restore() {
	p.p.Toxics.ResetToxics(context.Background())
}

// Latency delays every packet from the server by d (± jitter).
func (p *Proxy) Latency(d, jitter time.Duration) error {
	return p.add("latency", "latency", "downstream",
		fmt.Sprintf(`{"latency":%d,"jitter":%d}`, d.Milliseconds(), jitter.Milliseconds()))
}

// SlowClose delays the close of each connection by d.
func (p *Proxy) SlowClose(d time.Duration) error {
	return p.add("slow-close", "slow_close", "downstream", fmt.Sprintf(`{"delay":%d}`, d.Milliseconds()))
}

func (p *Proxy) add(name, typ, stream, attrs string) error {
	js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"attributes":%s}`, name, typ, stream, attrs)
	if _, err := p.p.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		return fmt.Errorf("zkproxy: add %s toxic: %w", typ, err)
	}
	return nil
}

// Close stops the proxy and drops its connections.
func (p *Proxy) Close() { p.p.Stop() }

// Expire makes the server expire conn's session for real, on any server,
// by cutting this proxy for longer than the session can live (see
// zksession.Expire, which does the work).
func (p *Proxy) Expire(ctx context.Context, conn *zk.Conn, sessionTimeout time.Duration) error {
	return zksession.Expire(ctx, p, conn, sessionTimeout)
}

// Down stops the proxy: every connection through it closes and new ones
// are refused, as when a server's host goes down. Up starts it again.
func (p *Proxy) Down() { p.p.Stop() }

// Up starts a proxy that Down stopped, on the same address.
func (p *Proxy) Up() error {
	if err := p.p.Start(); err != nil {
		return fmt.Errorf("zkproxy: start proxy on %s: %w", p.p.Listen, err)
	}
	return nil
}

// Drop closes every connection through the proxy at once, as a server
// restart would, and accepts new ones again: the client reconnects through
// it to the same session.
func (p *Proxy) Drop() error {
	p.p.Stop()
	if err := p.p.Start(); err != nil {
		return fmt.Errorf("zkproxy: restart proxy on %s: %w", p.p.Listen, err)
	}
	return nil
}
