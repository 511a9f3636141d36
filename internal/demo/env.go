package demo

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// Env is what the plumbing hands a story.
type Env struct {
	Out     io.Writer
	Servers []string
	// Root is the run's own znode, created before Run and deleted after it
	// (with what is left below it). With -path given, Root is -path's
	// parent, and it is left in place: the user chose it.
	Root string
	// Path is -path, or Program.Path under Root.
	Path string
	// Session is -session: what every session of the run asks for. The
	// server grants what its configuration allows; Granted says what.
	Session time.Duration
	// Admin is a session for setting up, checking and cleaning up. It
	// holds no lock and is never cut off, so it asks for the default
	// timeout (zksession.DefaultTimeout), not -session.
	Admin *zk.Conn
	// Set names the flags given on the command line.
	Set map[string]bool
	// Auth is ZK_AUTH's credentials, nil if unset: every session of the
	// run authenticates with them, and the run's nodes are then
	// creator-only (ACL).
	Auth *zksession.Auth

	mu      sync.Mutex
	conns   []*zk.Conn
	closers []func() // the Sessions the story opened
	links   []*zkproxy.Link
	granted func() time.Duration // of the first session that asked for -session
}

// ACL is what the run's nodes get: creator-only under ZK_AUTH, else open.
func (e *Env) ACL() []zk.ACL { return zksession.ACL(e.Auth) }

// Explain adds a hint to a zk.ErrNoAuth (zksession.Explain).
func (e *Env) Explain(err error) error { return zksession.Explain(e.Auth, err) }

// Dial opens another session that asks for -session, through zksession.Connect;
// its session events are drained (pass zk.WithEventCallback to see them).
// The session is closed at the end of the run, if the story has not
// closed it.
func (e *Env) Dial(ctx context.Context, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	return e.dial(ctx, e.Servers, e.Session, opts...)
}

// DialTimeout is Dial with another session timeout, for a client that is
// not the one the story cuts off (08's client-B).
func (e *Env) DialTimeout(ctx context.Context, session time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	return e.dial(ctx, e.Servers, session, opts...)
}

// DialCuttable opens a session that asks for -session over a link of its
// own (zkproxy.Link, in this process), so the story can cut that client
// alone off. The session is closed at the end of the run, its link
// restored first.
func (e *Env) DialCuttable(ctx context.Context, opts ...func(*zk.Conn)) (*zk.Conn, *zkproxy.Link, error) {
	link := e.link()
	conn, err := e.dial(ctx, e.Servers, e.Session, append([]func(*zk.Conn){zksession.WithDialer(link.Dial)}, opts...)...)
	return conn, link, err
}

// DialConnOver opens another session, asking for session, over link (one
// DialCuttable returned): a second client of the same process, which the
// same cut silences (08's client-A has one for its lock and one for the
// resource it writes). It is closed at the end of the run.
func (e *Env) DialConnOver(ctx context.Context, link *zkproxy.Link, session time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	return e.dial(ctx, e.Servers, session, append([]func(*zk.Conn){zksession.WithDialer(link.Dial)}, opts...)...)
}

// link opens a link, restored at the end of the run and then closed.
func (e *Env) link() *zkproxy.Link {
	link := zkproxy.NewLink()
	e.mu.Lock()
	e.links = append(e.links, link)
	e.mu.Unlock()
	return link
}

func (e *Env) dial(ctx context.Context, servers []string, session time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	d, err := zksession.ConnectGranted(ctx, servers, session, opts...)
	if err != nil {
		return nil, err
	}
	go zksession.Drain(d.Events)
	e.mu.Lock()
	e.conns = append(e.conns, d.Conn)
	if session == e.Session && e.granted == nil {
		e.granted = d.Timeout
	}
	e.mu.Unlock()
	return d.Conn, nil
}

// Granted is the session timeout the server grants for -session: what
// session expiry and a lock's loss detection take. A stock server
// (tickTime 2000) grants at least 4 s, whatever -session asks. If no
// session has asked for -session yet, Granted opens one to find out.
func (e *Env) Granted(ctx context.Context) time.Duration {
	e.mu.Lock()
	granted := e.granted
	e.mu.Unlock()
	if granted == nil {
		if _, err := e.Dial(ctx); err != nil {
			return e.Session // the story's own Dial will say what is wrong
		}
		e.mu.Lock()
		granted = e.granted
		e.mu.Unlock()
	}
	return granted()
}

// closeAll closes the sessions the story opened, except Admin.
func (e *Env) closeAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	// A cut link would swallow the goodbye: let it through, so the server
	// ends those sessions now instead of after their timeout.
	for _, l := range e.links {
		l.Restore()
	}
	for _, c := range e.closers {
		c()
	}
	for _, c := range e.conns {
		if c != e.Admin {
			c.Close()
		}
	}
	for _, l := range e.links {
		l.Close() // what it still relays, and its goroutines, end with the run
	}
}
