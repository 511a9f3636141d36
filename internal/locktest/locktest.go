// Package locktest is the conformance suite every lock chapter runs, in the
// shape of the 6.5840 lock lab's checker: N contenders, each with its own
// ZooKeeper session, M rounds each; inside the lock they do the articles'
// unguarded read-modify-write of a counter znode (age++), and the final count
// must be exact. An in-process occupancy counter catches any overlap, and
// where the lock has a fencing token, tokens must increase.
//
// Then the bad-input table: every case a clear error, no panic, no hang and
// nothing left behind in ZooKeeper.
//
//	func TestConformance(t *testing.T) {
//		locktest.Run(t, locktest.Impl{New: …, ErrNotHeld: mylock.ErrNotHeld})
//	}
package locktest

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// Locker is what every lockstep lock (or one side of it) offers.
type Locker = contend.Locker

// TryLocker is a Locker that can try without waiting.
type TryLocker interface {
	Locker
	TryLock(ctx context.Context) error
}

// Tokener is a Locker whose holder has a fencing token.
type Tokener interface {
	Token() int64
}

// Impl describes a lock implementation to the suite.
type Impl struct {
	// New returns a lock on path over conn that reports to obs (its
	// WithObserver; obs may be nil). It may reject bad input itself or
	// leave that to Lock; either way it must be an error, not a panic.
	// For locks on a plain *zk.Conn (02, 03).
	//
	// The suite listens to a waiter's event.Waiting to know that its Lock
	// is really waiting before it cancels it or closes the holder: a
	// sleep would test nothing on a loaded machine where the waiter has
	// not queued yet.
	New func(conn *zk.Conn, path string, obs event.Observer) (Locker, error)
	// Open is New for locks that live on a session of their own (04 on:
	// seqlock.Session, which locktest cannot name): it opens one
	// contender's session, closed when the test ends, and returns its conn
	// and a constructor for locks on it.
	Open func(tb testing.TB) (conn *zk.Conn, newLock func(path string, obs event.Observer) (Locker, error))
	// ErrNotHeld is what Unlock returns for a lock this object does not hold.
	ErrNotHeld error
	// ErrLocked is what TryLock returns when someone else holds the lock
	// (only for TryLockers).
	ErrLocked error
	// Contenders and Rounds size the exclusion scenario (defaults 5 and 8).
	Contenders, Rounds int
	// HolderCrashKeepsLock marks a lock whose node outlives its holder's
	// session (02's persistent variant): the suite then leaves out "a waiter
	// gets the lock when the holder's session is closed", which is exactly
	// that lock's flaw — its own test must prove it stays stuck instead.
	HolderCrashKeepsLock bool
}

func (impl Impl) sizes() (int, int) {
	n, m := impl.Contenders, impl.Rounds
	if n == 0 {
		n = 5
	}
	if m == 0 {
		m = 8
	}
	return n, m
}

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, impl Impl) {
	t.Run("contenders never hold the lock at once and no update is lost", func(t *testing.T) { exclusion(t, impl) })
	t.Run("a lock can be taken and released many times on one session", func(t *testing.T) { reuse(t, impl) })
	t.Run("unlocking a lock never locked returns ErrNotHeld", func(t *testing.T) { unlockUnheld(t, impl) })
	t.Run("unlocking twice returns ErrNotHeld the second time", func(t *testing.T) { doubleUnlock(t, impl) })
	t.Run("another lock object cannot unlock the holder's lock", func(t *testing.T) { foreignUnlock(t, impl) })
	t.Run("a Lock whose context expires while waiting returns the context's error and leaves nothing", func(t *testing.T) { deadline(t, impl) })
	t.Run("a Lock whose context is cancelled while waiting returns promptly", func(t *testing.T) { cancelled(t, impl) })
	if !impl.HolderCrashKeepsLock {
		t.Run("a waiter gets the lock when the holder's session is closed, and a holder with Lost() is told", func(t *testing.T) { holderClosed(t, impl) })
	}
	if impl.ErrLocked != nil {
		t.Run("TryLock on a held lock returns ErrLocked at once and leaves nothing", func(t *testing.T) { tryLock(t, impl) })
	}
	t.Run("bad input is a clear error and leaves nothing behind", func(t *testing.T) { BadInput(t, impl) })
}

