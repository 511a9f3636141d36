package zktest

// What the package's server allows, read from the server instead of assumed.
// The servers zkserver starts are Fast (tickTime 200 ms, every four-letter
// word, empty containers reaped every 500 ms); a server given in ZK_SERVERS
// may be a stock install (tickTime 2000: sessions of 4 to 40 s, only srvr,
// containers reaped once a minute) or anything between. Tests ask these
// helpers and adapt, or skip with the reason.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// envInputs are the variables that choose the server (zkserver) and the
// session's identity (zksession). Main reads them before the tests start, when
// go test does not yet record what a test reads; Server reads them again
// inside every test, so that they are part of go test's cache key and a
// change of ZK_SERVERS reruns the tests instead of reusing another
// server's results.
var envInputs = []string{"ZK_SERVERS", zksession.AuthEnv, RootEnv, "LOCKSTEP_ZK", "ZOOKEEPER_HOME", "JAVA_HOME", "DOCKER_HOST"}

func recordEnv() {
	for _, k := range envInputs {
		os.LookupEnv(k)
	}
}

// SessionTimeout is the session timeout the server granted conn at its last
// (re)connect: what the test asked for, clamped by the server into
// [minSessionTimeout, maxSessionTimeout]. Wait for this, never for what was
// asked. conn must come from Connect, ConnectTimeout, ConnectViaProxy or a
// DialSession (whose Session says it too: Timeout).
func SessionTimeout(tb testing.TB, conn *zk.Conn) time.Duration {
	tb.Helper()
	d, ok := dialled.Load(conn)
	if !ok {
		tb.Fatal("zktest: SessionTimeout of a conn not dialled through zktest.Connect or DialSession")
	}
	return d.(dialInfo).timeout()
}

// ACL is the ACL a test gives the nodes it creates on conn: creator-only
// when the tests run with ZK_AUTH (conn then authenticated with it), else
// open to anyone.
func ACL(conn *zk.Conn) []zk.ACL {
	if d, ok := dialled.Load(conn); ok {
		return zksession.ACL(d.(dialInfo).auth)
	}
	auth, _ := zksession.AuthFromEnv()
	return zksession.ACL(auth)
}

var bounds struct {
	once   sync.Once
	lo, hi time.Duration
	err    error
}

// SessionBounds are the shortest and the longest session the package's
// server grants (2 and 20 ticks unless its zoo.cfg says otherwise): it asks
// for 1 ms and for an hour once per test binary and reads the grants.
func SessionBounds(tb testing.TB) (lo, hi time.Duration) {
	tb.Helper()
	servers := Servers(tb)
	bounds.once.Do(func() {
		for _, ask := range []time.Duration{time.Millisecond, time.Hour} {
			ctx, cancel := context.WithTimeout(context.Background(), Patience)
			d, err := zksession.ConnectGranted(ctx, servers, ask)
			cancel()
			if err != nil {
				bounds.err = err
				return
			}
			if ask == time.Millisecond {
				bounds.lo = d.Timeout()
			} else {
				bounds.hi = d.Timeout()
			}
			d.Conn.Close()
		}
	})
	if bounds.err != nil {
		tb.Fatalf("zktest: session bounds: %v", bounds.err)
	}
	return bounds.lo, bounds.hi
}

var allowed sync.Map // four-letter word → bool

// Allowed reports whether the server answers the four-letter word (its
// 4lw.commands.whitelist; a stock server allows only srvr). Asked once per
// word per test binary.
func Allowed(tb testing.TB, word string) bool {
	tb.Helper()
	if v, ok := allowed.Load(word); ok {
		return v.(bool)
	}
	out, err := zkserver.FourLetter(Context(tb), Servers(tb)[0], word)
	if err != nil {
		tb.Fatalf("zktest: %s: %v", word, err)
	}
	ok := !strings.Contains(out, "not in the whitelist") && !strings.Contains(out, "not executed")
	allowed.Store(word, ok)
	return ok
}

