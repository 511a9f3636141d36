package zkconn

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
)

// Proxy is an in-process toxiproxy in front of one ZooKeeper server. Give
// each client that a test wants to hurt its own Proxy.
type Proxy struct {
	p        *toxiproxy.Proxy
	upstream string
}

var proxySeq atomic.Int64

// NewProxy listens on a free loopback port and forwards to upstream.
func NewProxy(upstream string) (*Proxy, error) {
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	name := fmt.Sprintf("zk-%d", proxySeq.Add(1))
	p := toxiproxy.NewProxy(srv, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("zkconn: proxy to %s: %w", upstream, err)
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
		return fmt.Errorf("zkconn: add %s toxic: %w", typ, err)
	}
	return nil
}

// Close stops the proxy and drops its connections.
func (p *Proxy) Close() { p.p.Stop() }

// Expire makes the server expire conn's session for real: it cuts the
// proxy conn goes through, waits until the session can no longer exist
// (sessionTimeout plus a margin for the server's tick-based expiry), then
// restores the link and waits until conn has learned it (its session ID
// changes or it reports StateExpired).
func (p *Proxy) Expire(ctx context.Context, conn *zk.Conn, sessionTimeout time.Duration) error {
	old := conn.SessionID()
	if err := p.Cut(); err != nil {
		return err
	}
	select {
	case <-time.After(sessionTimeout + sessionTimeout/2 + 500*time.Millisecond):
	case <-ctx.Done():
		p.Restore()
		return ctx.Err()
	}
	p.Restore()
	for {
		if id := conn.SessionID(); id != old || conn.State() == zk.StateExpired {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zkconn: session %#x not expired yet: %w", old, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
