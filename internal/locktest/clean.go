package locktest

import (
	"path"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// AssertClean fails unless nothing but the lock path's ancestors (and the
// lock path itself, if it is an empty directory) remains under root.
func AssertClean(t testing.TB, conn *zk.Conn, root, lockPath string, keep ...string) {
	t.Helper()
	if left := leftBehind(t, conn, root, lockPath, keep...); len(left) > 0 {
		t.Fatalf("left behind under %s:\n  %s", root, zktest.Describe(left))
	}
}

// leftBehind lists the znodes under root other than the lock path, its
// ancestors and keep: what AssertClean fails on, and what the waits below
// poll until it is empty.
func leftBehind(t testing.TB, conn *zk.Conn, root, lockPath string, keep ...string) []string {
	allowed := map[string]bool{}
	for p := lockPath; p != root && p != "/" && p != "."; p = path.Dir(p) {
		allowed[p] = true
	}
	for _, k := range keep {
		allowed[k] = true
	}
	var left []string
	for _, n := range zktest.Tree(t, conn, root) {
		if !allowed[n] && !emptyDirIn(conn, lockPath, n) {
			left = append(left, n)
		}
	}
	return left
}

// emptyDirIn reports whether n is an empty directory below lockPath: no
// session owns it, it has no children, and its name is not a sequential
// node's. A lock that keeps its queues in subdirectories (09's semaphore:
// locks and leases) leaves them behind as containers, which hold nothing
// and which the server deletes on its own. (ZooKeeper does not say which
// nodes are containers: their Stat shows no ephemeral owner, like any
// persistent node's.)
func emptyDirIn(conn *zk.Conn, lockPath, n string) bool {
	if _, sequential := zkpath.SequenceOf(n); sequential || !strings.HasPrefix(n, lockPath+"/") {
		return false
	}
	_, stat, err := conn.Exists(n)
	return err == nil && stat.EphemeralOwner == 0 && stat.NumChildren == 0
}
