package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestServerFailover kills the ZooKeeper server that leads a 3-server
// ensemble while, for every lock kind at once, one client holds the lock
// and ten wait for it. Every client knows all three servers. The ensemble
// elects a new leader and the clients of the dead server move to the
// others, sessions intact — so nothing about the locks may change: the
// holder keeps its lock (the test makes sure its own session was on the
// killed server), nobody else gets in meanwhile, and once the holder lets
// go every waiter takes its turn and no update to the counter is lost.
func TestServerFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server ensemble")
	}
	const waiters = 10
	// The holder keeps its lock only if its session moves to another
	// member within d/6 (the locks' disconnection check): 1.1–1.4 s here,
	// so d = 15 s leaves 2.5 s (8 s left 1.33 s, missed once under load).
	const d = 15 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ens := zktest.StartEnsemble(t, 3)
	leaderIdx, err := ens.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dial := func() *seqlock.Session {
		t.Helper()
		return sessionOn(t, ens.Servers, d)
	}
	// dialLeader returns a conn whose session lives on the leading server,
	// so that the failover really moves it. go-zookeeper picks a server at
	// random: dial until it picks that one.
	dialLeader := func() *seqlock.Session {
		t.Helper()
		for range 30 {
			sess, err := seqlock.NewSession(ctx, ens.Servers, seqlock.WithSessionTimeout(d))
			if err != nil {
				t.Fatal(err)
			}
			if sess.Conn().Server() == ens.Servers[leaderIdx] {
				t.Cleanup(sess.Close)
				return sess
			}
			sess.Close()
		}
		t.Fatal("no session landed on the leading server in 30 tries")
		return nil
	}
	admin := dial().Conn()

	type scenario struct {
		k         kind
		dir       string
		counter   string
		conn      *zk.Conn
		holder    holder
		session   int64
		token     int64
		inside    atomic.Int32 // clients that believe they hold the lock
		overlaps  atomic.Int32
		lostAt    atomic.Int64 // when the holder's Lost closed (unix ns), 0 if never
		retries   atomic.Int32 // Locks that failed with a connection error and were retried
		lastRetry atomic.Value
		released  chan struct{} // closed just before the holder's Unlock
		left      atomic.Bool   // the holder has stopped counting itself inside
		done      sync.WaitGroup
		errs      chan error
		mu        sync.Mutex
		steps     []step // every increment, in the order they finished
	}
	var all []*scenario
	leave := func(s *scenario) {
		if s.left.CompareAndSwap(false, true) {
			s.inside.Add(-1)
		}
	}
	for _, k := range kinds {
		s := &scenario{k: k, dir: "/failover/" + k.name + "/lock", counter: "/failover/" + k.name + "/counter", errs: make(chan error, waiters+1), released: make(chan struct{})}
		for _, p := range []string{"/failover", "/failover/" + k.name} {
			if _, err := admin.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				t.Fatal(err)
			}
		}
		if _, err := admin.Create(s.counter, []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		hs := dialLeader()
		s.conn = hs.Conn()
		s.holder = newHolder(t, k, hs, s.dir, nil)
		if err := s.holder.Lock(ctx); err != nil {
			t.Fatalf("%s: holder's Lock: %v", k.name, err)
		}
		s.inside.Add(1)
		s.session, s.token = s.conn.SessionID(), s.holder.Token()
		lost := s.holder.Lost()
		go func() {
			select {
			case <-lost:
				select {
				case <-s.released:
					return // our own Unlock (Resign closes the leader's Done too)
				default:
				}
				s.lostAt.Store(time.Now().UnixNano())
				leave(s) // a holder told it lost the lock stops working
			case <-s.released:
			case <-ctx.Done():
			}
		}()
		for i := range waiters {
			ws := dial()
			conn := ws.Conn()
			w := newHolder(t, k, ws, s.dir, nil)
			s.done.Add(1)
			go func() {
				defer s.done.Done()
				// A Lock whose request was in flight when the server died
				// may fail with zk.ErrConnectionClosed although the session
				// lives on (seen with 07-leader's Campaign): the caller
				// retries. Counted and logged, not hidden.
				for err := w.Lock(ctx); err != nil; err = w.Lock(ctx) {
					if ctx.Err() != nil || !errors.Is(err, zk.ErrConnectionClosed) {
						s.errs <- fmt.Errorf("waiter %d: Lock: %w", i, err)
						return
					}
					s.retries.Add(1)
					s.lastRetry.Store(err.Error())
				}
				if n := s.inside.Add(1); n != 1 {
					s.overlaps.Add(1)
				}
				st, err := incrementSeen(conn, s.counter)
				st.who = fmt.Sprintf("waiter %d", i)
				s.mu.Lock()
				s.steps = append(s.steps, st)
				s.mu.Unlock()
				s.inside.Add(-1)
				if err != nil {
					s.errs <- fmt.Errorf("waiter %d: %w", i, err)
				}
				if err := w.Unlock(ctx); err != nil {
					s.errs <- fmt.Errorf("waiter %d: Unlock: %w", i, err)
				}
			}()
		}
		all = append(all, s)
	}
	for _, s := range all {
		waitQueued(t, admin, s.dir, waiters+1)
	}

	stoppedAt := time.Now()
	if err := ens.Stop(ctx, leaderIdx); err != nil {
		t.Fatal(err)
	}
	newLeader, err := ens.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	elected := time.Since(stoppedAt)
	for _, s := range all {
		for s.conn.State() != zk.StateHasSession || s.conn.Server() == ens.Servers[leaderIdx] {
			if time.Since(stoppedAt) > patience {
				t.Errorf("%s: the holder is not connected to another server %v after the kill", s.k.name, patience)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	moved := time.Since(stoppedAt)
	t.Logf("killed leader %d; member %d leads %v later; every holder's session moved to another server within %v (session timeout %v)",
		leaderIdx, newLeader, elected.Round(time.Millisecond), moved.Round(time.Millisecond), d)

	// The holders work on through the failover: their update must land.
	for _, s := range all {
		st, err := incrementSeen(s.conn, s.counter)
		st.who = "holder"
		s.mu.Lock()
		s.steps = append(s.steps, st)
		s.mu.Unlock()
		if err != nil {
			t.Errorf("%s: holder's update after the failover: %v", s.k.name, err)
		}
	}
	if err := ens.Restart(ctx, leaderIdx); err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		t.Run(s.k.name+": the holder keeps its lock through a server failover", func(t *testing.T) {
			if s.conn.SessionID() != s.session {
				t.Errorf("the holder's session changed from %#x to %#x", s.session, s.conn.SessionID())
			}
			if at := s.lostAt.Load(); at != 0 {
				t.Errorf("the holder's Lost closed %v after the server was killed", time.Unix(0, at).Sub(stoppedAt).Round(time.Millisecond))
			}
			if got := s.holder.Token(); got != s.token {
				t.Errorf("the holder's token changed from %d to %d", s.token, got)
			}
		})
		close(s.released)
		leave(s)
		if err := s.holder.Unlock(ctx); err != nil {
			t.Errorf("%s: holder's Unlock: %v", s.k.name, err)
		}
	}
	for _, s := range all {
		t.Run(s.k.name+": after the failover every waiter gets its turn, one at a time, and no update is lost", func(t *testing.T) {
			s.done.Wait()
			close(s.errs)
			if n := s.retries.Load(); n > 0 {
				t.Logf("%d waiter Lock calls failed during the failover and were retried; last: %v", n, s.lastRetry.Load())
			}
			for err := range s.errs {
				t.Error(err)
			}
			if n := s.overlaps.Load(); n > 0 {
				t.Errorf("%d times a waiter got the lock while someone else held it", n)
			}
			// The admin's server may not have applied the last waiter's
			// write yet: a read without sync can be one short. Say when
			// it is, then read after a sync (readCounter).
			if v, version := readCounterAt(t, admin, s.counter, false); v != waiters+1 {
				t.Logf("before a sync, the admin's server (%s) answered %d (version %d): it had not yet applied every write", admin.Server(), v, version)
			}
			if got := readCounter(t, admin, s.counter); got != waiters+1 {
				t.Errorf("counter = %d, want %d; the increments, in the order they finished:", got, waiters+1)
				for _, st := range s.steps {
					t.Log(st)
				}
			}
		})
	}
}
