package reliability_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestShortPartition cuts the holder off from ZooKeeper for long enough
// that its client notices (go-zookeeper drops the connection after 2/3 of
// the session timeout without a word from the server), then heals the link
// well before the session can expire. The session survives, so the lock
// does: same session, same token, Lost still open, and the waiter — on a
// healthy connection all along — did not get in.
func TestShortPartition(t *testing.T) {
	// 8 s: the reconnection after a cut takes a second on its own
	// (go-zookeeper pauses 1 s before dialling its only server again).
	const d = 8 * time.Second
	for _, k := range kinds {
		t.Run(k.name+": a holder cut off for less than the session timeout keeps the lock", func(t *testing.T) {
			t.Parallel()
			dir := zktest.Root(t) + "/lock"
			hs, proxy := seqlocktest.SessionViaProxy(t, d)
			conn := hs.Conn()
			holder := newHolder(t, k, hs, dir, nil)
			if err := holder.Lock(ctxFor(t)); err != nil {
				t.Fatal(err)
			}
			session, token, lost := conn.SessionID(), holder.Token(), holder.Lost()

			var waiterGotIt atomic.Bool
			ws := sessionOn(t, zktest.Servers(t), d)
			waiterConn := ws.Conn()
			waiter := newHolder(t, k, ws, dir, nil)
			locked := make(chan error, 1)
			go func() {
				err := waiter.Lock(ctxFor(t))
				waiterGotIt.Store(err == nil)
				locked <- err
			}()
			waitQueued(t, waiterConn, dir, 2)

			cutAt := time.Now()
			if err := proxy.Cut(); err != nil {
				t.Fatal(err)
			}
			zktest.Eventually(t, patience, "the holder's client notices the cut", func() bool {
				return conn.State() != zk.StateHasSession
			})
			noticed := time.Since(cutAt)
			proxy.Restore()
			zktest.Eventually(t, patience, "the holder's client has its session back", func() bool {
				return conn.State() == zk.StateHasSession
			})
			t.Logf("cut noticed after %v; link back after %v in all (session timeout %v)",
				noticed.Round(time.Millisecond), time.Since(cutAt).Round(time.Millisecond), d)

			if conn.SessionID() != session {
				t.Errorf("session changed from %#x to %#x: it expired", session, conn.SessionID())
			}
			if isClosed(lost) {
				t.Errorf("Lost closed, although the session survived")
			}
			if got := holder.Token(); got != token {
				t.Errorf("token changed from %d to %d", token, got)
			}
			if waiterGotIt.Load() {
				t.Errorf("the waiter got the lock while the holder still held it")
			}
			if err := holder.Unlock(ctxFor(t)); err != nil {
				t.Errorf("holder's Unlock: %v", err)
			}
			if err := <-locked; err != nil {
				t.Fatalf("waiter's Lock after the holder's Unlock: %v", err)
			}
			if err := waiter.Unlock(ctxFor(t)); err != nil {
				t.Errorf("waiter's Unlock: %v", err)
			}
		})
	}
}

