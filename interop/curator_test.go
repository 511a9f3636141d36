package interop

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/internal/jvm"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// Each test starts one JVM running curator/Interop.java, with one Curator
// client (one session) per Java holder, and drives it line by line: "new",
// "acquire", "release", "rounds", "leader" (the protocol is at the top of
// the Java file). The Go holders are lockstep's own locks, each on a
// session of its own. Both sides enter the check znode (check_test.go)
// while they hold, so the test sees every overlap, whoever caused it.

//go:embed curator/Interop.java
var interopSource []byte

// The Java is compiled once per test run, by the first test that needs
// it, and removed when the package's tests end.
var compiled struct {
	once sync.Once
	prog *jvm.Program
	err  error
}

func TestMain(m *testing.M) {
	zktest.Main(m, func() {
		if compiled.prog != nil {
			compiled.prog.Remove()
		}
	})
}

// locker is what the Go side of every test drives.
type locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// lockstepLock makes one of lockstep's locks on dir, on a session of its
// own (as each Curator client has its own): kind is mutex (04), read or
// write (05), latch (07, campaigning as id) or semaphore (09, n leases).
// It is the one place the tests build a lock.
func lockstepLock(t *testing.T, kind, dir string, n int, id string) locker {
	t.Helper()
	sess := zktest.DialSession(t, seqlock.NewSession)
	var l locker
	var err error
	switch kind {
	case "mutex":
		l, err = seqlock.New(sess, dir)
	case "read", "write":
		var rw *rwlock.RWMutex
		if rw, err = rwlock.New(sess, dir); err == nil {
			l = rw.Read()
			if kind == "write" {
				l = rw.Write()
			}
		}
	case "latch":
		var e *leader.Election
		if e, err = leader.New(sess, dir); err == nil {
			l = &candidate{e: e, id: id}
		}
	case "semaphore":
		var s *semaphore.Semaphore
		if s, err = semaphore.New(sess, dir, n); err == nil {
			l = &leaseHolder{s: s}
		}
	default:
		err = fmt.Errorf("no lock of kind %q", kind)
	}
	if err != nil {
		t.Fatalf("lockstep %s on %s: %v", kind, dir, err)
	}
	return l
}

// candidate is a chapter 07 Election as a locker: Lock campaigns (as id)
// and returns once it leads, Unlock resigns.
type candidate struct {
	e  *leader.Election
	id string
}

func (c *candidate) Lock(ctx context.Context) error   { return c.e.Campaign(ctx, c.id) }
func (c *candidate) Unlock(ctx context.Context) error { return c.e.Resign(ctx) }

// leaseHolder is a chapter 09 Semaphore as a locker: Lock acquires a
// lease, Unlock releases it. The Semaphore answers Holders.
type leaseHolder struct {
	s     *semaphore.Semaphore
	lease *semaphore.Lease
}

func (h *leaseHolder) Lock(ctx context.Context) (err error) {
	h.lease, err = h.s.Acquire(ctx)
	return err
}

func (h *leaseHolder) Unlock(ctx context.Context) error { return h.lease.Release(ctx) }

// curator is the JVM of one test.
type curator struct {
	proc *jvm.Process
	mu   sync.Mutex
	box  map[string]chan string // what Java said about each holder, by id
	done chan struct{}          // closed when the JVM's output ends
}

// startCurator starts the JVM for this test; it skips the test, naming
// what to install, where Java or Curator's jars are missing.
func startCurator(t *testing.T) *curator {
	t.Helper()
	if reason := jvm.Missing(jvm.CuratorClasspath); reason != "" {
		t.Skip("Curator interop needs Java and Curator's jars: " + reason)
	}
	compiled.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		compiled.prog, compiled.err = jvm.Compile(ctx, jvm.CuratorClasspath, "Interop", interopSource)
	})
	if compiled.err != nil {
		t.Fatal(compiled.err)
	}
	session := strconv.FormatInt(zksession.DefaultTimeout.Milliseconds(), 10)
	proc, err := compiled.prog.Start("Curator", strings.Join(zktest.Servers(t), ","), session)
	if err != nil {
		t.Fatal(err)
	}
	c := &curator{proc: proc, box: map[string]chan string{}, done: make(chan struct{})}
	hello, err := proc.Expect(zktest.Context(t), "curator", zktest.Patience)
	if err != nil {
		proc.Close()
		t.Fatal(err)
	}
	t.Logf("Curator %s", hello)
	go func() {
		defer close(c.done)
		for line := range proc.Lines() {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue // not ours to route; nothing else prints
			}
			c.inbox(f[1]) <- line
		}
	}()
	// Closing its input makes the JVM close every client, whose sessions
	// and ephemeral nodes end with it: before zktest.Root's cleanup.
	t.Cleanup(func() { proc.Close(); <-c.done })
	return c
}

