package watch_test

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestAfterSyncAReaderSeesTheWriteItWasToldAbout runs two clients on two
// different members of a 3-server ensemble. A writes; the moment its Set
// returns, it "tells" B (here: the same goroutine goes on with B). B's
// member serves B's read from its own copy of the data, which may not have
// applied A's write yet. Sync makes B's member catch up with the leader
// first, so the read after it returns A's version — every time.
//
// How often the read without Sync is stale depends on timing (a few percent
// of the rounds on a laptop): the test logs it, it cannot force it.
func TestAfterSyncAReaderSeesTheWriteItWasToldAbout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server ensemble")
	}
	ens := zktest.StartEnsemble(t, 3)
	ctx := zktest.Context(t)
	leader, err := ens.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Both on followers: a follower applies a write only when the leader's
	// commit reaches it, so B's may still be behind when A's has answered.
	var followers []int
	for i := range ens.Servers {
		if i != leader {
			followers = append(followers, i)
		}
	}
	// One address each: zk.Connect would otherwise pick a member at random.
	dial := func(member int) *zk.Conn {
		t.Helper()
		conn, events, err := zksession.Connect(ctx, []string{ens.Servers[member]}, zksession.DefaultTimeout)
		if err != nil {
			t.Fatal(err)
		}
		go zksession.Drain(events)
		t.Cleanup(conn.Close)
		return conn
	}
	a, b := dial(followers[0]), dial(followers[1])
	node := "/told"
	if _, err := a.Create(node, []byte("0"), 0, zktest.ACL(a)); err != nil {
		t.Fatal(err)
	}

	const rounds = 200
	// round has A write, then B read, with or without Sync first; it
	// reports the version A's Set returned and the one B read.
	round := func(t testing.TB, sync bool) (wrote, read int32) {
		t.Helper()
		stat, err := a.Set(node, []byte("written by A"), -1)
		if err != nil {
			t.Fatalf("A's set: %v", err)
		}
		if sync {
			if _, err := b.Sync(node); err != nil {
				t.Fatalf("B's sync: %v", err)
			}
		}
		_, got, err := b.Get(node)
		if err != nil {
			t.Fatalf("B's get: %v", err)
		}
		return stat.Version, got.Version
	}

	stale := 0
	for range rounds {
		if wrote, read := round(t, false); read < wrote {
			stale++
		}
	}
	t.Logf("without Sync: %d of %d reads on member %d returned a version older than the one A's set on member %d had just returned (leader: member %d)",
		stale, rounds, followers[1], followers[0], leader)

	t.Run("with Sync first, the read returns the version A wrote, every round", func(t *testing.T) {
		for i := range rounds {
			if wrote, read := round(t, true); read != wrote {
				t.Fatalf("round %d: A's set returned version %d; B synced and read version %d", i, wrote, read)
			}
		}
	})
}