// TestLongPartition cuts the holder off for good. The server expires its
// session and gives the lock to the waiter; the holder, hearing nothing,
// must work out on its own that the lock is gone (WithSessionTimeout), and
// do so no later than the waiter gets it — or there are two holders.
func TestLongPartition(t *testing.T) {
	// 6 s: the holder gives up d/6 = 1 s before the server can expire it,
	// a margin a busy 2-core machine running the whole suite keeps.
	const d = 6 * time.Second
	for _, k := range kinds {
		t.Run(k.name+": a holder cut off for longer than the session timeout is told it lost the lock before the next holder gets it", func(t *testing.T) {
			t.Parallel()
			dir := zktest.Root(t) + "/lock"
			at := newMoments()
			hs, proxy := seqlocktest.SessionViaProxy(t, d)
			holder := newHolder(t, k, hs, dir, at.observer("holder"))
			if err := holder.Lock(ctxFor(t)); err != nil {
				t.Fatal(err)
			}
			lost, token := holder.Lost(), holder.Token()

			ws := sessionOn(t, zktest.Servers(t), d)
			waiterConn := ws.Conn()
			waiter := newHolder(t, k, ws, dir, at.observer("waiter"))
			locked := make(chan error, 1)
			go func() { locked <- waiter.Lock(ctxFor(t)) }()
			waitQueued(t, waiterConn, dir, 2)

			cutAt := time.Now()
			if err := proxy.Cut(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-locked:
				if err != nil {
					t.Fatalf("waiter's Lock: %v", err)
				}
			case <-time.After(d + patience):
				t.Fatalf("the waiter has no lock %v after the cut", d+patience)
			}
			select {
			case <-lost:
			case <-time.After(patience):
				t.Fatalf("Lost still open %v after the waiter got the lock", patience)
			}
			lostAt, _ := at.first("holder", event.Lost)
			acquiredAt, _ := at.first("waiter", event.Acquired)
			t.Logf("after the cut: holder told it lost the lock at %v, waiter acquired at %v (margin %v, session timeout %v)",
				lostAt.Sub(cutAt).Round(time.Millisecond), acquiredAt.Sub(cutAt).Round(time.Millisecond),
				acquiredAt.Sub(lostAt).Round(time.Millisecond), d)
			if lostAt.After(acquiredAt) {
				t.Errorf("two holders for %v: the holder was told it lost the lock %v after the cut, but the waiter had it %v after the cut",
					lostAt.Sub(acquiredAt).Round(time.Millisecond), lostAt.Sub(cutAt).Round(time.Millisecond), acquiredAt.Sub(cutAt).Round(time.Millisecond))
			}
			if got := waiter.Token(); got <= token {
				t.Errorf("waiter's token %d is not above the lost holder's %d", got, token)
			}
			proxy.Restore()
			err := holder.Unlock(ctxFor(t))
			t.Logf("the lost holder's Unlock after the link healed: %v", err)

			// The holder's Session was one ZooKeeper session, and the server
			// ended it: once the conn hears so, Done closes and a lock on it
			// says ErrSessionExpired at once. The holder goes on as an etcd
			// program does: a new Session, a new lock, in line again.
			select {
			case <-hs.Done():
			case <-time.After(patience):
				t.Fatalf("the holder's Session is still open %v after the link healed", patience)
			}
			if err := newHolder(t, k, hs, dir, nil).Lock(ctxFor(t)); !errors.Is(err, seqlock.ErrSessionExpired) {
				t.Errorf("a lock on the expired Session: Lock = %v, want seqlock.ErrSessionExpired", err)
			}
			again := newHolder(t, k, sessionOn(t, []string{proxy.Addr()}, d), dir, nil)
			relocked := make(chan error, 1)
			go func() { relocked <- again.Lock(ctxFor(t)) }()
			waiterToken := waiter.Token()
			if err := waiter.Unlock(ctxFor(t)); err != nil {
				t.Errorf("waiter's Unlock: %v", err)
			}
			if err := zktest.Await(t, relocked, "the holder's Lock on its new Session never returned"); err != nil {
				t.Fatalf("the holder's Lock on its new Session: %v", err)
			}
			if got := again.Token(); got <= waiterToken {
				t.Errorf("token %d on the new Session is not above the waiter's %d", got, waiterToken)
			}
			if err := again.Unlock(ctxFor(t)); err != nil {
				t.Errorf("Unlock on the new Session: %v", err)
			}
		})
	}
}

