package fencing_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/08-fencing/fencing"
	"github.com/lockstep-zk/lockstep/08-fencing/sqlfence/sqlfencetest"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// sessionTimeout is what the paused holder asks for: its pause must outlast
// the session. The server may grant more (a stock server's minimum is 4 s);
// the waits below follow what it granted.
const sessionTimeout = time.Second

func ctxFor(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// story is the hard question Article 2 raises (a client in a GC pause while
// ZooKeeper hears no heartbeat), set up for real: client A holds
// the lock and is paused (its link to ZooKeeper silent, as in a
// stop-the-world GC), the server expires its session, and client B, next
// in line, now holds the lock. A still believes it holds it.
//
// The resource is not the lock service: each client writes the data znode
// through a client of its own (res), not through its lock's Session. A's
// lock Session ends with the expiry (its conn is closed, as any ZooKeeper
// handle is dead after Expired); A's resource client is a plain conn that
// reconnects, as a database client would, and goes through the same link,
// for a paused process is silent on every connection it has.
type story struct {
	a, b       *seqlock.Mutex
	sessA      *seqlock.Session
	resA, resB *zk.Conn       // each client's conn to the resource
	proxy      *zkproxy.Proxy // A's link; Restore resumes A
	data       string         // a data znode holding "initial"
	admin      *zk.Conn
}

func pausedHolder(t *testing.T) *story {
	t.Helper()
	ctx := ctxFor(t)
	root := zktest.Root(t)
	s := &story{data: root + "/data", admin: zktest.Connect(t)}
	if _, err := s.admin.Create(s.data, []byte("initial"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	sessA, proxy := zktest.DialSessionViaProxy(t, seqlock.NewSession, seqlock.WithSessionTimeout(sessionTimeout))
	sessB := zktest.DialSession(t, seqlock.NewSession)
	s.sessA, s.proxy, s.resB = sessA, proxy, zktest.Connect(t)
	resA, _, err := zksession.Connect(ctx, []string{proxy.Addr()}, zksession.DefaultTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resA.Close)
	s.resA = resA
	// A paused process runs no timer either: A's lock must not judge the
	// silence by the clock (WithoutDisconnectCheck), or it would give up
	// before the server does, and the story needs a holder that does not know.
	if s.a, err = seqlock.New(sessA, root+"/lock", seqlock.WithoutDisconnectCheck()); err != nil {
		t.Fatal(err)
	}
	if s.b, err = seqlock.New(sessB, root+"/lock"); err != nil {
		t.Fatal(err)
	}
	if err := s.a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Unlock both; A's Unlock reports the loss (ErrLost) and that is fine.
		s.proxy.Restore()
		uctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.a.Unlock(uctx)
		s.b.Unlock(uctx)
	})
	bLocked := make(chan error, 1)
	go func() { bLocked <- s.b.Lock(ctx) }()

	// A pauses right before its write: from the server's side, silence.
	if err := s.proxy.Cut(); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	if err := zktest.Await(t, bLocked, "B's Lock never returned after A paused"); err != nil {
		t.Fatalf("B never got the lock after A's session should have expired: %v", err)
	}
	t.Logf("B holds the lock %v after A paused (session timeout %v granted); tokens A=%d B=%d",
		time.Since(paused).Round(time.Millisecond), s.sessA.Timeout(), s.a.Token(), s.b.Token())
	if s.a.Node() == "" || s.a.Token() == 0 || s.a.Token() >= s.b.Token() {
		t.Fatalf("A node %q token %d, B token %d: want A still believing it holds an older token",
			s.a.Node(), s.a.Token(), s.b.Token())
	}
	return s
}

// resume ends A's pause.
func (s *story) resume() { s.proxy.Restore() }

func (s *story) readData(t *testing.T) (string, *zk.Stat) {
	t.Helper()
	b, stat, err := s.admin.Get(s.data)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), stat
}

