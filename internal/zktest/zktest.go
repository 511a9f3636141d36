// Package zktest is the test harness every package with ZooKeeper tests
// uses: one server per package (started by the first test that needs it:
// a run of table tests only starts none), one random root znode
// per test, connections that close themselves, and a goroutine-leak check.
//
//	func TestMain(m *testing.M) { zktest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		conn := zktest.Connect(t)
//		root := zktest.Root(t) // "/t-TestSomething-3f9a…", deleted after the test
//		…
//	}
//
// The server may be one lockstep started (fast: 200 ms ticks, every
// four-letter word, containers reaped every 500 ms) or the user's own in
// ZK_SERVERS, as installed; with ZK_ROOT=/some/node every test's root is
// made below that node instead of at the top (a class's ZooKeeper, where a
// learner may write only in their own subtree). Tests ask rather than
// assume (server.go):
//
//	zktest.SessionTimeout(t, conn) // what the server granted, not what we asked
//	zktest.Expire(t, conn, proxy)  // expire a session on any server
//	zktest.Watched(t, path)        // a watch left behind? wchp, or fire and listen
//	zktest.RequireFastReaping(t)   // skip, saying why, on a once-a-minute reaper
//	zktest.Allowed(t, "mntr")      // the server's 4lw.commands.whitelist
//	zktest.StartEnsemble(t, 3)     // members of our own to kill, never ZK_SERVERS'
package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// Main runs the tests; the first test that asks for the package's server
// starts it (see zkserver.Start, and start.go), and Main stops it after the
// tests. Then, if the tests passed, it fails on goroutines left running
// (go.uber.org/goleak). Last it runs atExit: what the package's tests made
// once for all of them and must remove (the interop tests' compiled Java).
func Main(m *testing.M, atExit ...func()) {
	os.Exit(run(m, atExit))
}

func run(m *testing.M, atExit []func()) int {
	for _, f := range atExit {
		defer f()
	}
	shared.main = true
	defer stopSharedServer()
	code := m.Run()
	stopSharedServer() // before the leak check: its process watcher is a goroutine too
	if code == 0 {
		if err := findLeaks(); err != nil {
			fmt.Fprintf(os.Stderr, "zktest: goroutines still running after the tests:\n%v\n", err)
			return 1
		}
	}
	return code
}

// findLeaks reports the goroutines still running after the tests (after
// goleak's own retries). None is ignored: a conn, a session and a proxy
// (internal/zkproxy) end theirs when they are closed.
func findLeaks() error { return goleak.Find() }