// TestSlowLinks gives every contender its own slow link — latency with
// jitter, or connections that take long to close — and runs the
// conformance suite's exclusion checker (internal/locktest, the lock lab's
// shape): an unguarded read-modify-write of a counter znode, an occupancy
// count, increasing tokens. Slowness must cost time only: never two
// holders, never a lost update.
func TestSlowLinks(t *testing.T) {
	const d = 4 * time.Second
	for _, k := range kinds {
		t.Run(k.name+": over slow links the lock still excludes and no update is lost", func(t *testing.T) {
			t.Parallel()
			var opened atomic.Int32
			start := time.Now()
			locktest.Exclusion(t, locktest.Impl{
				Contenders: 4, Rounds: 5,
				Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
					cs, proxy := seqlocktest.SessionViaProxy(tb, d)
					var err error
					if opened.Add(1)%2 == 1 {
						err = proxy.Latency(40*time.Millisecond, 30*time.Millisecond)
					} else {
						err = proxy.SlowClose(500 * time.Millisecond)
					}
					if err != nil {
						tb.Fatal(err)
					}
					// Faults off before the Session closes (cleanups run
					// last first), so that they do not slow its close down;
					// the proxy's Close, registered by SessionViaProxy and
					// run after, ends whatever the relay still holds.
					tb.Cleanup(proxy.Restore)
					return cs.Conn(), func(dir string, obs event.Observer) (locktest.Locker, error) {
						return k.new(cs, dir, obs)
					}
				},
			})
			t.Logf("%d acquisitions over slow links in %v", 4*5, time.Since(start).Round(time.Millisecond))
		})
	}
}

// step is one increment as the counter znode saw it: the value and
// version it read, from which server, and the version its write made.
// Under a lock that excludes, each step reads the version the step before
// it wrote, and writes the next one.
type step struct {
	who           string
	server        string
	session       int64
	read          int
	readVersion   int32
	readMzxid     int64
	wroteVersion  int32
	wroteMzxid    int64
	start, finish time.Time
}

func (s step) String() string {
	return fmt.Sprintf("%s (session %#x on %s): read %d (version %d, mzxid %#x), wrote version %d (mzxid %#x), %s–%s",
		s.who, s.session, s.server, s.read, s.readVersion, s.readMzxid, s.wroteVersion, s.wroteMzxid,
		s.start.Format("15:04:05.000"), s.finish.Format("15:04:05.000"))
}

// incrementSeen is increment, telling what it read and wrote.
func incrementSeen(conn *zk.Conn, counter string) (step, error) {
	st := step{server: conn.Server(), session: conn.SessionID(), start: time.Now()}
	b, stat, err := conn.Get(counter)
	if err != nil {
		return st, fmt.Errorf("read %s: %w", counter, err)
	}
	v, _ := strconv.Atoi(string(b))
	st.read, st.readVersion, st.readMzxid = v, stat.Version, stat.Mzxid
	time.Sleep(time.Millisecond)
	stat, err = conn.Set(counter, []byte(strconv.Itoa(v+1)), -1)
	st.finish = time.Now()
	if err != nil {
		return st, fmt.Errorf("write %s: %w", counter, err)
	}
	st.wroteVersion, st.wroteMzxid = stat.Version, stat.Mzxid
	return st, nil
}

// readCounter reads the counter after a sync, so that it sees every write
// acknowledged before the call. A read is answered by the one server conn
// talks to, from what that server has applied so far, and in an ensemble
// another member may already have acknowledged a later write: ZooKeeper
// gives no two clients the same view at the same instant, and its
// programmer's guide (Consistency Guarantees) tells the reader to call
// sync first. 01-watch's TestAfterSyncAReaderSeesTheWriteItWasToldAbout
// shows both halves. Without it, TestServerFailover's last read came back
// one increment short ("counter = 10, want 11") on a member that lagged.
func readCounter(t testing.TB, conn *zk.Conn, counter string) int {
	t.Helper()
	v, _ := readCounterAt(t, conn, counter, true)
	return v
}

// readCounterAt reads the counter and its version, after a sync if sync.
func readCounterAt(t testing.TB, conn *zk.Conn, counter string, sync bool) (int, int32) {
	t.Helper()
	if sync {
		if _, err := conn.Sync(counter); err != nil {
			t.Fatalf("sync %s: %v", counter, err)
		}
	}
	b, stat, err := conn.Get(counter)
	if err != nil {
		t.Fatalf("read %s: %v", counter, err)
	}
	v, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("%s holds %q: %v", counter, b, err)
	}
	return v, stat.Version
}