// retryOnConnectionLoss repeats a write that failed only because A's resource client
// was being rebuilt after the pause (go-zookeeper flushes queued requests
// when it reconnects), as any ZooKeeper client retries on connection loss.
func retryOnConnectionLoss(t *testing.T, write func() error) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := write()
		if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrSessionExpired) && !errors.Is(err, zk.ErrNoServer) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing after 30 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestPausedHolder(t *testing.T) {
	t.Run("without fencing the stale write lands on top of the new holder's", func(t *testing.T) {
		s := pausedHolder(t)
		if _, err := s.resB.Set(s.data, []byte("B"), -1); err != nil {
			t.Fatal(err)
		}
		s.resume()
		err := retryOnConnectionLoss(t, func() error { _, err := s.resA.Set(s.data, []byte("A"), -1); return err })
		if err != nil {
			t.Fatalf("the unfenced stale write failed (%v); this test expects it to land", err)
		}
		if got, _ := s.readData(t); got != "A" {
			t.Fatalf("data = %q, want the stale holder's %q to have overwritten B's write", got, "A")
		}
	})

	t.Run("a token store refuses the stale write with ErrStaleToken", func(t *testing.T) {
		s := pausedHolder(t)
		var store fencing.Store
		if err := store.Write(s.b.Token(), "B"); err != nil {
			t.Fatal(err)
		}
		s.resume()
		err := store.Write(s.a.Token(), "A")
		if !errors.Is(err, fencing.ErrStaleToken) {
			t.Fatalf("stale write: err = %v, want ErrStaleToken", err)
		}
		if v, tok := store.Read(); v != "B" || tok != s.b.Token() {
			t.Fatalf("store holds %q (token %d), want B's write (token %d)", v, tok, s.b.Token())
		}
	})

	t.Run("the store refuses the stale write while the paused holder still believes it holds the lock", func(t *testing.T) {
		s := pausedHolder(t)
		var store fencing.Store
		if err := store.Write(s.b.Token(), "B"); err != nil {
			t.Fatal(err)
		}
		// A is still cut off, so it cannot have heard of the expiry: every
		// check it could make on its side says "held". The store says no.
		select {
		case <-s.a.Lost():
			t.Fatal("A learned of the loss while cut off; the story needs a holder that does not know")
		default:
		}
		if err := store.Write(s.a.Token(), "A"); !errors.Is(err, fencing.ErrStaleToken) {
			t.Fatalf("stale write: err = %v, want ErrStaleToken", err)
		}
	})

	t.Run("a database refuses the stale write in its own UPDATE", func(t *testing.T) {
		s := pausedHolder(t)
		ctx := ctxFor(t)
		rows := sqlfencetest.Memory(t, "data", "initial")
		if err := rows.Write(ctx, "data", s.b.Token(), "B"); err != nil {
			t.Fatal(err)
		}
		s.resume()
		err := rows.Write(ctx, "data", s.a.Token(), "A")
		if !errors.Is(err, fencing.ErrStaleToken) {
			t.Fatalf("stale write: err = %v, want ErrStaleToken", err)
		}
		v, tok, rerr := rows.Read(ctx, "data")
		if rerr != nil || v != "B" || tok != s.b.Token() {
			t.Fatalf("row holds %q (token %d, err %v), want B's write (token %d)", v, tok, rerr, s.b.Token())
		}
		t.Logf("refused with: %v", err)
	})

	t.Run("a multi that checks the lock node refuses the stale write", func(t *testing.T) {
		s := pausedHolder(t)
		ctx := ctxFor(t)
		if _, err := fencing.SetIfHeld(ctx, s.resB, s.b.Node(), s.data, []byte("B")); err != nil {
			t.Fatal(err)
		}
		_, before := s.readData(t)
		s.resume()
		err := retryOnConnectionLoss(t, func() error {
			_, err := fencing.SetIfHeld(ctx, s.resA, s.a.Node(), s.data, []byte("A"))
			return err
		})
		if !errors.Is(err, fencing.ErrNotHeld) || !errors.Is(err, zk.ErrNoNode) {
			t.Fatalf("stale write: err = %v, want ErrNotHeld and zk.ErrNoNode", err)
		}
		got, after := s.readData(t)
		if got != "B" || after.Version != before.Version {
			t.Fatalf("data = %q version %d→%d, want B's write untouched", got, before.Version, after.Version)
		}
		t.Logf("refused with: %v", err)
	})
}

