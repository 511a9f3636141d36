package seqlock

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
	"github.com/lockstep-zk/lockstep/zkdial"
)

// A Session is one ZooKeeper client session and its conn. Build locks on
// it (New(s, dir)); use Conn for requests of your own; Close it when done.
//
// A lock lives as long as its session: its node is ephemeral, and dies
// with the session that created it. So the Session knows how long the
// server waits before it expires the session (what it granted, not what
// was asked: a stock server grants at least 4 s) and whether the conn
// still has it, for every lock built on it, as etcd's concurrency.Session
// does for its locks.
//
// It is one session from NewSession to its end: when the server expires
// it (or Close ends it), every hold on it is lost (its Lost is closed),
// then Done is closed, and a Lock on it, or waiting in its queue, returns
// ErrSessionExpired (ErrSessionClosed) at once. Nothing reopens it: a
// program that must go on opens a new Session, as an etcd program opens a
// new concurrency.Session when the old one's Done fires:
//
//	for {
//		s, err := seqlock.NewSession(ctx, servers)
//		…
//		work(s) // until <-s.Done()
//	}
type Session struct {
	conn    *zk.Conn
	calls   zkcall.Conn // conn, with a ctx on every request, in this session
	timeout time.Duration
	auth    *zksession.Auth // the credentials it was dialled with, nil if none
	done    chan struct{}
	dirs    knownDirs // lock directories this Session's locks joined (queue.go: ensureDir)
	onEvent func(zk.Event)

	mu     sync.Mutex
	err    error   // why the session ended: ErrSessionExpired or ErrSessionClosed; nil while it lives
	ended  *signal // fires when the session ends
	silent *signal // fires when the conn has had no session for d/6
	timer  *time.Timer
	armed  int // which disconnection the timer is for
}

// A SessionOption configures a Session: WithSessionTimeout, WithDigest,
// or any func(*zkdial.Config) of your own.
type SessionOption = zkdial.Option

// WithSessionTimeout asks the server for session timeout d (default 4 s).
// The server grants what its configuration allows; Timeout says what.
func WithSessionTimeout(d time.Duration) SessionOption {
	return func(c *zkdial.Config) { c.Timeout = d }
}

// WithDigest authenticates the session as user:password (ZooKeeper's
// digest scheme). The nodes its locks create are then creator-only.
func WithDigest(user, password string) SessionOption {
	return func(c *zkdial.Config) { c.Auth = &zkdial.Auth{Scheme: "digest", User: user, Password: password} }
}

// NewSession dials servers and waits for the session: it returns once the
// server has granted one, or with an error once every server was tried,
// ctx ended, or a server has a chroot ("host:2181/app": go-zookeeper does
// not support one).
func NewSession(ctx context.Context, servers []string, opts ...SessionOption) (*Session, error) {
	s := &Session{done: make(chan struct{}), ended: newSignal(), silent: newSignal()}
	var cfg zkdial.Config
	for _, o := range opts {
		o(&cfg)
	}
	s.onEvent = cfg.OnEvent
	cfg.Dialer = zkwire.Dialer(cfg.Dialer, func(c net.Conn) net.Conn { return zkwire.ReadAhead(c, readBuffer) })
	// The Session hears every state change on go-zookeeper's goroutine, in
	// order; until Dial returns it only passes them on.
	cfg.OnEvent = s.handle
	d, err := zksession.Dial(ctx, servers, cfg)
	if err != nil {
		return nil, fmt.Errorf("seqlock: new session: %w", err)
	}
	s.mu.Lock()
	if s.err != nil { // it expired while Dial returned
		s.mu.Unlock()
		d.Conn.Close()
		return nil, fmt.Errorf("seqlock: new session: %w", s.err)
	}
	s.conn, s.auth, s.timeout = d.Conn, d.Auth, d.Timeout()
	s.calls = zkcall.Conn{Conn: d.Conn, Session: d.Conn.SessionID()}
	if s.conn.State() != zk.StateHasSession {
		s.arm() // it went away while Dial returned
	}
	s.mu.Unlock()
	return s, nil
}

// readBuffer is the read buffer of the session's connections
// (zkwire.ReadAhead: it saves the client a system call per reply and per
// notification). It holds a few typical replies; a larger one (the listing
// of a long queue) is read past the buffer, straight into go-zookeeper's.
const readBuffer = 4096

// Conn is the session's conn, for requests of your own.
func (s *Session) Conn() *zk.Conn { return s.conn }

// Timeout is the session timeout the server granted.
func (s *Session) Timeout() time.Duration { return s.timeout }

// Done is closed when the session ends: the server expired it, or Close.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close ends the session: the server deletes its ephemeral nodes at once,
// and every hold on it is lost. It returns once go-zookeeper has stopped,
// also when the server had expired the session already (the conn's close
// begun then, which can wait a second for a reply that never comes, is
// waited for: nothing of the session outlives Close).
func (s *Session) Close() {
	s.end(ErrSessionClosed, "the session was closed")
	if s.conn != nil {
		s.conn.Close() // go-zookeeper's Close runs once; a second call waits for the first
	}
}

