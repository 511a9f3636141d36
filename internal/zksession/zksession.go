// Package zksession remembers what the server granted each *zk.Conn that lockstep dialled.
//
// go-zookeeper keeps the session timeout the server negotiated to itself, yet
// everything that waits for a session to expire has to know it: a stock
// server (tickTime 2000) never grants less than 4 s, whatever the client asks.
// So lockstep dials through a Recorder, whose Dialer reads the ConnectResponse
// frame of every (re)connect on its way to go-zookeeper, and registers the
// conn with it:
//
//	rec := zksession.NewRecorder()
//	conn, events, err := zk.Connect(servers, ask, zk.WithDialer(rec.Dialer(nil)))
//	zksession.Register(conn, rec, auth)
//	…
//	zksession.Timeout(conn) // what the server granted, e.g. 4s for an ask of 1s
//
// The package imports only go-zookeeper and the standard library: the lock
// packages a learner imports use it too.
package zksession

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/go-zookeeper/zk"
)

// Recorder learns the session timeout granted on the connections its Dialer
// opens. Give each *zk.Conn its own Recorder.
type Recorder struct {
	timeoutMs atomic.Int32 // last positive timeout granted; 0 until the first ConnectResponse
}

// NewRecorder returns a Recorder that has seen no ConnectResponse yet.
func NewRecorder() *Recorder { return &Recorder{} }

