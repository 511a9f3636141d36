// Package seqlocktest gives the tests of chapter 04 and of every chapter
// built on it a seqlock.Session on the package's test server (zktest),
// closed when the test ends. Only tests import it.
package seqlocktest

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// Session opens a Session on the package's server, closed when the test ends.
func Session(t testing.TB, opts ...seqlock.SessionOption) *seqlock.Session {
	t.Helper()
	return zktest.DialSession(t, seqlock.NewSession, opts...)
}

// SessionConn is Session and its conn.
func SessionConn(t testing.TB) (*seqlock.Session, *zk.Conn) {
	t.Helper()
	s := Session(t)
	return s, s.Conn()
}

// SessionViaProxy is Session through a zkproxy.Proxy of its own, asking for d,
// so the test can cut this one client off or expire its session.
func SessionViaProxy(t testing.TB, d time.Duration) (*seqlock.Session, *zkproxy.Proxy) {
	t.Helper()
	return zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(d))
}
