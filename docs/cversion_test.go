package docs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// docs/zkcli.md shows a lock directory whose first sequential node is …02
// after two creates and two deletes of `simple`, and `cversion = 6` once two
// sequential nodes are in it. The two numbers count different things, and
// this test asks a real server which: the sequence suffix counts the
// creates of children (a failed create counts for nothing), cversion counts
// creates and deletes. (ZooKeeper keeps one counter, of creates, and
// reports cversion as 2·creates − children: DataNode.copyStat.)
func TestTheSequenceSuffixCountsCreatesAndCversionCountsDeletesToo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx)
	t.Cleanup(srv.Close)
	if err != nil {
		t.Fatal(err)
	}
	conn, dir := newChroot(ctx, t, srv.Servers, "/cversion-")
	acl := zk.WorldACL(zk.PermAll)
	create := func(name string, flags int32) string {
		t.Helper()
		p, err := conn.Create(dir+"/"+name, nil, flags, acl)
		if err != nil {
			t.Fatalf("create %s/%s: %v", dir, name, err)
		}
		return p
	}
	remove := func(p string) {
		t.Helper()
		if err := conn.Delete(p, -1); err != nil {
			t.Fatalf("delete %s: %v", p, err)
		}
	}
	cversion := func(want int32, after string) {
		t.Helper()
		_, st, err := conn.Exists(dir)
		if err != nil {
			t.Fatal(err)
		}
		if st.Cversion != want {
			t.Errorf("after %s: cversion = %d, want %d", after, st.Cversion, want)
		}
	}

	// zkcli.md's sections 1 and 2: simple is created and deleted (A's
	// hold), created again while a create is refused (B's), and deleted.
	remove(create("simple", zk.FlagEphemeral))
	create("simple", zk.FlagEphemeral)
	if _, err := conn.Create(dir+"/simple", nil, zk.FlagEphemeral, acl); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("create simple while it exists: %v, want ErrNodeExists", err)
	}
	remove(dir + "/simple")
	cversion(4, "two creates and two deletes (and a failed create)")

	// Section 3: two sequential nodes. Their suffixes count the two creates
	// before them, not the deletes; cversion counts all six changes.
	if got, want := create("lock-", zk.FlagEphemeral|zk.FlagSequence), dir+"/lock-0000000002"; got != want {
		t.Errorf("first sequential node: %s, want %s (two creates came before it)", got, want)
	}
	if got, want := create("lock-", zk.FlagEphemeral|zk.FlagSequence), dir+"/lock-0000000003"; got != want {
		t.Errorf("second sequential node: %s, want %s", got, want)
	}
	cversion(6, "four creates and two deletes")
}