// TestTokenStoreAcceptsAStaleWriteUntilTheNewHolderWrites measures the
// limit of fencing tokens: the resource only knows the tokens it has been
// shown. If the new holder has not written yet (it may have READ the
// resource, planning a read-modify-write), the paused holder's older token
// is still the newest the store has seen, and its write lands while it
// does not hold the lock; a database row with its conditional UPDATE
// (sqlfence) accepts it the same way. The ZooKeeper multi checks the lock
// itself, so it refuses the same write.
func TestTokenStoreAcceptsAStaleWriteUntilTheNewHolderWrites(t *testing.T) {
	s := pausedHolder(t)
	ctx := ctxFor(t)
	var store fencing.Store
	rows := sqlfencetest.Memory(t, "data", "initial")
	s.resume()
	if err := store.Write(s.a.Token(), "A"); err != nil {
		t.Fatalf("store refused the stale write (%v); this test measures that it accepts it", err)
	}
	t.Logf("the store accepted token %d while token %d held the lock: it had seen no newer token", s.a.Token(), s.b.Token())
	// A database row is no wiser: its UPDATE compares with the tokens it
	// has been shown, and it has been shown none newer.
	if err := rows.Write(ctx, "data", s.a.Token(), "A"); err != nil {
		t.Fatalf("the database refused the stale write (%v); this test measures that it accepts it", err)
	}
	err := retryOnConnectionLoss(t, func() error {
		_, err := fencing.SetIfHeld(ctx, s.resA, s.a.Node(), s.data, []byte("A"))
		return err
	})
	if !errors.Is(err, fencing.ErrNotHeld) {
		t.Fatalf("SetIfHeld with the same stale holder: err = %v, want ErrNotHeld", err)
	}
	// Once the new holder shows its token, the store is fenced again.
	if err := store.Write(s.b.Token(), "B"); err != nil {
		t.Fatal(err)
	}
	if err := store.Write(s.a.Token(), "A again"); !errors.Is(err, fencing.ErrStaleToken) {
		t.Fatalf("after B's write: err = %v, want ErrStaleToken", err)
	}
	if err := rows.Write(ctx, "data", s.b.Token(), "B"); err != nil {
		t.Fatal(err)
	}
	if err := rows.Write(ctx, "data", s.a.Token(), "A again"); !errors.Is(err, fencing.ErrStaleToken) {
		t.Fatalf("database, after B's write: err = %v, want ErrStaleToken", err)
	}
}

