// Package zkdial is what a lockstep Session is dialled with: the session
// timeout to ask for, the credentials, and how the TCP connections are
// opened. seqlock.NewSession takes its Options (seqlock.SessionOption is
// an Option): seqlock.WithSessionTimeout and seqlock.WithDigest are the
// usual ones, and any func(*Config) is one too.
package zkdial

import (
	"time"

	"github.com/go-zookeeper/zk"
)

// Config is what a session is dialled with. The zero Config asks for a
// 4 s session timeout, without credentials, over plain TCP.
type Config struct {
	// Timeout is the session timeout to ask for; the server grants
	// something between its minSessionTimeout and maxSessionTimeout (2 and
	// 20 ticks unless set), and seqlock.Session.Timeout says what.
	Timeout time.Duration
	// Auth, if set, authenticates the session before NewSession returns;
	// go-zookeeper sends the credentials again after every reconnect.
	Auth *Auth
	// Dialer opens the TCP connections (nil: net.DialTimeout): a proxy, a
	// counter of bytes. The session still reads the timeout the server
	// grants on each connection it opens.
	Dialer zk.Dialer
	// ZKOptions are more go-zookeeper options. An event callback given
	// here is replaced by OnEvent, and a dialer by Dialer: go-zookeeper
	// keeps only one of each.
	ZKOptions []func(*zk.Conn)
	// OnEvent, if set, sees every state change of the conn, synchronously,
	// on go-zookeeper's own goroutine: it must not block.
	OnEvent func(zk.Event)
}

// An Option sets some of a Config.
type Option func(*Config)

// Auth is what a session authenticates as. Only ZooKeeper's digest scheme
// for now: User and Password, sent as "user:password".
type Auth struct{ Scheme, User, Password string }

// Credentials is what conn.AddAuth(a.Scheme, …) sends.
func (a *Auth) Credentials() []byte { return []byte(a.User + ":" + a.Password) }

// String names the scheme and user, never the password.
func (a *Auth) String() string { return a.Scheme + ":" + a.User + ":***" }