// contender opens one contender's session and builds its lock on p, which
// reports to obs (nil: to nobody).
func contender(t testing.TB, impl Impl, p string, obs event.Observer) (*zk.Conn, Locker) {
	t.Helper()
	conn, build := impl.contender(t)
	l, err := build(p, obs)
	if err != nil {
		t.Fatalf("New(%q): %v", p, err)
	}
	return conn, l
}

func (impl Impl) contender(t testing.TB) (*zk.Conn, func(string, event.Observer) (Locker, error)) {
	if impl.Open != nil {
		return impl.Open(t)
	}
	conn := zktest.Connect(t)
	return conn, func(p string, obs event.Observer) (Locker, error) { return impl.New(conn, p, obs) }
}

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

func exclusion(t *testing.T, impl Impl) {
	n, m := impl.sizes()
	root := zktest.Root(t)
	lockPath, counter := root+"/lock", root+"/counter"
	admin := zktest.Connect(t)
	if _, err := admin.Create(counter, []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	var inside atomic.Int32
	var mu sync.Mutex
	var tokens []int64
	var wg sync.WaitGroup
	errs := make(chan error, 2*n*m)
	// The suite builds the locks without an observer, so what a replay of
	// a failure shows is what the suite sees: who held, from when to when.
	rec := zktest.Recorder(t)
	for i := range n {
		conn, l := contender(t, impl, lockPath, nil)
		obs := rec.Observer(fmt.Sprint("contender-", i))
		wg.Go(func() {
			// The same loop as the demos' workers: Lock, the articles'
			// age++ (read, think, write back, no version check), Unlock.
			_, err := contend.Loop(zktest.Context(t), l, m, func(ctx context.Context) error {
				held := heldEvent(l, lockPath)
				obs.Emit(held)
				defer func() { held.Kind, held.Time = event.Released, time.Time{}; obs.Emit(held) }()
				defer inside.Add(-1)
				if in := inside.Add(1); in != 1 {
					rec.BrokeWhere(event.SecondHolder, fmt.Sprintf("contender-%d acquired the lock while another held it", i))
					errs <- fmt.Errorf("contender %d: %d holders at once", i, in)
				}
				if tk, ok := l.(Tokener); ok {
					mu.Lock()
					tokens = append(tokens, tk.Token())
					mu.Unlock()
				}
				_, err := contend.Increment(ctx, conn, counter, time.Millisecond)
				return err
			})
			if err != nil {
				errs <- fmt.Errorf("contender %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	b, _, err := admin.Get(counter)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != strconv.Itoa(n*m) {
		t.Errorf("counter = %s, want %d: updates were lost", got, n*m)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] < tokens[i-1] {
			rec.BrokeWhere(tokenNotIncreasing, fmt.Sprintf("token %d after %d: fencing tokens must increase", tokens[i], tokens[i-1]))
			t.Errorf("token %d after %d: fencing tokens must increase", tokens[i], tokens[i-1])
			break
		}
		if tokens[i] == tokens[i-1] {
			// Every token of the lockstep locks is the directory's pzxid
			// as the holder's listing saw it; the previous holder's
			// delete changes it. An equal token is a hold taken on a
			// listing made before the previous holder let go.
			rec.BrokeWhere(tokenNotIncreasing, fmt.Sprintf("token %d twice: a holder took the lock on a listing made before the previous holder let go", tokens[i]))
			t.Errorf("token %d twice: fencing tokens must increase (a holder took the lock on a listing made before the previous holder let go: it did not list the queue again after its wait)", tokens[i])
			break
		}
	}
	AssertClean(t, admin, root, lockPath, counter)
}

// heldEvent is the Acquired event the suite records for l, with its node
// and token where the lock tells them.
func heldEvent(l Locker, lockPath string) event.Event {
	e := event.Event{Lock: lockPath, Kind: event.Acquired}
	if n, ok := l.(interface{ Node() string }); ok {
		e.Node = n.Node()
	}
	if tk, ok := l.(Tokener); ok {
		e.Token = tk.Token()
	}
	return e
}

// tokenNotIncreasing is the first Acquired whose token is not above the
// one before it, -1 if none.
func tokenNotIncreasing(events []event.Event) int {
	var last int64
	for i, e := range events {
		if e.Kind != event.Acquired || e.Token == 0 {
			continue
		}
		if e.Token <= last {
			return i
		}
		last = e.Token
	}
	return -1
}

func reuse(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, l := contender(t, impl, root+"/lock", nil)
	ctx := zktest.Context(t)
	for i := range 20 {
		if err := l.Lock(ctx); err != nil {
			t.Fatalf("round %d: Lock: %v", i, err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatalf("round %d: Unlock: %v", i, err)
		}
	}
	AssertClean(t, conn, root, root+"/lock")
}

func unlockUnheld(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, l := contender(t, impl, root+"/lock", nil)
	if err := l.Unlock(zktest.Context(t)); !errors.Is(err, impl.ErrNotHeld) {
		t.Fatalf("Unlock = %v, want %v", err, impl.ErrNotHeld)
	}
	AssertClean(t, conn, root, root+"/lock")
}

func doubleUnlock(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, l := contender(t, impl, root+"/lock", nil)
	ctx := zktest.Context(t)
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); !errors.Is(err, impl.ErrNotHeld) {
		t.Fatalf("second Unlock = %v, want %v", err, impl.ErrNotHeld)
	}
	AssertClean(t, conn, root, root+"/lock")
}

// held is where several cases start: one session holds the lock, and
// another session has a lock object of its own on the same path.
type held struct {
	root, path       string
	holderConn, conn *zk.Conn
	holder, other    Locker
	ctx              context.Context
	// waiting is closed at other's first event.Waiting: its Lock has
	// queued behind the holder and is waiting for its turn.
	waiting chan struct{}
	// before is the tree under root while only the holder is in it.
	before map[string]bool
}

func holdOne(t *testing.T, impl Impl) held {
	t.Helper()
	root := zktest.Root(t)
	h := held{root: root, path: root + "/lock", ctx: zktest.Context(t), waiting: make(chan struct{})}
	var once sync.Once
	waits := func(e event.Event) {
		if e.Kind == event.Waiting {
			once.Do(func() { close(h.waiting) })
		}
	}
	h.holderConn, h.holder = contender(t, impl, h.path, nil)
	h.conn, h.other = contender(t, impl, h.path, waits)
	if err := h.holder.Lock(h.ctx); err != nil {
		t.Fatalf("holder.Lock: %v", err)
	}
	h.before = map[string]bool{}
	for _, n := range zktest.Tree(t, h.conn, root) {
		h.before[n] = true
	}
	return h
}

// awaitWaiting returns once other's Lock (started with lockAsync) says it
// waits, and fails the test if that Lock returned first or never waited.
//
// The evidence is the waiter's event.Waiting. A lock that does not report
// its waits (09's skeleton leaves that to the learner) gets promptly to say
// so; after that, its node showing in the queue behind the holder's is
// taken as the waiter having queued.
func (h held) awaitWaiting(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case <-h.waiting:
		return
	case err := <-done:
		t.Fatalf("Lock returned %v while another session held the lock: it must wait", err)
	case <-time.After(promptly):
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(zktest.Patience)
	for {
		select {
		case <-h.waiting:
			return
		case err := <-done:
			t.Fatalf("Lock returned %v while another session held the lock: it must wait", err)
		case <-deadline:
			t.Fatalf("after %v: the waiter's Lock neither reported event.Waiting nor queued a node behind the holder's", zktest.Patience+promptly)
		case <-tick.C:
			for _, n := range zktest.Tree(t, h.conn, h.root) {
				if _, seq := zkpath.SequenceOf(n); !h.before[n] && seq {
					return
				}
			}
		}
	}
}

// lockAsync starts l.Lock(ctx) and returns where its result will come.
func lockAsync(ctx context.Context, l Locker) <-chan error {
	done := make(chan error, 1)
	go func() { done <- l.Lock(ctx) }()
	return done
}

// promptly bounds what must happen at once (a cancelled Lock returning, a
// TryLock on a held lock): far less than zktest.Patience, far more than a
// loaded machine needs.
const promptly = 5 * time.Second

// await waits, within zktest.Patience, for what a lockAsync returns.
func await(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(zktest.Patience):
		t.Fatalf("after %v: %s", zktest.Patience, what)
		return nil
	}
}

func foreignUnlock(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	if err := h.other.Unlock(h.ctx); !errors.Is(err, impl.ErrNotHeld) {
		t.Fatalf("other.Unlock = %v, want %v", err, impl.ErrNotHeld)
	}
	// The holder must still hold: another contender cannot get in.
	short, cancel := context.WithTimeout(h.ctx, 300*time.Millisecond)
	defer cancel()
	if err := h.other.Lock(short); err == nil {
		t.Fatal("after a foreign Unlock, another contender acquired the lock")
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatalf("holder.Unlock: %v", err)
	}
	AssertClean(t, h.conn, h.root, h.path)
}

func deadline(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	short, cancel := context.WithTimeout(h.ctx, 300*time.Millisecond)
	defer cancel()
	if err := h.other.Lock(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiter.Lock = %v, want context.DeadlineExceeded", err)
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	// The waiter's own node (if it made one) must be gone too, even though
	// its session is still open.
	zktest.Eventually(t, zktest.Patience, "the timed-out waiter left a node behind", func() bool {
		return len(leftBehind(t, h.conn, h.root, h.path)) == 0
	})
	AssertClean(t, h.conn, h.root, h.path)
	// And the lock still works for the waiter afterwards.
	if err := h.other.Lock(h.ctx); err != nil {
		t.Fatalf("Lock after a timed-out Lock: %v", err)
	}
	if err := h.other.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
}

func cancelled(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	wctx, cancel := context.WithCancel(h.ctx)
	done := lockAsync(wctx, h.other)
	// Cancel only once the Lock waits: a Lock cancelled before it queued
	// would test nothing.
	h.awaitWaiting(t, done)
	cancel()
	// "Promptly": a waiter that notices its context only when it next
	// wakes would wait for the holder (30 s here); 5 s is plenty on a
	// loaded machine, and says so long before the test's patience ends.
	var err error
	select {
	case err = <-done:
	case <-time.After(promptly):
		t.Fatalf("Lock did not return within %v of its context being cancelled: the wait must also end when ctx does", promptly)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock = %v, want context.Canceled", err)
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, zktest.Patience, "the cancelled waiter left a node behind", func() bool {
		return len(leftBehind(t, h.conn, h.root, h.path)) == 0
	})
}

func holderClosed(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	done := lockAsync(h.ctx, h.other)
	// Close the holder only once the waiter waits, so what is tested is a
	// waiting Lock being woken, not a Lock that finds the lock free.
	h.awaitWaiting(t, done)
	h.holderConn.Close() // the holder's process goes away; its session ends
	if err := await(t, done, "the waiter never got the lock after the holder's session closed"); err != nil {
		t.Fatalf("waiter.Lock = %v", err)
	}
	if err := h.other.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, h.conn, h.root, h.path)
	// A lock that can say it lost its hold says so when its conn is gone.
	if l, ok := h.holder.(interface{ Lost() <-chan struct{} }); ok {
		select {
		case <-l.Lost():
		case <-time.After(zktest.Patience):
			t.Fatal("the holder whose session was closed was never told: Lost() is still open")
		}
	}
}

func tryLock(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	other, ok := h.other.(TryLocker)
	if !ok {
		t.Fatal("Impl.ErrLocked is set but the lock has no TryLock")
	}
	// A TryLock that waits like Lock would wait as long as its context
	// lets it: give it promptly, and name what it did.
	start := time.Now()
	tctx, cancel := context.WithTimeout(h.ctx, promptly)
	err := other.TryLock(tctx)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryLock on a held lock was still waiting after %v: it must return %v at once, not wait like Lock", promptly, impl.ErrLocked)
	}
	if !errors.Is(err, impl.ErrLocked) {
		t.Fatalf("TryLock on a held lock = %v, want %v", err, impl.ErrLocked)
	}
	if d := time.Since(start); d > promptly {
		t.Errorf("TryLock took %v: it must not wait", d)
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, h.conn, h.root, h.path)
	if err := other.TryLock(h.ctx); err != nil {
		t.Fatalf("TryLock on a free lock: %v", err)
	}
	if err := other.Unlock(h.ctx); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, h.conn, h.root, h.path)
}
