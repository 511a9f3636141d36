// Package zksession dials a ZooKeeper session the way lockstep needs it:
// it waits for the session (zk.Connect does not), authenticates it, and
// learns the session timeout the server granted.
//
// go-zookeeper keeps the session timeout the server negotiated to itself, yet
// everything that waits for a session to expire has to know it: a stock
// server (tickTime 2000) never grants less than 4 s, whatever the client asks.
// So Dial goes through a Recorder, whose Dialer reads the ConnectResponse
// frame of every (re)connect on its way to go-zookeeper:
//
//	d, err := zksession.Dial(ctx, servers, zksession.Config{Timeout: time.Second})
//	d.Timeout() // what the server granted, e.g. 4s for an ask of 1s
//
// What the server granted travels with the dialled session (seqlock.Session
// owns one), never in a table keyed by conn. Connect is Dial for a plain
// conn with ZK_AUTH's credentials (chapters 01–03, the harness). Expire
// ends a session for real over a Link that can be cut, by waiting out its
// timeout; ExpireNow ends it at once, with the password the Recorder read
// (as another client that takes the session over and closes it). The package
// imports only go-zookeeper, zkwire and zkdial: the lock packages a
// learner imports use it too.
package zksession

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkwire"
	"github.com/lockstep-zk/lockstep/zkdial"
)

// Recorder learns the session timeout granted on the connections its Dialer
// opens, and the session's ID and password (for ExpireNow). Give each
// *zk.Conn its own Recorder.
type Recorder struct {
	timeoutMs atomic.Int32 // last positive timeout granted; 0 until the first ConnectResponse
	sessionID atomic.Int64 // the session of the last grant; 0 until the first
}

// NewRecorder returns a Recorder that has seen no ConnectResponse yet.
func NewRecorder() *Recorder { return &Recorder{} }

// Dialer wraps base (nil = net.DialTimeout) and reads the ConnectResponse
// frame of every (re)connect to learn the granted timeout. The bytes reach
// go-zookeeper unchanged.
func (r *Recorder) Dialer(base zk.Dialer) zk.Dialer {
	return zkwire.Dialer(base, func(c net.Conn) net.Conn { return zkwire.Tap(c, r.splitter(), nil) })
}

// Timeout is the session timeout the server granted at the last (re)connect
// that opened a session; 0 before the first.
func (r *Recorder) Timeout() time.Duration {
	return time.Duration(r.timeoutMs.Load()) * time.Millisecond
}

// granted records a ConnectResponse. A session ID of 0 is the server saying
// "that session has expired" (its timeout is 0 too): go-zookeeper then dials
// again for a new session, so the last real grant stands until that one.
// The password of a granted session is kept under its ID (passwords) until
// the Recorder sees the session end or another one granted.
func (r *Recorder) granted(resp zkwire.ConnectResponse) {
	if resp.SessionID != 0 && resp.TimeoutMs > 0 {
		r.timeoutMs.Store(resp.TimeoutMs)
	}
	if resp.SessionID != 0 && len(resp.Passwd) > 0 {
		passwords.Store(resp.SessionID, resp.Passwd)
	}
	if old := r.sessionID.Swap(resp.SessionID); old != 0 && old != resp.SessionID {
		passwords.Delete(old)
	}
}

// splitter reads the first frame of a connection, the ConnectResponse, and
// records its grant; then it stops listening.
func (r *Recorder) splitter() *zkwire.Splitter {
	return &zkwire.Splitter{Head: zkwire.ConnectResponseMax, Frame: func(_ int, head []byte) bool {
		if resp, ok := zkwire.ParseConnectResponse(head); ok { // not ok: not a ConnectResponse, leave the grant unknown
			r.granted(resp)
		}
		return false
	}}
}

// Auth is what a session authenticates as (zkdial.Auth).
type Auth = zkdial.Auth

// ParseAuth reads "user:password" (as in ZK_AUTH) into a digest Auth. The
// password may itself contain colons; user and password may not be empty.
func ParseAuth(s string) (*Auth, error) {
	if s == "" {
		return nil, errors.New("zksession: empty auth: want user:password")
	}
	user, password, ok := strings.Cut(s, ":")
	if !ok {
		return nil, errors.New("zksession: auth has no ':': want user:password")
	}
	a := &Auth{Scheme: "digest", User: user, Password: password}
	if err := checkAuth(a); err != nil {
		return nil, err
	}
	return a, nil
}

// checkAuth says what is wrong with a digest user and password, if anything.
func checkAuth(a *Auth) error {
	switch {
	case a.User == "":
		return errors.New("zksession: auth has an empty user: want user:password")
	case a.Password == "":
		return errors.New("zksession: auth has an empty password: want user:password")
	case strings.TrimSpace(a.User) != a.User:
		return errors.New("zksession: auth user starts or ends with a space: want user:password")
	case strings.Contains(a.User, ":"):
		return errors.New("zksession: auth user contains ':': want user:password")
	}
	return nil
}

// Explain adds to a zk.ErrNoAuth what usually causes it in the course: the
// node was created, creator-only, by a session with other credentials, or
// with none. auth is what the session was dialled with. nil claims nothing:
// the caller may not know (credentials added later with conn.AddAuth are
// not seen here). Other errors come back as they are, so a caller can wrap
// every error it returns.
func Explain(auth *Auth, err error) error {
	if !errors.Is(err, zk.ErrNoAuth) {
		return err
	}
	who := "the node's ACL does not let this session in"
	if auth != nil {
		who = "this session authenticated as " + auth.String() + ", and the node's ACL does not let it in"
	}
	return fmt.Errorf("%w: %s. The course makes its nodes creator-only when the session has credentials (ZK_AUTH=user:password for the demos and tests): use the credentials that created them", err, who)
}

// ACL is the ACL lockstep gives the nodes it creates for a session dialled
// with auth: creator-only (zk.AuthACL) when it has credentials, else open
// to anyone (zk.WorldACL).
func ACL(auth *Auth) []zk.ACL {
	if auth != nil {
		return zk.AuthACL(zk.PermAll)
	}
	return zk.WorldACL(zk.PermAll)
}