// end ends the session for reason: Done closes and every hold on it is
// lost. It reports whether this call ended it (later calls do nothing);
// the caller then closes the conn, so that go-zookeeper stops. (If it
// opens another session before it has stopped, nothing of ours uses it:
// every acquisition asks alive first, and every read is tied to the
// session it began in.)
func (s *Session) end(err error, reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	s.err = err
	s.disarm()
	s.ended.fire(reason)
	close(s.done)
	return s.conn != nil
}

// alive returns nil while the session lives, else why it ended.
func (s *Session) alive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// handle sees every event of the conn. It only takes s.mu and closes
// channels: go-zookeeper waits for it before it goes on.
//
// When is a hold lost behind the holder's back?
//
//	(a) our session ended: the server expired it (go-zookeeper says
//	    StateExpired), or Close;
//	(b) the conn has had no session for d/6, d the granted timeout.
//
// Why d/6 in (b)? While cut off, the client hears nothing, and a
// disconnection delivers no watch event. go-zookeeper only notices a
// silent partition when nothing has been read for 2/3·d (its receive
// timeout). The server expires the session — and may give the lock to the
// next in line — d after it last heard from us, which is about when we
// last heard from it. So when we first see "no session", about d/3 is
// left; we give up after half of it, keeping the other half as margin for
// a busy machine and the clocks of two processes. A quick reconnect (a
// server restart, a short blip) stays well inside d/6 and keeps the lock.
// The Session lives on after (b): a lock taken after the reconnect holds.
func (s *Session) handle(ev zk.Event) {
	if ev.Type == zk.EventSession {
		switch ev.State {
		case zk.StateExpired:
			if s.end(ErrSessionExpired, "session expired") {
				// go-zookeeper's Close waits for its event loop, which
				// is the goroutine calling us: close it from another.
				go s.conn.Close()
			}
		case zk.StateHasSession:
			s.mu.Lock()
			s.disarm()
			if s.silent.hasFired() {
				s.silent = newSignal() // back in time for the server, too late for the holds of before
			}
			s.mu.Unlock()
		case zk.StateDisconnected, zk.StateConnecting, zk.StateConnected:
			s.mu.Lock()
			s.arm()
			s.mu.Unlock()
		}
	}
	if s.onEvent != nil {
		s.onEvent(ev)
	}
}

// arm starts the d/6 countdown of (b), unless it runs already. s.mu is held.
func (s *Session) arm() {
	if s.timer != nil || s.err != nil || s.conn == nil {
		return // counting already; ended; still dialling
	}
	grace := s.timeout / 6
	s.armed++
	armed, silent := s.armed, s.silent
	s.timer = time.AfterFunc(grace, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.armed == armed && s.timer != nil {
			silent.fire(fmt.Sprintf("no session for %v, a sixth of the session timeout", grace.Round(time.Millisecond)))
		}
	})
}

// disarm stops the countdown: the conn has a session again. s.mu is held.
func (s *Session) disarm() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.armed++
}

// signals returns what tells a hold that it is lost: ended fires when the
// session ends, silent when the conn has been without it for d/6.
func (s *Session) signals() (ended, silent *signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended, s.silent
}

// acl is the ACL of the nodes our locks create: creator-only when the
// Session has credentials, else open to anyone.
func (s *Session) acl() []zk.ACL { return zksession.ACL(s.auth) }

// explain adds a hint to ErrNoAuth (see zksession.Explain).
func (s *Session) explain(err error) error { return zksession.Explain(s.auth, err) }

// A signal fires once, with a reason, and tells the holds that asked
// (tell) when it does: holding the lock then costs no goroutine.
type signal struct {
	mu     sync.Mutex
	fired  bool
	reason string
	holds  map[*hold]struct{} // to tell when it fires; nil once it has
}

func newSignal() *signal { return &signal{} }

func (g *signal) fire(reason string) {
	g.mu.Lock()
	if g.fired {
		g.mu.Unlock()
		return
	}
	g.fired, g.reason = true, reason
	holds := g.holds
	g.holds = nil
	g.mu.Unlock()
	// Before fire returns every hold's Lost is closed (loseWhileHeld takes
	// only the hold's lock, and tells its observer from another goroutine).
	for h := range holds {
		h.loseWhileHeld(reason)
	}
}

// hasFired says whether g has fired.
func (g *signal) hasFired() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fired
}

// tell has h told (h.loseWhileHeld) when g fires, or at once if it has.
func (g *signal) tell(h *hold) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fired {
		h.loseWhileHeld(g.reason)
		return
	}
	if g.holds == nil {
		g.holds = map[*hold]struct{}{}
	}
	g.holds[h] = struct{}{}
}

// forget undoes tell: h is being released.
func (g *signal) forget(h *hold) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.holds, h)
}