// Server returns the package's server, started by the first test that
// asks (the package's TestMain must call Main). If it cannot be started,
// the test fails with why, as does every later test that asks.
func Server(tb testing.TB) *zkserver.Server {
	tb.Helper()
	recordEnv()
	srv, err := sharedServer()
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// Servers is Server(tb).Servers.
func Servers(tb testing.TB) []string { return Server(tb).Servers }

// Connect opens a session with zksession.DefaultTimeout; it is closed
// when the test ends.
func Connect(tb testing.TB, opts ...func(*zk.Conn)) *zk.Conn {
	tb.Helper()
	return ConnectTimeout(tb, zksession.DefaultTimeout, opts...)
}

// ConnectTimeout is Connect with a chosen session timeout.
func ConnectTimeout(tb testing.TB, sessionTimeout time.Duration, opts ...func(*zk.Conn)) *zk.Conn {
	tb.Helper()
	return dial(tb, Servers(tb), sessionTimeout, opts...)
}

func dial(tb testing.TB, servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) *zk.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts = append([]func(*zk.Conn){withNotifyLog()}, opts...)
	d, err := zksession.ConnectGranted(ctx, servers, sessionTimeout, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	conn := d.Conn
	dialled.Store(conn, dialInfo{d.Timeout, d.Auth})
	untrack := track(conn)
	tb.Cleanup(func() { untrack(); dialled.Delete(conn); conn.Close() })
	return conn
}

// dialled: what zktest knows of the conns it dialled (SessionTimeout, ACL),
// until their test ends. Test harness only: a lock learns these from its
// Session.
var dialled sync.Map // *zk.Conn → dialInfo

type dialInfo struct {
	timeout func() time.Duration // what the server granted
	auth    *zksession.Auth
}

// A Session is a chapter's session (zksession.Session: seqlock.Session is
// one), and NewSession its constructor.
type (
	Session               = zksession.Session
	NewSession[S Session] = zksession.NewSession[S]
)

// DialSession opens a session with newSession on the package's server,
// asking for zksession.DefaultTimeout with ZK_AUTH's credentials unless
// opts say otherwise, its connections counting notifications for Watched. It is closed when the test ends.
func DialSession[S Session](tb testing.TB, newSession NewSession[S], opts ...zksession.Option) S {
	tb.Helper()
	return dialSession(tb, Servers(tb), newSession, opts...)
}

// DialSessionViaProxy is DialSession through a zkproxy.Proxy of its own, so the
// test can cut this one client off or expire its session (proxy.Expire).
func DialSessionViaProxy[S Session](tb testing.TB, newSession NewSession[S], opts ...zksession.Option) (S, *zkproxy.Proxy) {
	tb.Helper()
	p, err := zkproxy.New(Servers(tb)[0])
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return dialSession(tb, []string{p.Addr()}, newSession, opts...), p
}

func dialSession[S Session](tb testing.TB, servers []string, newSession NewSession[S], opts ...zksession.Option) S {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	auth, err := zksession.AuthFromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	defaults := func(c *zksession.Config) { c.Timeout, c.Auth = zksession.DefaultTimeout, auth }
	notify := func(c *zksession.Config) { c.Dialer = notifyDialer(c.Dialer) }
	all := append(append([]zksession.Option{defaults}, opts...), notify)
	s, err := newSession(ctx, servers, all...)
	if err != nil {
		tb.Fatal(err)
	}
	conn := s.Conn()
	dialled.Store(conn, dialInfo{s.Timeout, auth})
	untrack := track(conn)
	tb.Cleanup(func() { untrack(); dialled.Delete(conn); s.Close() })
	return s
}

// ConnectViaProxy opens a session through its own zkproxy.Proxy, so the test
// can cut this one client off or expire its session (proxy.Expire).
func ConnectViaProxy(tb testing.TB, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, *zkproxy.Proxy) {
	tb.Helper()
	p, err := zkproxy.New(Servers(tb)[0])
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return dial(tb, []string{p.Addr()}, sessionTimeout, opts...), p
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Root creates a fresh persistent znode for this test and deletes it, with
// everything under it, when the test ends.
func Root(tb testing.TB) string {
	tb.Helper()
	name := unsafeChars.ReplaceAllString(tb.Name(), "_")
	if len(name) > 60 {
		name = name[:60]
	}
	root := Base(tb) + "/t-" + name + "-" + randhex.String(4)
	conn := Connect(tb)
	d, _ := dialled.Load(conn)
	if _, err := conn.Create(root, nil, 0, ACL(conn)); err != nil {
		tb.Fatalf("zktest: create %s: %v", root, zksession.Explain(d.(dialInfo).auth, err))
	}
	tb.Cleanup(func() {
		if err := DeleteTree(conn, root); err != nil {
			tb.Errorf("zktest: clean up %s: %v", root, err)
		}
	})
	return root
}

// RootEnv names the variable that holds the node under which tests make
// their roots (Root), when they may not write at the top of the server's
// tree: the runner sets it to a learner's workspace in a class. It must
// exist, and ZK_AUTH's identity must be allowed to create in it.
const RootEnv = "ZK_ROOT"

// Base is ZK_ROOT ("" for the top of the tree, where it is unset).
func Base(tb testing.TB) string {
	tb.Helper()
	b, err := base()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func base() (string, error) {
	b := strings.TrimSpace(os.Getenv(RootEnv))
	if b == "" || b == "/" {
		return "", nil
	}
	if !strings.HasPrefix(b, "/") || path.Clean(b) != b {
		return "", fmt.Errorf("zktest: %s=%q: want an absolute znode path such as /lockstep-class/learners/ada/work", RootEnv, b)
	}
	return b, nil
}

// DeleteTree deletes p and everything below it. A missing node is fine.
func DeleteTree(conn *zk.Conn, p string) error { return znode.DeleteTree(conn, p) }

// Tree lists every znode below p (not p itself), as sorted full paths.
// It syncs conn's server with the leader first: in an ensemble, conn may
// be connected to a member that has not yet applied what another session
// just did, and the test would see a tree from the past.
func Tree(tb testing.TB, conn *zk.Conn, p string) []string {
	tb.Helper()
	if _, err := conn.Sync("/"); err != nil {
		tb.Fatalf("zktest: sync before listing %s: %v", p, err)
	}
	var out []string
	var walk func(string)
	walk = func(n string) {
		children, _, err := conn.Children(n)
		if errors.Is(err, zk.ErrNoNode) {
			return
		}
		if err != nil {
			tb.Fatalf("zktest: children of %s: %v", n, err)
		}
		for _, c := range children {
			full := path.Join(n, c)
			out = append(out, full)
			walk(full)
		}
	}
	walk(p)
	sort.Strings(out)
	return out
}

// Eventually polls cond every 10 ms until it holds or timeout passes, then
// fails the test with what, which says what went wrong ("the waiter never
// set its watch"), not what was expected. Timeouts here are limits, never
// expectations: make them generous. When a wrong state can be seen before
// the timeout, use Until, which fails at that moment and says what it saw.
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("after %v: %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Until polls check every 10 ms until it reports done, and fails the test
// at the first evidence against it: the moment check returns a non-empty
// wrong, the failure says what the test waited for and what it saw instead
// ("waiting for the second Acquire to wait for a lease, it got lease 2 of
// 1"), at once, not after timeout. A test that only waits for cond to hold
// (Eventually) reports a mistake it could have seen at once as the
// expected condition, after the whole timeout. After timeout, Until fails
// with what it waited for.
func Until(tb testing.TB, timeout time.Duration, what string, check func() (done bool, wrong string)) {
	tb.Helper()
	start := time.Now()
	for {
		done, wrong := check()
		switch {
		case done:
			return
		case wrong != "":
			tb.Fatalf("waiting for %s, after %v: %s", what, time.Since(start).Round(time.Millisecond), wrong)
		case time.Since(start) > timeout:
			tb.Fatalf("after %v, still waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Describe joins a tree listing for failure messages.
func Describe(nodes []string) string {
	if len(nodes) == 0 {
		return "(nothing)"
	}
	return strings.Join(nodes, "\n  ")
}

// ExampleServers is Servers for Example functions, which get no testing.TB.
// It panics if the server cannot be started (or the package's TestMain
// does not call Main).
func ExampleServers() []string {
	recordEnv()
	srv, err := sharedServer()
	if err != nil {
		panic(err)
	}
	return srv.Servers
}

// Patience bounds every single wait in a test: a limit, never an
// expectation (tests run on loaded 2-core machines).
const Patience = 30 * time.Second

// Context returns a context that ends after Patience or when the test ends.
func Context(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	tb.Cleanup(cancel)
	return ctx
}

// ExampleConn opens a session to the package's test server for an Example
// function, which gets no testing.TB; the caller closes it. It panics on
// failure, which fails the Example.
func ExampleConn() *zk.Conn {
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	defer cancel()
	conn, events, err := zksession.Connect(ctx, ExampleServers(), zksession.DefaultTimeout)
	if err != nil {
		panic(err)
	}
	go zksession.Drain(events)
	return conn
}

// ExampleSession is ExampleConn for locks that live on a Session
// (zktest.ExampleSession(seqlock.NewSession)); the caller closes it.
func ExampleSession[S Session](newSession NewSession[S]) S {
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	defer cancel()
	s, err := newSession(ctx, ExampleServers())
	if err != nil {
		panic(err)
	}
	return s
}

// Await receives one value from ch within Patience and returns it; if none
// comes, it fails the test with what (what did not happen), so a hang fails
// with a sentence instead of waiting for the test binary's timeout.
func Await[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Patience):
		tb.Fatalf("after %v: %s", Patience, what)
		var zero T
		return zero
	}
}