func (c *curator) inbox(id string) chan string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.box[id] == nil {
		c.box[id] = make(chan string, 64)
	}
	return c.box[id]
}

// send sends one command line.
func (c *curator) send(t *testing.T, format string, args ...any) {
	t.Helper()
	if err := c.proc.Send(fmt.Sprintf(format, args...)); err != nil {
		t.Fatal(err)
	}
}

// expect waits for Java's next line about id, which must start with
// want, and returns the fields after the id.
func (c *curator) expect(t *testing.T, id, want string) []string {
	t.Helper()
	select {
	case line := <-c.inbox(id):
		f := strings.Fields(line)
		if f[0] != want {
			t.Fatalf("Curator %s: want %q, got %q", id, want, line)
		}
		return f[2:]
	case <-c.done:
		t.Fatalf("Curator exited before %s said %q%s", id, want, c.proc.Stderr())
	case <-time.After(zktest.Patience):
		t.Fatalf("Curator %s: no %q within %v%s", id, want, zktest.Patience, c.proc.Stderr())
	}
	return nil
}

// notYet fails if Java has said anything about id: a Curator waiter that
// must still be waiting.
func (c *curator) notYet(t *testing.T, id, what string) {
	t.Helper()
	select {
	case line := <-c.inbox(id):
		t.Fatalf("Curator %s: %q, but %s", id, line, what)
	default:
	}
}

// queued waits until dir has n children, the last one Java holder id's,
// which is waiting: it fails at once if id says anything meanwhile (it
// took the lock it should be waiting for).
func (c *curator) queued(t *testing.T, id string, conn *zk.Conn, dir string, n int) {
	t.Helper()
	waitChildren(t, conn, dir, n, c.inbox(id))
}

// open makes the Java holder id: its own client with one recipe of kind
// (mutex, read, write, latch, semaphore) on path.
func (c *curator) open(t *testing.T, id, kind, path string, n int) {
	t.Helper()
	c.send(t, "new %s %s %s %d", id, kind, path, n)
	c.expect(t, id, "ready")
}

// rounds starts k rounds on each of ids at once (see goRounds); wait
// with c.finished.
func (c *curator) rounds(t *testing.T, who []string, k int, counter, check string) {
	t.Helper()
	for _, id := range who {
		c.send(t, "rounds %s %d %s %s", id, k, counter, check)
	}
}

func (c *curator) finished(t *testing.T, who []string) {
	t.Helper()
	for _, id := range who {
		c.expect(t, id, "done")
	}
}

// goContenders makes the Go contenders ids of kind on dir and starts k
// rounds on each (goRounds); the channel delivers each one's result.
func goContenders(t *testing.T, who []string, kind, dir string, n, k int, exclusive bool, counter, check string) <-chan error {
	t.Helper()
	conn := zktest.Connect(t)
	done := make(chan error, len(who))
	var ls []locker
	for _, id := range who {
		ls = append(ls, lockstepLock(t, kind, dir, n, id))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*zktest.Patience)
	t.Cleanup(cancel)
	for i, l := range ls {
		go func() {
			err := goRounds(ctx, conn, l, k, exclusive, counter, check)
			if err != nil {
				err = fmt.Errorf("%s: %w", who[i], err)
			}
			done <- err
		}()
	}
	return done
}

