package zksession_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// ExpireNow ends a session on the server at once, as the ZooKeeper FAQ's
// test recipe does (a second connection takes the session over with its ID
// and password, and closes it): everything an expiry does happens, without
// waiting out the timeout. (zktest.Main checks that nothing is left running.)
func TestExpireNowEndsTheSessionAtOnce(t *testing.T) {
	const timeout = 20 * time.Second // far longer than the test may take: only ExpireNow can end it in time
	var stateExpired = make(chan struct{}, 1)
	conn := zktest.ConnectTimeout(t, timeout, zk.WithEventCallback(func(e zk.Event) {
		if e.Type == zk.EventSession && e.State == zk.StateExpired {
			select {
			case stateExpired <- struct{}{}:
			default:
			}
		}
	}))
	admin := zktest.Connect(t)
	root := zktest.Root(t)
	node, err := conn.Create(root+"/ephemeral", nil, zk.FlagEphemeral, zktest.ACL(conn))
	if err != nil {
		t.Fatal(err)
	}
	ok, _, watch, err := admin.ExistsW(node)
	if err != nil || !ok {
		t.Fatalf("ExistsW(%s) = %v, %v: want the node, and a watch on it", node, ok, err)
	}
	id := conn.SessionID()

	start := time.Now()
	if err := zksession.ExpireNow(zktest.Context(t), nil, nil, conn); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("session %#x (timeout %v) ended in %v", id, zktest.SessionTimeout(t, conn), took.Round(time.Millisecond))

	t.Run("the session's ephemeral node is gone, for everyone", func(t *testing.T) {
		// admin's Exists is one round trip after ExpireNow returned: the
		// server had already deleted the node.
		if ok, _, err := admin.Exists(node); err != nil || ok {
			t.Fatalf("Exists(%s) = %v, %v right after ExpireNow: want the node gone", node, ok, err)
		}
	})
	t.Run("a watch on the node fires: NodeDeleted", func(t *testing.T) {
		if e := zktest.Await(t, watch, "the watch on the expired session's node"); e.Type != zk.EventNodeDeleted {
			t.Fatalf("watch event %v, want EventNodeDeleted", e)
		}
	})
	t.Run("the client is told: StateExpired", func(t *testing.T) {
		zktest.Await(t, stateExpired, "the client's StateExpired event")
	})
	t.Run("long before the timeout", func(t *testing.T) {
		if took > timeout/4 {
			t.Fatalf("ExpireNow took %v with a session timeout of %v", took, timeout)
		}
	})
	t.Run("a conn whose password is unknown is an error, not a hang", func(t *testing.T) {
		if err := zksession.ExpireNow(zktest.Context(t), nil, nil, conn); !errors.Is(err, zksession.ErrNoPassword) {
			t.Fatalf("ExpireNow of a session already ended = %v, want ErrNoPassword", err)
		}
	})
}
