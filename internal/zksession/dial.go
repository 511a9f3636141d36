package zksession

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/zkdial"
)

// DefaultTimeout is the session timeout Dial asks for unless told otherwise.
const DefaultTimeout = 4 * time.Second

// Config is what Dial asks for (zkdial.Config). The zero Config asks for
// DefaultTimeout, without credentials, over plain TCP.
type Config = zkdial.Config

// Option changes a Config (seqlock's SessionOption is one).
type Option = zkdial.Option

// A Session is what the harness (zktest, demo, scene) needs of a
// chapter's session type; a *seqlock.Session is one. Nothing under
// internal/ imports a chapter, so the harness names it by what it does.
type Session interface {
	Conn() *zk.Conn
	Timeout() time.Duration
	// Done is closed when the session ends: the server expired it, or
	// Close. Nothing reopens it; a worker that must go on opens another.
	Done() <-chan struct{}
	Close()
}

// NewSession is a chapter's session constructor: seqlock.NewSession.
type NewSession[S Session] func(ctx context.Context, servers []string, opts ...Option) (S, error)

// Dialled is a conn Dial opened, with what the server granted it.
type Dialled struct {
	Conn   *zk.Conn
	Events <-chan zk.Event // go-zookeeper's event channel; it drops events nobody reads
	Auth   *Auth           // what it authenticated as; nil if nothing
	rec    *Recorder
}

// Timeout is the session timeout the server granted at the last
// (re)connect that opened a session.
func (d *Dialled) Timeout() time.Duration { return d.rec.Timeout() }

// Dial connects to servers and waits until the session is established, the
// context ends, or no server could be reached once through the whole list
// (zk.Connect alone never fails for an unreachable server: it retries for
// ever). It refuses a connect string with a chroot at once (CheckServers).
// The go-zookeeper logger is routed to slog at debug level.
func Dial(ctx context.Context, servers []string, cfg Config) (*Dialled, error) {
	if len(servers) == 0 {
		return nil, errors.New("zksession: no servers to dial")
	}
	if err := CheckServers(servers); err != nil {
		return nil, err
	}
	if cfg.Auth != nil {
		if err := checkAuth(cfg.Auth); err != nil {
			return nil, err
		}
	}
	ask := cfg.Timeout
	if ask <= 0 {
		ask = DefaultTimeout
	}
	rec := NewRecorder()
	all := func(c *zk.Conn) {
		zk.WithLogger(slogLogger{})(c)
		zk.WithLogInfo(false)(c)
		zk.WithDialer(rec.Dialer(cfg.Dialer))(c)
		building.Store(c, rec)
		defer building.Delete(c)
		for _, o := range cfg.ZKOptions {
			o(c)
		}
		if cfg.OnEvent != nil {
			zk.WithEventCallback(cfg.OnEvent)(c)
		}
	}
	conn, events, err := zk.Connect(servers, ask, all)
	if err != nil {
		return nil, fmt.Errorf("zksession: connect to %v: %w", servers, err)
	}
	// go-zookeeper spends 1 s per failed dial and then pauses 1 s before
	// starting over, so two rounds through the list are a fair bound for
	// reaching a server. Once one has accepted the connection, a busy
	// server (a loaded machine, a long GC pause) may take longer to grant
	// the session: that gets slowSession.
	giveUp := time.NewTimer(time.Duration(2*len(servers)+1) * time.Second)
	defer giveUp.Stop()
	reached := false
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return nil, fmt.Errorf("zksession: connect to %v: connection closed", servers)
			}
			if ev.State == zk.StateConnected && !reached {
				reached = true
				giveUp.Reset(slowSession)
			}
			if ev.State != zk.StateHasSession {
				continue
			}
			if rec.Timeout() <= 0 {
				conn.Close()
				return nil, fmt.Errorf("zksession: connect to %v: the server's ConnectResponse went unread, so the granted session timeout is unknown (a dialer given as a go-zookeeper option replaced ours: give it as Config.Dialer)", servers)
			}
			if cfg.Auth != nil {
				if err := conn.AddAuth(cfg.Auth.Scheme, cfg.Auth.Credentials()); err != nil {
					conn.Close()
					return nil, fmt.Errorf("zksession: authenticate as %s: %w", cfg.Auth, err)
				}
			}
			return &Dialled{Conn: conn, Events: events, Auth: cfg.Auth, rec: rec}, nil
		case <-giveUp.C:
			conn.Close()
			if reached {
				return nil, fmt.Errorf("zksession: connect to %v: %w: a server accepted the connection but granted no session in %v (overloaded, or more connections from this address than its maxClientCnxns allows)", servers, zk.ErrNoServer, slowSession)
			}
			return nil, fmt.Errorf("zksession: connect to %v: %w", servers, zk.ErrNoServer)
		case <-ctx.Done():
			conn.Close()
			return nil, fmt.Errorf("zksession: connect to %v: %w", servers, ctx.Err())
		}
	}
}

// slowSession bounds the wait for a session once a server has accepted the
// connection.
const slowSession = 30 * time.Second

// building holds, while Dial applies the options of a conn being built,
// that conn's Recorder, so that WithDialer can put it in front.
var building sync.Map // *zk.Conn → *Recorder

// WithDialer is zk.WithDialer for a conn Dial builds (as one of its
// ZKOptions): d dials, and the Recorder still reads the session timeout the
// server grants on each connection d opens.
func WithDialer(d zk.Dialer) func(*zk.Conn) {
	return func(c *zk.Conn) {
		if rec, ok := building.Load(c); ok {
			d = rec.(*Recorder).Dialer(d)
		}
		zk.WithDialer(d)(c)
	}
}

// ErrChroot is wrapped in the error for a connect string with a chroot.
var ErrChroot = errors.New("zksession: chroot in the connect string")

// CheckServers refuses a server with a chroot ("host:2181/app", as Java
// clients, Curator and Kafka accept it): go-zookeeper has no chroot
// support, and would take "2181/app" for the port. The error names the
// chroot and what to do instead.
func CheckServers(servers []string) error {
	for _, s := range servers {
		if i := strings.IndexByte(s, '/'); i >= 0 {
			return fmt.Errorf("%w: %q ends in the chroot %q, which go-zookeeper does not support: connect to %s and put your nodes under %s instead (in a demo: -path %s/…)",
				ErrChroot, s, s[i:], s[:i], s[i:], strings.TrimSuffix(s[i:], "/"))
		}
	}
	return nil
}

// slogLogger adapts go-zookeeper's Printf logger to slog.
type slogLogger struct{}

func (slogLogger) Printf(format string, args ...any) {
	slog.Debug(fmt.Sprintf(format, args...), "component", "go-zookeeper")
}

// DialWith is the Option that opens the session's TCP connections with d
// (a proxy, a counter of bytes); the Recorder still reads what the server
// grants. The lockstep tests, demos and bench give it to seqlock.NewSession
// (seqlock.SessionOption is an Option).
func DialWith(d zk.Dialer) Option { return func(c *Config) { c.Dialer = d } }

// OnEvent is the Option that lets f see every event of the conn, after
// whoever set OnEvent before. It runs on go-zookeeper's goroutine: it must
// not block.
func OnEvent(f func(zk.Event)) Option {
	return func(c *Config) {
		prev := c.OnEvent
		c.OnEvent = func(ev zk.Event) {
			if prev != nil {
				prev(ev)
			}
			f(ev)
		}
	}
}