func ids(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// lockAsync locks l in a goroutine and enters the check once it holds.
func lockAsync(ctx context.Context, conn *zk.Conn, l locker, check string, exclusive bool) <-chan error {
	done := make(chan error, 1)
	go func() {
		err := l.Lock(ctx)
		if err == nil {
			err = enter(conn, check, exclusive)
		}
		done <- err
	}()
	return done
}

func TestCuratorAndSeqlockShareAMutex(t *testing.T) {
	root := zktest.Root(t)
	cur := startCurator(t)
	admin := zktest.Connect(t)
	dir := root + "/lock"

	t.Run("a Curator client waits behind a lockstep holder, and a lockstep mutex behind a Curator holder", func(t *testing.T) {
		ctx := zktest.Context(t)
		check := newCheck(t, admin, root+"/check-handoff")
		g := lockstepLock(t, "mutex", dir, 0, "g0")
		must(t, "lockstep lock", g.Lock(ctx))
		must(t, "enter", enter(admin, check, true))

		cur.open(t, "j0", "mutex", dir, 0)
		cur.send(t, "acquire j0 %s", check)
		cur.queued(t, "j0", admin, dir, 2) // Curator's node is in the queue, behind ours
		must(t, "leave", leave(admin, check, true))
		must(t, "lockstep unlock", g.Unlock(ctx))
		cur.expect(t, "j0", "acquired")

		locked := lockAsync(ctx, admin, g, check, true)
		waitChildren(t, admin, dir, 2, nil) // ours is in the queue, behind Curator's
		notYet(t, "the lockstep mutex took the lock", locked)
		cur.send(t, "release j0 %s", check)
		cur.expect(t, "j0", "released")
		within(t, "lockstep lock after Curator's release", locked)
		must(t, "leave", leave(admin, check, true))
		must(t, "lockstep unlock", g.Unlock(ctx))

		r := readCheck(t, admin, check)
		t.Logf("check: %v", r)
		if r.Bad != 0 || r.Max != 1 || r.Entries != 3 || r.Switches != 2 {
			t.Fatalf("check: %v; want no bad entry, at most one inside, 3 entries, 2 switches", r)
		}
	})

	t.Run("three Curator clients and three lockstep mutexes, ten rounds each: the counter is exact and nobody ever shares", func(t *testing.T) {
		const k = 10
		dir := dir + "-rounds" // its own queue: a failure above leaves nobody in it
		check := newCheck(t, admin, root+"/check-rounds")
		counter := newCounter(t, admin, root+"/counter")
		java := ids("jr", 3)
		for _, id := range java {
			cur.open(t, id, "mutex", dir, 0)
		}
		start := time.Now()
		cur.rounds(t, java, k, counter, check)
		gos := ids("gr", 3)
		done := goContenders(t, gos, "mutex", dir, 0, k, true, counter, check)
		for _, id := range gos {
			within(t, "lockstep contender "+id, done)
		}
		cur.finished(t, java)
		r := readCheck(t, admin, check)
		t.Logf("%d acquisitions in %v; check: %v", 2*3*k, time.Since(start).Round(time.Millisecond), r)
		if got, want := readCounter(t, admin, counter), 2*3*k; got != want {
			t.Fatalf("counter %d, want %d: an update was lost, two held the lock at once", got, want)
		}
		if r.Bad != 0 || r.Max != 1 || r.Entries != 2*3*k || r.InsideGo+r.InsideJava != 0 {
			t.Fatalf("check: %v; want no bad entry, at most one inside, %d entries, none inside", r, 2*3*k)
		}
		// Both sides took turns in one queue, not one after the other.
		if r.Switches < 2 {
			t.Fatalf("check: %v; the lock passed between the sides only %d times", r, r.Switches)
		}
	})
}

func TestCuratorAndRWLockShareAReadWriteLock(t *testing.T) {
	root := zktest.Root(t)
	cur := startCurator(t)
	admin := zktest.Connect(t)
	dir := root + "/rw"

	t.Run("a Curator reader enters beside a lockstep reader, and writers of either side wait for both", func(t *testing.T) {
		ctx := zktest.Context(t)
		check := newCheck(t, admin, root+"/check-handoff")
		gr := lockstepLock(t, "read", dir, 0, "gr")
		must(t, "lockstep read lock", gr.Lock(ctx))
		must(t, "enter", enter(admin, check, false))

		cur.open(t, "jr", "read", dir, 0)
		cur.send(t, "acquire jr %s", check)
		cur.expect(t, "jr", "acquired") // while the lockstep reader holds: readers share

		cur.open(t, "jw", "write", dir, 0)
		cur.send(t, "acquire jw %s", check)
		cur.queued(t, "jw", admin, dir, 3)
		gw := lockstepLock(t, "write", dir, 0, "gw")
		wrote := lockAsync(ctx, admin, gw, check, true)
		waitChildren(t, admin, dir, 4, cur.inbox("jw")) // readers gr jr, then writers jw gw

		must(t, "leave", leave(admin, check, false))
		must(t, "lockstep read unlock", gr.Unlock(ctx))
		cur.notYet(t, "jw", "Curator's reader still holds the lock")
		notYet(t, "the lockstep writer took the lock", wrote)
		cur.send(t, "release jr %s", check)
		cur.expect(t, "jr", "released")
		cur.expect(t, "jw", "acquired") // the first writer in the queue
		notYet(t, "the lockstep writer took the lock", wrote)
		cur.send(t, "release jw %s", check)
		cur.expect(t, "jw", "released")
		within(t, "lockstep write lock after Curator's writer", wrote)
		must(t, "leave", leave(admin, check, true))
		must(t, "lockstep write unlock", gw.Unlock(ctx))

		r := readCheck(t, admin, check)
		t.Logf("check: %v", r)
		if r.Bad != 0 || r.Entries != 4 || r.Together < 1 || r.Max != 2 {
			t.Fatalf("check: %v; want no bad entry, 4 entries, the two readers inside together", r)
		}
	})

	t.Run("two readers and a writer on each side, eight rounds each: writers alone, the counter exact", func(t *testing.T) {
		const k = 8
		dir := dir + "-rounds" // its own queue: a failure above leaves nobody in it
		check := newCheck(t, admin, root+"/check-rounds")
		counter := newCounter(t, admin, root+"/counter")
		jr, jw := ids("jr", 2), ids("jw", 1)
		for _, id := range jr {
			cur.open(t, id, "read", dir, 0)
		}
		for _, id := range jw {
			cur.open(t, id, "write", dir, 0)
		}
		start := time.Now()
		cur.rounds(t, slices.Concat(jr, jw), k, counter, check)
		readers := goContenders(t, ids("gr", 2), "read", dir, 0, k, false, counter, check)
		writers := goContenders(t, ids("gw", 1), "write", dir, 0, k, true, counter, check)
		within(t, "lockstep reader", readers)
		within(t, "lockstep reader", readers)
		within(t, "lockstep writer", writers)
		cur.finished(t, slices.Concat(jr, jw))
		r := readCheck(t, admin, check)
		t.Logf("%d holds in %v; check: %v", 6*k, time.Since(start).Round(time.Millisecond), r)
		if got, want := readCounter(t, admin, counter), 2*k; got != want {
			t.Fatalf("counter %d, want %d: a writer shared the lock", got, want)
		}
		if r.Bad != 0 || r.Entries != 6*k || r.InsideGo+r.InsideJava != 0 {
			t.Fatalf("check: %v; want no bad entry, %d entries, none inside", r, 6*k)
		}
	})
}

func TestCuratorLeaderLatchAndLeaderElectionAgree(t *testing.T) {
	root := zktest.Root(t)
	cur := startCurator(t)
	admin := zktest.Connect(t)
	dir := root + "/election"

	// agree checks that both sides name the same leader and the same
	// candidates in the same order: Go with chapter 07's Leader and
	// chapter 04's Participants, Java with LeaderLatch's getLeader and
	// getParticipants (asked by the Java holder "jq", which never runs).
	observer := lockstepLock(t, "latch", dir, 0, "observer").(*candidate).e
	cur.open(t, "jq", "latch", dir, 0)
	agree := func(t *testing.T, leads string, queue ...string) {
		t.Helper()
		l, err := observer.Leader(zktest.Context(t))
		must(t, "lockstep Leader", err)
		ps, err := seqlock.Participants(zktest.Context(t), admin, dir)
		must(t, "participants", err)
		var goQueue []string
		for _, p := range ps {
			goQueue = append(goQueue, string(p.Data))
		}
		cur.send(t, "leader jq %s", dir)
		java := cur.expect(t, "jq", "leader")
		if len(java) != 2 {
			t.Fatalf("Curator's answer %q", java)
		}
		want := strings.Join(queue, ",")
		if l.Value != leads || java[0] != leads || strings.Join(goQueue, ",") != want || java[1] != want {
			t.Fatalf("lockstep: %s leads, queue %v; Curator: %s leads, queue %s; want %s leading %s",
				l.Value, goQueue, java[0], java[1], leads, want)
		}
	}

	t.Run("both sides name the same leader, and leadership passes in queue order across them", func(t *testing.T) {
		ctx := zktest.Context(t)
		check := newCheck(t, admin, root+"/check-handoff")
		g0 := lockstepLock(t, "latch", dir, 0, "g0")
		must(t, "campaign g0", g0.Lock(ctx))
		must(t, "enter", enter(admin, check, true))
		cur.open(t, "j0", "latch", dir, 0)
		cur.open(t, "j1", "latch", dir, 0)
		cur.send(t, "acquire j0 %s", check)
		cur.queued(t, "j0", admin, dir, 2)
		cur.send(t, "acquire j1 %s", check)
		cur.queued(t, "j1", admin, dir, 3)
		g1 := lockstepLock(t, "latch", dir, 0, "g1")
		led := lockAsync(ctx, admin, g1, check, true)
		waitChildren(t, admin, dir, 4, nil)
		agree(t, "g0", "g0", "j0", "j1", "g1")

		must(t, "leave", leave(admin, check, true))
		must(t, "resign g0", g0.Unlock(ctx))
		cur.expect(t, "j0", "acquired")
		agree(t, "j0", "j0", "j1", "g1")
		cur.notYet(t, "j1", "j0 leads")

		cur.send(t, "release j0 %s", check)
		cur.expect(t, "j0", "released")
		cur.expect(t, "j1", "acquired")
		waitChildren(t, admin, dir, 2, nil) // LeaderLatch.close deletes its node in the background
		agree(t, "j1", "j1", "g1")
		notYet(t, "g1 leads while Curator's j1 leads", led)

		cur.send(t, "release j1 %s", check)
		cur.expect(t, "j1", "released")
		within(t, "g1's campaign after Curator's j1 closed its latch", led)
		agree(t, "g1", "g1")
		must(t, "leave", leave(admin, check, true))
		must(t, "resign g1", g1.Unlock(ctx))

		r := readCheck(t, admin, check)
		t.Logf("check: %v", r)
		if r.Bad != 0 || r.Max != 1 || r.Entries != 4 || r.Switches != 2 {
			t.Fatalf("check: %v; want one leader at a time, 4 leaderships, 2 switches", r)
		}
	})

	t.Run("two LeaderLatches and two Elections campaign four times each: one leader at a time, the counter exact", func(t *testing.T) {
		const k = 4
		dir := dir + "-rounds" // its own queue: a failure above leaves nobody in it
		check := newCheck(t, admin, root+"/check-rounds")
		counter := newCounter(t, admin, root+"/counter")
		java := ids("jr", 2)
		for _, id := range java {
			cur.open(t, id, "latch", dir, 0)
		}
		start := time.Now()
		cur.rounds(t, java, k, counter, check)
		gos := ids("gr", 2)
		done := goContenders(t, gos, "latch", dir, 0, k, true, counter, check)
		for _, id := range gos {
			within(t, "lockstep candidate "+id, done)
		}
		cur.finished(t, java)
		r := readCheck(t, admin, check)
		t.Logf("%d leaderships in %v; check: %v", 4*k, time.Since(start).Round(time.Millisecond), r)
		if got, want := readCounter(t, admin, counter), 4*k; got != want {
			t.Fatalf("counter %d, want %d: two leaders at once", got, want)
		}
		if r.Bad != 0 || r.Max != 1 || r.Entries != 4*k {
			t.Fatalf("check: %v; want one leader at a time, %d leaderships", r, 4*k)
		}
	})
}

func TestCuratorSemaphoreAndSemaphoreShareLeases(t *testing.T) {
	const n = 3
	root := zktest.Root(t)
	cur := startCurator(t)
	admin := zktest.Connect(t)
	dir := root + "/semaphore"

	t.Run("three leases between both sides: the fourth client waits, Curator's or lockstep's", func(t *testing.T) {
		ctx := zktest.Context(t)
		check := newCheck(t, admin, root+"/check-handoff")
		g0 := lockstepLock(t, "semaphore", dir, n, "g0")
		g1 := lockstepLock(t, "semaphore", dir, n, "g1")
		must(t, "lockstep lease g0", g0.Lock(ctx))
		must(t, "enter", enter(admin, check, false))
		must(t, "lockstep lease g1", g1.Lock(ctx))
		must(t, "enter", enter(admin, check, false))
		cur.open(t, "j0", "semaphore", dir, n)
		cur.open(t, "j1", "semaphore", dir, n)
		cur.send(t, "acquire j0 %s", check)
		cur.expect(t, "j0", "acquired") // the third lease

		// j1 takes the gate (locks/), creates its lease node, finds four
		// and waits: Curator's V2 creates first and counts after, where
		// lockstep counts first. Holders must not take j1's node, the
		// newest, for a lease that is out.
		cur.send(t, "acquire j1 %s", check)
		leases := waitChildren(t, admin, dir+"/leases", n+1, cur.inbox("j1"))
		holders, err := g0.(*leaseHolder).s.Holders(ctx)
		must(t, "Holders", err)
		newest := slices.MaxFunc(leases, func(a, b string) int { return strings.Compare(a[len(a)-10:], b[len(b)-10:]) })
		if len(holders) != n || slices.Contains(holders, dir+"/leases/"+newest) {
			t.Fatalf("Holders = %v; want the %d oldest of %v, not the waiting %s", holders, n, leases, newest)
		}
		g2 := lockstepLock(t, "semaphore", dir, n, "g2")
		got := lockAsync(ctx, admin, g2, check, false)
		waitChildren(t, admin, dir+"/locks", 2, cur.inbox("j1")) // g2 queues at the gate behind j1
		cur.notYet(t, "j1", "three leases are out")

		must(t, "leave", leave(admin, check, false))
		must(t, "lockstep release g0", g0.Unlock(ctx))
		cur.expect(t, "j1", "acquired")
		waitChildren(t, admin, dir+"/locks", 1, nil) // j1 left the gate; g2 holds it, waiting for a lease
		notYet(t, "lockstep's g2 took a fourth lease", got)

		cur.send(t, "release j0 %s", check)
		cur.expect(t, "j0", "released")
		within(t, "lockstep lease g2 after Curator's j0 returned its lease", got)

		r := readCheck(t, admin, check)
		if r.Max != n || r.InsideGo != 2 || r.InsideJava != 1 || r.Together < 1 || r.Entries != 5 {
			t.Fatalf("check: %v; want at most %d inside, reached, 2 Go and 1 Java inside now, 5 entries", r, n)
		}
		must(t, "leave", leave(admin, check, false))
		must(t, "lockstep release g1", g1.Unlock(ctx))
		must(t, "leave", leave(admin, check, false))
		must(t, "lockstep release g2", g2.Unlock(ctx))
		cur.send(t, "release j1 %s", check)
		cur.expect(t, "j1", "released")
		t.Logf("check: %v", readCheck(t, admin, check))
	})

	t.Run("three Curator clients and three lockstep holders, six rounds each: never more than three inside", func(t *testing.T) {
		const k = 6
		dir := dir + "-rounds" // its own queue: a failure above leaves nobody in it
		check := newCheck(t, admin, root+"/check-rounds")
		java := ids("jr", 3)
		for _, id := range java {
			cur.open(t, id, "semaphore", dir, n)
		}
		start := time.Now()
		cur.rounds(t, java, k, "-", check) // no counter: three holders may share
		gos := ids("gr", 3)
		done := goContenders(t, gos, "semaphore", dir, n, k, false, "", check)
		for _, id := range gos {
			within(t, "lockstep holder "+id, done)
		}
		cur.finished(t, java)
		r := readCheck(t, admin, check)
		t.Logf("%d leases in %v; check: %v", 6*k, time.Since(start).Round(time.Millisecond), r)
		if r.Max > n || r.Entries != 6*k || r.InsideGo+r.InsideJava != 0 {
			t.Fatalf("check: %v; want at most %d inside, %d entries, none inside", r, n, 6*k)
		}
	})
}