// RequireFourLetter skips the test, saying why, unless the server allows word.
func RequireFourLetter(tb testing.TB, word string) {
	tb.Helper()
	if !Allowed(tb, word) {
		tb.Skipf("the server does not allow the four-letter word %s (add it to 4lw.commands.whitelist to run this test)", word)
	}
}

// Watched reports whether some session keeps a watch on path, to prove that
// a lock leaves no watch behind.
//
// Where the server allows wchp, it asks every server (a watch lives on the
// server its session is connected to). Where it does not (a stock server),
// it fires the watches instead: it creates path and deletes it again (when
// path is missing), or sets its data to what it holds and adds and removes
// a child (when it exists), then syncs every session this package's tests
// opened through zktest and reports whether any of them was notified about
// path. That fallback consumes the watches it finds and only sees sessions
// opened through zktest; use Watched at the end of a check, to prove no
// watch is left.
func Watched(tb testing.TB, path string) bool {
	tb.Helper()
	if Allowed(tb, "wchp") {
		return watchedByWchp(tb, path)
	}
	return watchedByFiring(tb, path)
}

func watchedByWchp(tb testing.TB, path string) bool {
	tb.Helper()
	for _, s := range Servers(tb) {
		out, err := zkserver.FourLetter(Context(tb), s, "wchp")
		if err != nil {
			tb.Fatalf("zktest: wchp on %s: %v", s, err)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.TrimSpace(line) == path {
				return true
			}
		}
	}
	return false
}

func watchedByFiring(tb testing.TB, p string) bool {
	tb.Helper()
	before := notifications.count(p)
	admin := Connect(tb)
	acl := ACL(admin)
	data, _, err := admin.Get(p)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		made, err := znode.CreateAll(context.Background(), admin, p, acl)
		for i := len(made) - 1; i >= 0; i-- {
			if err := admin.Delete(made[i], -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				tb.Errorf("zktest: delete %s after firing watches: %v", made[i], err)
			}
		}
		if err != nil {
			tb.Fatalf("zktest: create %s to fire its watches: %v", p, err)
		}
	case err != nil:
		tb.Fatalf("zktest: get %s to fire its watches: %v", p, err)
	default:
		if _, err := admin.Set(p, data, -1); err != nil {
			tb.Fatalf("zktest: set %s to fire its watches: %v", p, err)
		}
		child := p + "/zktest-watch-probe"
		if _, err := admin.Create(child, nil, 0, acl); err == nil {
			admin.Delete(child, -1)
		} else if !errors.Is(err, zk.ErrNoChildrenForEphemerals) {
			tb.Fatalf("zktest: create %s to fire child watches: %v", child, err)
		}
	}
	syncAll()
	return notifications.count(p) > before
}

var reaping struct {
	once sync.Once
	fast bool
	why  string
}

// ReapsContainersFast reports whether the server removes an empty container
// node within a few seconds (znode.container.checkIntervalMs; the default is
// 60 s). Servers zkserver started are known; another server is asked once
// per test binary by watching two containers of its own, one after the other
// (up to 3 s each).
func ReapsContainersFast(tb testing.TB) bool {
	tb.Helper()
	srv := Server(tb)
	reaping.once.Do(func() {
		switch srv.Config {
		case zkserver.Fast:
			reaping.fast = true
		case zkserver.Stock:
			reaping.why = "it runs the stock configuration"
		default:
			reaping.fast, reaping.why = probeReaping(tb)
		}
	})
	return reaping.fast
}

// RequireFastReaping skips the test, saying why, unless the server reaps
// empty containers within a few seconds (see ReapsContainersFast): a test
// that waits for a reaping would wait a minute on a stock server.
func RequireFastReaping(tb testing.TB) {
	tb.Helper()
	if !ReapsContainersFast(tb) {
		tb.Skipf("the server does not remove empty containers within seconds (%s; znode.container.checkIntervalMs defaults to 60 s)", reaping.why)
	}
}

