package zktest

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

func TestMain(m *testing.M) { Main(m) }

// frame encodes one server frame: a reply header and a body.
func frame(xid int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint64(b, 7) // zxid
	b = binary.BigEndian.AppendUint32(b, 0) // err
	b = append(b, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func notification(path string) []byte {
	body := binary.BigEndian.AppendUint32(nil, uint32(zk.EventNodeDeleted))
	body = binary.BigEndian.AppendUint32(body, uint32(zk.StateSyncConnected))
	body = binary.BigEndian.AppendUint32(body, uint32(len(path)))
	return frame(-1, append(body, path...))
}

func TestNotificationsAreCountedOnTheWire(t *testing.T) {
	connect := append(binary.BigEndian.AppendUint32(nil, 36), make([]byte, 36)...)
	// A reply whose body happens to contain a notification's bytes must not count.
	decoy := frame(5, notification("/decoy"))
	stream := append(append(append(append([]byte{}, connect...), decoy...), notification("/a/b")...), notification("/a/b")...)
	for _, step := range []int{1, 3, 4, 17, len(stream)} {
		before, decoys := notifications.count("/a/b"), notifications.count("/decoy")
		c := notifySplitter()
		for rest := stream; len(rest) > 0; {
			n := min(step, len(rest))
			c.Feed(rest[:n])
			rest = rest[n:]
		}
		if got := notifications.count("/a/b") - before; got != 2 {
			t.Errorf("reads of %d bytes: %d notifications for /a/b, want 2", step, got)
		}
		if notifications.count("/decoy") != decoys {
			t.Errorf("reads of %d bytes: a reply's body was taken for a notification", step)
		}
	}
}

// The fallback of Watched, used where the server refuses wchp, against
// the real server (whatever it allows).
func TestWatchedByFiring(t *testing.T) {
	root := Root(t)
	conn := Connect(t)
	t.Run("a missing path nobody watches", func(t *testing.T) {
		if watchedByFiring(t, root+"/nobody/deeper") {
			t.Fatal("reported a watch nobody set")
		}
		if ok, _, _ := conn.Exists(root + "/nobody"); ok {
			t.Fatal("left the nodes it created to fire watches")
		}
	})
	t.Run("an exists watch on a missing path", func(t *testing.T) {
		if _, _, _, err := conn.ExistsW(root + "/missing"); err != nil {
			t.Fatal(err)
		}
		if !watchedByFiring(t, root+"/missing") {
			t.Fatal("missed an exists watch")
		}
	})
	t.Run("a data watch and a child watch on a node", func(t *testing.T) {
		node := root + "/node"
		if _, err := conn.Create(node, []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if watchedByFiring(t, node) {
			t.Fatal("reported a watch nobody set")
		}
		if _, _, _, err := conn.GetW(node); err != nil {
			t.Fatal(err)
		}
		if !watchedByFiring(t, node) {
			t.Fatal("missed a data watch")
		}
		if _, _, _, err := conn.ChildrenW(node); err != nil {
			t.Fatal(err)
		}
		if !watchedByFiring(t, node) {
			t.Fatal("missed a child watch")
		}
		if data, _, _ := conn.Get(node); string(data) != "x" {
			t.Fatalf("data %q, want it unchanged", data)
		}
	})
	t.Run("Watched agrees with wchp where the server allows it", func(t *testing.T) {
		if !Allowed(t, "wchp") {
			t.Skip("the server refuses wchp")
		}
		if _, _, _, err := conn.ExistsW(root + "/both"); err != nil {
			t.Fatal(err)
		}
		if !watchedByWchp(t, root+"/both") {
			t.Fatal("wchp does not show the watch")
		}
	})
}

func TestServerFacts(t *testing.T) {
	lo, hi := SessionBounds(t)
	if lo <= 0 || hi < lo {
		t.Fatalf("session bounds [%v, %v]", lo, hi)
	}
	if d := SessionTimeout(t, ConnectTimeout(t, time.Millisecond)); d != lo {
		t.Fatalf("a 1 ms session was granted %v, want the lower bound %v", d, lo)
	}
	if !Allowed(t, "srvr") {
		t.Fatal("srvr refused: every server allows it")
	}
	fast := ReapsContainersFast(t)
	if cfg := Server(t).Config; cfg != zkserver.Unknown {
		// Known from how we started it: the probe must agree.
		if probe, why := probeReaping(t); probe != fast {
			t.Fatalf("the probe says fast=%v (%s), the %v configuration says %v", probe, why, cfg, fast)
		}
	}
	t.Logf("sessions %v–%v, wchp allowed %v, empty containers reaped within seconds: %v", lo, hi, Allowed(t, "wchp"), fast)
}

// TestRootUnderZKRoot: with ZK_ROOT set (a learner's workspace in a class),
// every test's root is made below it, and a malformed value is refused.
func TestRootUnderZKRoot(t *testing.T) {
	outer := Root(t)
	t.Run("the root is made below ZK_ROOT", func(t *testing.T) {
		t.Setenv(RootEnv, outer)
		inner := Root(t)
		if !strings.HasPrefix(inner, outer+"/t-") {
			t.Fatalf("Root = %q, want it below %s", inner, outer)
		}
	})
	for _, bad := range []string{"relative", "/a//b", "/a/"} {
		t.Setenv(RootEnv, bad)
		if _, err := base(); err == nil || !strings.Contains(err.Error(), RootEnv) {
			t.Errorf("%s=%q: err = %v, want one naming %s", RootEnv, bad, err, RootEnv)
		}
	}
}