func TestStore(t *testing.T) {
	t.Run("a newer token is accepted and replaces the value", func(t *testing.T) {
		var s fencing.Store
		for _, tok := range []int64{33, 34, 90} {
			if err := s.Write(tok, strconv.FormatInt(tok, 10)); err != nil {
				t.Fatalf("token %d: %v", tok, err)
			}
		}
		if v, tok := s.Read(); v != "90" || tok != 90 {
			t.Fatalf("Read = %q, %d; want 90, 90", v, tok)
		}
	})
	t.Run("an older token is refused with ErrStaleToken and changes nothing", func(t *testing.T) {
		var s fencing.Store
		if err := s.Write(34, "new"); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(33, "stale"); !errors.Is(err, fencing.ErrStaleToken) {
			t.Fatalf("err = %v, want ErrStaleToken", err)
		}
		if v, tok := s.Read(); v != "new" || tok != 34 {
			t.Fatalf("Read = %q, %d; want new, 34", v, tok)
		}
	})
	t.Run("the same token may write again: one hold, many writes", func(t *testing.T) {
		var s fencing.Store
		for _, v := range []string{"first", "second"} {
			if err := s.Write(7, v); err != nil {
				t.Fatalf("write %q with token 7: %v", v, err)
			}
		}
		if v, _ := s.Read(); v != "second" {
			t.Fatalf("Read = %q, want second", v)
		}
	})
	t.Run("a token of 0 or less is refused with ErrNoToken", func(t *testing.T) {
		var s fencing.Store
		for _, tok := range []int64{0, -1} {
			if err := s.Write(tok, "x"); !errors.Is(err, fencing.ErrNoToken) {
				t.Fatalf("token %d: err = %v, want ErrNoToken", tok, err)
			}
		}
		if v, tok := s.Read(); v != "" || tok != 0 {
			t.Fatalf("Read = %q, %d after refused writes; want empty", v, tok)
		}
	})
	t.Run("concurrent writers: a write that starts after a newer one was accepted is refused", func(t *testing.T) {
		const writers, writes = 8, 500
		var s fencing.Store
		// Tokens come from one counter, as czxids come from one log, but a
		// writer can be overtaken between taking its token and writing.
		// Each write is logged with a logical clock read before it starts
		// and after it ends, so the test knows which writes came strictly
		// after which, without any timing assumption.
		type write struct {
			token      int64
			start, end int64
			accepted   bool
		}
		var next, clock atomic.Int64
		logs := make([][]write, writers)
		stop := make(chan struct{})
		readerDone := make(chan error)
		go func() {
			// Every value is its token's decimal form, so a value with
			// another token would mean a write that was not atomic.
			var last int64
			for {
				v, tok := s.Read()
				switch {
				case tok < last:
					readerDone <- fmt.Errorf("token went down: %d after %d", tok, last)
					return
				case tok != 0 && v != strconv.FormatInt(tok, 10):
					readerDone <- fmt.Errorf("value %q stored with token %d", v, tok)
					return
				}
				last = tok
				select {
				case <-stop:
					readerDone <- nil
					return
				default:
				}
			}
		}()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range writes {
					tok := next.Add(1)
					if rand.IntN(4) == 0 {
						runtime.Gosched() // let others overtake us now and then
					}
					start := clock.Add(1)
					err := s.Write(tok, strconv.FormatInt(tok, 10))
					logs[w] = append(logs[w], write{tok, start, clock.Add(1), err == nil})
					if err != nil && !errors.Is(err, fencing.ErrStaleToken) {
						t.Errorf("token %d: %v", tok, err)
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		if err := zktest.Await(t, readerDone, "the reader never stopped"); err != nil {
			t.Fatal(err)
		}

		// Every write that started after an accepted write with a higher
		// token had ended must have been refused. (A write that overlapped
		// the newer one may go either way: that is what concurrent means.)
		var all, acceptedByEnd []write
		for _, l := range logs {
			all = append(all, l...)
		}
		for _, w := range all {
			if w.accepted {
				acceptedByEnd = append(acceptedByEnd, w)
			}
		}
		slices.SortFunc(acceptedByEnd, func(a, b write) int { return cmp.Compare(a.end, b.end) })
		newestBefore := make([]int64, len(acceptedByEnd)+1) // newestBefore[i]: highest token among the first i
		for i, w := range acceptedByEnd {
			newestBefore[i+1] = max(newestBefore[i], w.token)
		}
		var refused, overtaken int
		for _, w := range all {
			i, _ := slices.BinarySearchFunc(acceptedByEnd, w.start, func(a write, start int64) int { return cmp.Compare(a.end, start) })
			stale := newestBefore[i] > w.token
			if stale {
				overtaken++
			}
			if !w.accepted {
				refused++
			}
			if stale && w.accepted {
				t.Fatalf("token %d accepted although token %d had been accepted before it started", w.token, newestBefore[i])
			}
		}
		if _, tok := s.Read(); tok != next.Load() {
			t.Fatalf("final token %d, want the highest written, %d", tok, next.Load())
		}
		t.Logf("%d writes: %d refused as stale, %d of them started after a newer write had landed", len(all), refused, overtaken)
	})
}

func TestSetIfHeld(t *testing.T) {
	ctx := ctxFor(t)
	root := zktest.Root(t)
	sess := zktest.DialSession(t, seqlock.NewSession)
	conn := sess.Conn()
	data := root + "/data"
	if _, err := conn.Create(data, []byte("initial"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	get := func() (string, int32) {
		t.Helper()
		b, stat, err := conn.Get(data)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), stat.Version
	}

	t.Run("the holder's write lands while its lock node exists", func(t *testing.T) {
		m, _ := seqlock.New(sess, root+"/lock")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		defer m.Unlock(ctx)
		_, before := get()
		stat, err := fencing.SetIfHeld(ctx, conn, m.Node(), data, []byte("held"))
		if err != nil {
			t.Fatal(err)
		}
		if v, version := get(); v != "held" || version != before+1 || stat.Version != version {
			t.Fatalf("data %q version %d (stat says %d), want held, %d", v, version, stat.Version, before+1)
		}
	})
	t.Run("after Unlock the same write is refused and the data is unchanged", func(t *testing.T) {
		m, _ := seqlock.New(sess, root+"/lock")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		node := m.Node()
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		v0, ver0 := get()
		_, err := fencing.SetIfHeld(ctx, conn, node, data, []byte("after unlock"))
		if !errors.Is(err, fencing.ErrNotHeld) || !errors.Is(err, zk.ErrNoNode) {
			t.Fatalf("err = %v, want ErrNotHeld and zk.ErrNoNode", err)
		}
		if v, ver := get(); v != v0 || ver != ver0 {
			t.Fatalf("data %q v%d → %q v%d: a refused write changed it", v0, ver0, v, ver)
		}
		// And Node() after Unlock is "": refused without a request.
		if _, err := fencing.SetIfHeld(ctx, conn, m.Node(), data, []byte("x")); !errors.Is(err, fencing.ErrNotHeld) {
			t.Fatalf("with Node() of an unlocked Mutex: err = %v, want ErrNotHeld", err)
		}
	})
	t.Run("a missing data node is zk.ErrNoNode, not mistaken for a lost lock", func(t *testing.T) {
		m, _ := seqlock.New(sess, root+"/lock")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		defer m.Unlock(ctx)
		_, err := fencing.SetIfHeld(ctx, conn, m.Node(), root+"/missing", []byte("x"))
		if !errors.Is(err, zk.ErrNoNode) || errors.Is(err, fencing.ErrNotHeld) {
			t.Fatalf("err = %v, want zk.ErrNoNode without ErrNotHeld", err)
		}
	})
	t.Run("bad input is a clear error and writes nothing", func(t *testing.T) {
		lockNode := root + "/lock/_c_00-lock-0000000000"
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		cases := []struct {
			name     string
			ctx      context.Context
			conn     *zk.Conn
			lockNode string
			path     string
			want     error // nil: any error
		}{
			{"nil conn", ctx, nil, lockNode, data, seqlock.ErrNilConn},
			{"empty data path", ctx, conn, lockNode, "", zkpath.ErrInvalid},
			{"relative data path", ctx, conn, lockNode, "data", zkpath.ErrInvalid},
			{"data path with trailing slash", ctx, conn, lockNode, data + "/", zkpath.ErrInvalid},
			{"root as data path", ctx, conn, lockNode, "/", zkpath.ErrInvalid},
			{"no lock node", ctx, conn, "", data, fencing.ErrNotHeld},
			{"relative lock node", ctx, conn, "lock-0000000000", data, zkpath.ErrInvalid},
			{"lock node with NUL", ctx, conn, root + "/lock\x00", data, zkpath.ErrInvalid},
			{"cancelled context", cancelled, conn, lockNode, data, context.Canceled},
		}
		// The earlier subtests' lock directory is an empty container now,
		// which the server reaps on its own schedule (every 500 ms here):
		// remove it first, so the tree compared below holds still.
		if err := zktest.DeleteTree(conn, root+"/lock"); err != nil {
			t.Fatal(err)
		}
		v0, ver0 := get()
		tree := zktest.Tree(t, conn, root)
		for _, c := range cases {
			_, err := fencing.SetIfHeld(c.ctx, c.conn, c.lockNode, c.path, []byte("bad"))
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
			}
		}
		if v, ver := get(); v != v0 || ver != ver0 {
			t.Fatalf("data %q v%d → %q v%d after bad input", v0, ver0, v, ver)
		}
		if nodes := zktest.Tree(t, conn, root); !slices.Equal(nodes, tree) {
			t.Fatalf("znodes under the root after bad input:\n  %s\nbefore:\n  %s", zktest.Describe(nodes), zktest.Describe(tree))
		}
	})
}

// TestCheckWithAnyVersionStillNeedsTheNode pins down the ZooKeeper
// behaviour SetIfHeld relies on: a check op with version -1 skips the
// version comparison, not the existence test. A multi with such a check on
// a missing node fails as a whole with NoNode, and its set is not applied.
func TestCheckWithAnyVersionStillNeedsTheNode(t *testing.T) {
	root := zktest.Root(t)
	conn := zktest.Connect(t)
	data := root + "/data"
	if _, err := conn.Create(data, []byte("initial"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	multi := func(checked string) ([]zk.MultiResponse, error) {
		return conn.Multi(
			&zk.CheckVersionRequest{Path: checked, Version: -1},
			&zk.SetDataRequest{Path: data, Data: []byte("via " + checked), Version: -1},
		)
	}
	res, err := multi(root + "/missing")
	if !errors.Is(err, zk.ErrNoNode) || len(res) != 2 || !errors.Is(res[0].Error, zk.ErrNoNode) {
		t.Fatalf("check -1 on a missing node: err %v, results %+v; want NoNode from the check", err, res)
	}
	if b, _, _ := conn.Get(data); string(b) != "initial" {
		t.Fatalf("data = %q: the set of a failed multi was applied", b)
	}
	if _, err := multi(root); err != nil {
		t.Fatalf("check -1 on an existing node: %v", err)
	}
	if b, _, _ := conn.Get(data); string(b) != "via "+root {
		t.Fatalf("data = %q after a passing multi", b)
	}
}

func ExampleStore() {
	var s fencing.Store
	fmt.Println(s.Write(33, "from the first holder"))
	fmt.Println(s.Write(34, "from the second holder"))
	fmt.Println(s.Write(33, "the first holder, back from a GC pause"))
	fmt.Println(s.Read())
	// Output:
	// <nil>
	// <nil>
	// fencing: write with token 33: fencing: stale token: the store has seen token 34
	// from the second holder 34
}

func ExampleSetIfHeld() {
	ctx := context.Background()
	sess, err := seqlock.NewSession(ctx, zktest.ExampleServers())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sess.Close()
	conn := sess.Conn()
	conn.Create("/fencing-example", []byte("initial"), 0, zk.WorldACL(zk.PermAll))
	defer conn.Delete("/fencing-example", -1)

	m, _ := seqlock.New(sess, "/fencing-example-lock")
	if err := m.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	node := m.Node()
	_, err = fencing.SetIfHeld(ctx, conn, node, "/fencing-example", []byte("written while held"))
	fmt.Println("while held:", err)
	m.Unlock(ctx)
	_, err = fencing.SetIfHeld(ctx, conn, node, "/fencing-example", []byte("written after unlock"))
	fmt.Println("after unlock, not held:", errors.Is(err, fencing.ErrNotHeld))
	b, _, _ := conn.Get("/fencing-example")
	fmt.Printf("data: %s\n", b)
	// Output:
	// while held: <nil>
	// after unlock, not held: true
	// data: written while held
}