// Dialer wraps base (nil = net.DialTimeout) and reads the ConnectResponse frame of every (re)connect
// (4-byte length, protocolVersion int32, timeOut int32, sessionId int64, passwd) to learn the granted timeout.
// The bytes reach go-zookeeper unchanged.
func (r *Recorder) Dialer(base zk.Dialer) zk.Dialer {
	if base == nil {
		base = net.DialTimeout
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := base(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &sniffConn{Conn: c, frame: connectFrame{granted: r.granted}}, nil
	}
}

// granted records a ConnectResponse. A session ID of 0 is the server saying
// "that session has expired" (its timeout is 0 too): go-zookeeper then dials
// again for a new session, so the last real grant stands until that one.
func (r *Recorder) granted(timeoutMs int32, sessionID int64) {
	if sessionID != 0 && timeoutMs > 0 {
		r.timeoutMs.Store(timeoutMs)
	}
}

// sniffConn passes reads through, feeding them to frame until it has seen
// the ConnectResponse (the first frame the server sends on a connection).
type sniffConn struct {
	net.Conn
	frame connectFrame
}

func (c *sniffConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.frame.done {
		c.frame.feed(p[:n])
	}
	return n, err
}

// connectHead is the part of a ConnectResponse we read: the 4-byte frame
// length, protocolVersion (int32), timeOut (int32, ms) and sessionId (int64),
// all big-endian. The password and the read-only flag follow; we skip them.
const connectHead = 4 + 4 + 4 + 8

// connectFrame collects the first connectHead bytes of a connection, however
// the reads split them, then reports the grant once.
type connectFrame struct {
	buf     [connectHead]byte
	n       int
	done    bool
	granted func(timeoutMs int32, sessionID int64)
}

func (f *connectFrame) feed(p []byte) {
	f.n += copy(f.buf[f.n:], p)
	if f.n < connectHead {
		return
	}
	f.done = true
	length := binary.BigEndian.Uint32(f.buf[0:4])
	if length < connectHead-4 { // not a ConnectResponse: leave the grant unknown
		return
	}
	timeout := int32(binary.BigEndian.Uint32(f.buf[8:12]))
	session := int64(binary.BigEndian.Uint64(f.buf[12:20]))
	f.granted(timeout, session)
}

// Auth is what a session authenticates as. Only ZooKeeper's digest scheme
// for now: User and Password, sent as "user:password".
type Auth struct{ Scheme, User, Password string }

// ParseAuth reads "user:password" (as in ZK_AUTH) into a digest Auth. The
// password may itself contain colons; user and password may not be empty.
func ParseAuth(s string) (*Auth, error) {
	user, password, ok := strings.Cut(s, ":")
	switch {
	case s == "":
		return nil, errors.New("zksession: empty auth: want user:password")
	case !ok:
		return nil, errors.New("zksession: auth has no ':': want user:password")
	case user == "":
		return nil, errors.New("zksession: auth has an empty user: want user:password")
	case password == "":
		return nil, errors.New("zksession: auth has an empty password: want user:password")
	case strings.TrimSpace(user) != user:
		return nil, errors.New("zksession: auth user starts or ends with a space: want user:password")
	}
	return &Auth{Scheme: "digest", User: user, Password: password}, nil
}

// Credentials is what conn.AddAuth(a.Scheme, …) sends.
func (a *Auth) Credentials() []byte { return []byte(a.User + ":" + a.Password) }

// String names the scheme and user, never the password.
func (a *Auth) String() string { return a.Scheme + ":" + a.User + ":***" }

// entry is what the registry knows of one conn. It must not point to the
// conn: the registry would then keep every conn alive.
type entry struct {
	rec  *Recorder
	auth *Auth
}

// The registry is a weak map: a conn that is closed and unreachable is
// garbage-collected as if it had never been registered, and a cleanup
// (runtime.AddCleanup) then deletes its entry. Nothing needs to be
// unregistered, and nothing leaks however many conns a program dials.
var (
	mu       sync.Mutex
	registry = map[weak.Pointer[zk.Conn]]entry{}
)

// Register tells the package that conn was dialled through r's Dialer and
// authenticated with auth (nil = none). Registering conn again replaces
// what was known of it.
func Register(conn *zk.Conn, r *Recorder, auth *Auth) {
	key := weak.Make(conn)
	mu.Lock()
	_, known := registry[key]
	registry[key] = entry{rec: r, auth: auth}
	mu.Unlock()
	if !known {
		runtime.AddCleanup(conn, forget, key)
	}
}

func forget(key weak.Pointer[zk.Conn]) {
	mu.Lock()
	delete(registry, key)
	mu.Unlock()
}

func lookup(conn *zk.Conn) (entry, bool) {
	if conn == nil {
		return entry{}, false
	}
	mu.Lock()
	defer mu.Unlock()
	e, ok := registry[weak.Make(conn)]
	return e, ok
}

// Timeout is the session timeout the server granted conn at its last (re)connect; 0 if unknown (not dialled by us).
func Timeout(conn *zk.Conn) time.Duration {
	e, ok := lookup(conn)
	if !ok || e.rec == nil {
		return 0
	}
	return time.Duration(e.rec.timeoutMs.Load()) * time.Millisecond
}

// ACL is the ACL lockstep gives the nodes it creates on conn: zk.AuthACL(zk.PermAll) (creator-only) when conn was
// dialled with auth, else zk.WorldACL(zk.PermAll).
func ACL(conn *zk.Conn) []zk.ACL {
	if e, ok := lookup(conn); ok && e.auth != nil {
		return zk.AuthACL(zk.PermAll)
	}
	return zk.WorldACL(zk.PermAll)
}

// AuthOf is the Auth conn was registered with; nil if none.
func AuthOf(conn *zk.Conn) *Auth {
	e, _ := lookup(conn)
	return e.auth
}

// Explain adds to a zk.ErrNoAuth what usually causes it in the course: the
// node was created, creator-only, by a session with other credentials
// (another ZK_AUTH=user:password, or none). Other errors come back as
// they are, so a caller can wrap every error it returns.
func Explain(conn *zk.Conn, err error) error {
	if !errors.Is(err, zk.ErrNoAuth) {
		return err
	}
	who := "this session has no credentials (ZK_AUTH is unset)"
	if a := AuthOf(conn); a != nil {
		who = "this session authenticated as " + a.String() + " (ZK_AUTH)"
	}
	return fmt.Errorf("%w: %s, and the node's ACL does not let it in. The course makes its nodes creator-only when ZK_AUTH=user:password is set: run with the ZK_AUTH that created them", err, who)
}