func probeReaping(tb testing.TB) (bool, string) {
	conn := Connect(tb)
	// One quick reap may be luck: a stock server's reaper runs once a
	// minute, and a probe can land just before a run. Two in a row, each
	// within 3 s, cannot happen a minute apart.
	for range 2 {
		if fast, why := probeOneReaping(conn); !fast {
			return false, why
		}
	}
	return true, ""
}

// probeOneReaping makes a container, gives it a child and deletes the child
// (only a container that has had a child is reaped once empty), and says
// whether the server removed the container within 3 s.
func probeOneReaping(conn *zk.Conn) (bool, string) {
	acl := ACL(conn)
	b, err := base()
	if err != nil {
		return false, err.Error()
	}
	dir := fmt.Sprintf("%s/zktest-reaping-%s", b, randhex.String(4))
	if _, err := conn.CreateContainer(dir, nil, zk.FlagContainer, acl); err != nil {
		return false, fmt.Sprintf("creating a container failed: %v", err)
	}
	defer DeleteTree(conn, dir)
	child, err := conn.Create(dir+"/x", nil, 0, acl)
	if err == nil {
		err = conn.Delete(child, -1)
	}
	if err != nil {
		return false, fmt.Sprintf("probe: %v", err)
	}
	ok, _, deleted, err := conn.ExistsW(dir)
	switch {
	case err != nil:
		return false, fmt.Sprintf("probe: %v", err)
	case !ok:
		return true, ""
	}
	select {
	case e := <-deleted:
		return e.Type == zk.EventNodeDeleted, fmt.Sprintf("probe: watch ended with %v", e)
	case <-time.After(3 * time.Second):
		return false, "an empty container was still there after 3 s"
	}
}

// Expire makes the server expire conn's session, which must go through
// proxy (ConnectViaProxy), and waits until conn has learned it. It ends the
// session at once (zksession.ExpireNow: another connection takes it over
// and closes it, the link cut meanwhile), on any server; conn learns it
// when it reconnects, about 1 s later. A conn whose session password is
// unknown falls back to ExpireByTimeout. Either way the link is restored
// (every fault ended) when Expire returns.
func Expire(tb testing.TB, conn *zk.Conn, proxy *zkproxy.Proxy) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*Patience)
	defer cancel()
	err := zksession.ExpireNow(ctx, proxy, Servers(tb), conn)
	if errors.Is(err, zksession.ErrNoPassword) {
		ExpireByTimeout(tb, conn, proxy)
		return
	}
	if err != nil {
		tb.Fatalf("zktest: expire session: %v", err)
	}
}

// ExpireByTimeout is Expire the way a partition does it: it cuts the link
// until the server has expired the session on its own, which takes as
// long as the server's granted timeout needs (see zkproxy.Proxy.Expire).
// For the tests that are about that wait.
func ExpireByTimeout(tb testing.TB, conn *zk.Conn, proxy *zkproxy.Proxy) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*Patience)
	defer cancel()
	if err := proxy.Expire(ctx, conn, SessionTimeout(tb, conn)); err != nil {
		tb.Fatalf("zktest: expire session: %v", err)
	}
}

// StartEnsemble starts n servers that the test owns, to stop and restart
// members (zkserver.StartEnsemble), and closes them when the test ends.
// ZK_SERVERS is not used: a test may not kill a user's servers. A machine
// that can start none (no Docker engine, no local install: only ZK_SERVERS)
// skips the test, saying so; so does a run in a class (ZK_ROOT set: the
// laptop's checks use the class's servers and start none of their own).
func StartEnsemble(tb testing.TB, n int) *zkserver.Ensemble {
	tb.Helper()
	if b, _ := base(); b != "" {
		tb.Skipf("needs a %d-server ensemble of its own to kill members of; this run uses the class's servers (%s=%s) and starts none on this machine", n, RootEnv, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := zkserver.StartEnsemble(ctx, n)
	tb.Cleanup(e.Close)
	if errors.Is(err, zkserver.ErrNoZooKeeper) {
		tb.Skipf("needs a %d-server ensemble of its own to kill members of, and this machine can start none (no Docker engine, no local ZooKeeper install)", n)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return e
}
