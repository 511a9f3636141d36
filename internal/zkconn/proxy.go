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

// Expire makes the server expire conn's session for real, on any server:
// it cuts the proxy conn goes through and keeps it cut until the session
// can no longer exist, then restores the link and waits until conn has
// learned it (its session ID changes or it reports StateExpired).
//
// How long "can no longer exist" takes is the server's business: it
// expires a session between its granted timeout and one tick later
// (ZooKeeper checks sessions once a tick, and a tick is at most half the
// smallest session it grants). So Expire waits 1.5× the timeout the server
// granted conn (sessionTimeout: pass what it granted, not what was asked)
// plus a margin. Should the session still be alive when the link
// comes back (a server with a custom minSessionTimeout), conn reconnects to
// it, and Expire cuts again for longer, until ctx ends.
func (p *Proxy) Expire(ctx context.Context, conn *zk.Conn, sessionTimeout time.Duration) error {
	old := conn.SessionID()
	timeout := sessionTimeout
	expired := func() bool { return conn.SessionID() != old || conn.State() == zk.StateExpired }
	for attempt := 1; ; attempt++ {
		if err := p.Cut(); err != nil {
			return err
		}
		wait := time.Duration(attempt)*timeout + timeout/2 + 500*time.Millisecond
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			p.Restore()
			return ctx.Err()
		}
		p.Restore()
		for {
			if expired() {
				return nil
			}
			// Back in a session with the old ID: it outlived the cut.
			if conn.State() == zk.StateHasSession && conn.SessionID() == old && p.reconnected(conn) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("zkconn: session %#x not expired yet: %w", old, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// reconnected reports whether conn has a live connection through p now: a
// request succeeds. (Right after Restore, conn may still believe in the
// connection the cut broke; a request tells.)
func (p *Proxy) reconnected(conn *zk.Conn) bool {
	_, err := conn.Sync("/")
	return err == nil
}

// Drop closes every connection through the proxy at once, as a server
// restart would, and accepts new ones again: the client reconnects through
// it to the same session.
func (p *Proxy) Drop() error {
	p.p.Stop()
	if err := p.p.Start(); err != nil {
		return fmt.Errorf("zkconn: restart proxy on %s: %w", p.p.Listen, err)
	}
	return nil
}
