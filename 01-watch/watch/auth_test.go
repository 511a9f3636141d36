package watch_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// The identity the protected node is made for. Not ZK_AUTH's: the course's
// own ZK_AUTH (internal/zksession) may be set while these tests run, and every
// session zktest opens then carries it too.
const ownerUser, ownerPassword = "lockstep-01-owner", "right"

// TestAnAuthMistakeIsAnErrorNotAHang makes the two kinds of authentication
// mistake against a real server and checks that each one comes back as an
// error, never as a wait: a digest credential the node's ACL does not
// name (a wrong password, or no "user:" at all) is accepted by AddAuth and
// refused by the read (zk.ErrNoAuth); a scheme the server does not know is
// refused by AddAuth itself (zk.ErrAuthFailed), after which the server drops
// the connection and the client reconnects to the same session. Every call
// is bounded by zktest.Patience, a limit, not an expectation: on a healthy
// server each answers in milliseconds (the test logs how long).
func TestAnAuthMistakeIsAnErrorNotAHang(t *testing.T) {
	root := zktest.Root(t)
	admin := zktest.Connect(t)
	node := root + "/creator-only"
	// A creator-only node of ownerUser: the digest ACL names that identity
	// alone (zk.AuthACL would name every identity admin has, ZK_AUTH's too).
	if _, err := admin.Create(node, []byte("secret"), 0, zk.DigestACL(zk.PermAll, ownerUser, ownerPassword)); err != nil {
		t.Fatal(err)
	}
	// Root's clean-up lists the children of every node, and listing this one
	// needs its READ permission; deleting it needs only the parent's.
	t.Cleanup(func() {
		if err := admin.Delete(node, -1); err != nil {
			t.Errorf("delete %s: %v", node, err)
		}
	})

	for _, tc := range []struct{ name, credentials string }{
		{"a wrong password is accepted by AddAuth and refused by the read with ErrNoAuth", ownerUser + ":wrong"},
		{"a credential without a colon is no error either: it is one more identity, refused with ErrNoAuth", "no-colon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := zktest.Connect(t)
			// ZooKeeper's digest scheme checks nothing at AddAuth: it turns
			// whatever it gets into an identity ("user:hash of the whole
			// string"), and only an ACL decides what that identity may do.
			err := bounded(t, "AddAuth", func() error { return conn.AddAuth("digest", []byte(tc.credentials)) })
			if err != nil {
				t.Fatalf("AddAuth(digest, %q) = %v, want nil: the digest scheme accepts any bytes", tc.credentials, err)
			}
			err = bounded(t, "Get", func() error { _, _, err := conn.Get(node); return err })
			if !errors.Is(err, zk.ErrNoAuth) {
				t.Fatalf("Get of a node creator-only for %s: %v, want zk.ErrNoAuth", ownerUser, err)
			}
			// The fix: authenticate as the identity the ACL names. A
			// session keeps every identity it was given, the wrong one too.
			err = bounded(t, "AddAuth", func() error { return conn.AddAuth("digest", []byte(ownerUser+":"+ownerPassword)) })
			if err != nil {
				t.Fatal(err)
			}
			err = bounded(t, "Get", func() error { _, _, err := conn.Get(node); return err })
			if err != nil {
				t.Fatalf("Get with the right credentials added: %v, want the node", err)
			}
		})
	}

	t.Run("an unknown scheme fails AddAuth with ErrAuthFailed; the server drops the connection, the session and its watch survive", func(t *testing.T) {
		states := &stateRecorder{}
		conn := zktest.Connect(t, zk.WithEventCallback(states.observe))
		writer := zktest.Connect(t)
		later := root + "/created-later"
		_, _, watch, err := conn.ExistsW(later)
		if err != nil {
			t.Fatal(err)
		}
		id, before := conn.SessionID(), len(states.seen())
		// "Digest" is not "digest": the server looks schemes up by exact
		// name, knows none by that one, and answers AuthFailed.
		err = bounded(t, "AddAuth", func() error { return conn.AddAuth("Digest", []byte(ownerUser+":"+ownerPassword)) })
		if !errors.Is(err, zk.ErrAuthFailed) {
			t.Fatalf("AddAuth(Digest, …) = %v, want zk.ErrAuthFailed", err)
		}
		// Right after its answer the server closes the connection. The
		// client reconnects to the same session on its own (go-zookeeper
		// pauses 1 s when it has tried every server of its list); a
		// request sent meanwhile may fail with zk.ErrConnectionClosed.
		zktest.Eventually(t, zktest.Patience, "the connection drops and the session is back", func() bool {
			return slices.Contains(states.seen()[before:], zk.StateDisconnected) && conn.State() == zk.StateHasSession
		})
		if conn.SessionID() != id {
			t.Fatalf("session %#x after the failed AddAuth, want the same %#x", conn.SessionID(), id)
		}
		// go-zookeeper v1.0.4 declares StateAuthFailed but never reports
		// it: a program that waits for it waits for ever.
		if slices.Contains(states.seen(), zk.StateAuthFailed) {
			t.Fatalf("states %v: StateAuthFailed reported; the lesson says it never is", states.seen())
		}
		// The refused credential was not kept: the node is still closed.
		err = bounded(t, "Get", func() error { _, _, err := conn.Get(node); return err })
		if !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("Get after the failed AddAuth: %v, want zk.ErrNoAuth", err)
		}
		// go-zookeeper set the watch again on the new connection.
		create(t, writer, later, "", 0)
		if ev := receive(t, watch); ev.Type != zk.EventNodeCreated {
			t.Fatalf("the watch set before the failed AddAuth got %+v, want EventNodeCreated", ev)
		}
		t.Logf("states: %v", states.seen()[before:])
	})
}

// bounded runs call and returns its error, failing the test if it has not
// returned within zktest.Patience: an authentication mistake must be an
// error, never a hang. A request that met the connection being dropped
// (zk.ErrConnectionClosed) is sent again.
func bounded(t *testing.T, what string, call func() error) error {
	t.Helper()
	start := time.Now()
	deadline := time.NewTimer(zktest.Patience)
	defer deadline.Stop()
	for {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if errors.Is(err, zk.ErrConnectionClosed) {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			t.Logf("%s → %v after %v", what, err, time.Since(start).Round(time.Millisecond))
			return err
		case <-deadline.C:
			t.Fatalf("%s still waiting after %v", what, zktest.Patience)
		}
	}
}
