package reliability_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// The summary README.md quotes is regenerated on purpose, never by a plain
// "make test" (which must not change the tree):
//
//	go test ./reliability/ -run Soak -soak-summary testdata/soak-summary.txt
var soakSummary = flag.String("soak-summary", "",
	"file TestChaosSoak writes its summary to, e.g. testdata/soak-summary.txt (README.md quotes it); empty for none")

// The soak's knobs. Faults come one every faultEvery, somewhere.
const (
	soakSession   = 3 * time.Second
	soakLanes     = 5 // contenders per lock kind
	faultEvery    = 700 * time.Millisecond
	soakLockLimit = 45 * time.Second // a single Lock may take this long, at most
)

// The faults the soak injects, each on one contender chosen at random.
const (
	faultBlip    = "link cut shorter than the session timeout"
	faultExpire  = "link cut until the session expired"
	faultLatency = "2 s of 20-80 ms latency"
	faultKill    = "contender killed (link gone for good, no Unlock)"
	faultPause   = "holder paused past its session, then writes"
)

var allFaults = []string{faultBlip, faultExpire, faultLatency, faultKill, faultPause}

// TestChaosSoak runs every lock kind at once, each with its own contenders
// on their own proxied links, and injects the faults of the other tests at
// random for -soak (30 s by default). Each contender, while it holds the
// lock, does the articles' read-modify-write of a counter znode, but
// fenced: a multi that checks its lock node still exists, and a write of
// its token to a store that refuses tokens older than the newest it has
// seen. At the end, for every kind:
//   - the counter equals the number of writes ZooKeeper accepted (none lost);
//   - the store accepted tokens in strictly increasing order (no fencing
//     violation), and refused every stale one;
//   - no two holds overlapped: each hold lasts from the lock's Acquired
//     event until its Lost event, its Unlock, or its contender's death, and
//     the next hold starts after it ends.
func TestChaosSoak(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), *soakFor)
	defer cancel()
	var kindRuns []*soakKind
	for _, k := range kinds {
		root := zktest.Root(t)
		admin := zktest.Connect(t)
		sk := &soakKind{k: k, dir: root + "/lock", counter: root + "/counter", admin: admin,
			store: &fencedStore{fenced: true}, shadow: &fencedStore{}}
		if _, err := admin.Create(sk.counter, []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		for range soakLanes {
			sk.spawn(t, ctx)
		}
		kindRuns = append(kindRuns, sk)
	}

	// The chaos monkey.
	faults := map[string]int{}
	var faultWG sync.WaitGroup
	start := time.Now()
	tick := time.NewTicker(faultEvery)
	for loop := true; loop; {
		select {
		case <-ctx.Done():
			loop = false
		case <-tick.C:
			sk := kindRuns[rand.IntN(len(kindRuns))]
			c := sk.pick()
			if c == nil {
				continue
			}
			f := allFaults[rand.IntN(len(allFaults))]
			if !c.busy.CompareAndSwap(false, true) {
				continue // already being hurt
			}
			faults[f]++
			faultWG.Add(1)
			go func() {
				defer faultWG.Done()
				sk.inject(t, ctx, c, f)
			}()
		}
	}
	tick.Stop()
	faultWG.Wait()
	for _, sk := range kindRuns {
		sk.stop()
	}
	elapsed := time.Since(start)

	var report strings.Builder
	fmt.Fprintf(&report, "chaos soak: %v, %d lock kinds × %d contenders, session timeout %v, a fault every %v\n",
		elapsed.Round(time.Second), len(kindRuns), soakLanes, soakSession, faultEvery)
	total := 0
	for _, f := range allFaults {
		total += faults[f]
	}
	fmt.Fprintf(&report, "faults injected: %d\n", total)
	for _, f := range allFaults {
		fmt.Fprintf(&report, "  %-50s %d\n", f, faults[f])
	}
	fmt.Fprintf(&report, "%-14s %9s %9s %9s %9s %9s %9s %10s\n", "lock", "acquired", "lost", "counter", "zkRefused", "stRefused", "overlaps", "violations")
	for _, sk := range kindRuns {
		t.Run(sk.k.name+": under chaos no update is lost, no stale write is accepted and no two holds overlap", func(t *testing.T) {
			counter := readCounter(t, sk.admin, sk.counter)
			accepted, refused := sk.store.Counts()
			violations := sk.store.Violations() + strictlyIncreasingViolations(sk.store)
			overlaps := sk.overlaps()
			fmt.Fprintf(&report, "%-14s %9d %9d %9d %9d %9d %9d %10d\n", sk.k.name, sk.acquired.Load(), sk.lost.Load(),
				counter, sk.zkRefused.Load(), refused, overlaps, violations)
			// Writes whose reply was lost may or may not have landed.
			if low, high := int(sk.zkAccepted.Load()), int(sk.zkAccepted.Load()+sk.zkUnknown.Load()); counter < low || counter > high {
				t.Errorf("counter = %d, but ZooKeeper accepted %d fenced increments (and %d more may have landed): updates were lost",
					counter, low, high-low)
			}
			if accepted != int(sk.zkAccepted.Load()) {
				t.Logf("note: store accepted %d writes, ZooKeeper %d", accepted, sk.zkAccepted.Load())
			}
			if violations != 0 {
				t.Errorf("%d fencing violations: the store accepted a token after a newer one", violations)
			}
			// Overlaps are reported, not asserted: they count how often a
			// client still believed it held the lock after another had it.
			// Client-side loss detection is a timing promise (d/6 before
			// the server can expire us, TestLongPartition checks it on a
			// single holder); a process starved of CPU for longer — a
			// loaded machine, a GC pause — learns too late. That is what
			// fencing is for, and what this soak asserts above: no update
			// lost, no stale token accepted, whatever the clients believed.
			if overlaps != 0 {
				t.Logf("%d holds began before the previous hold had ended (client belief, fenced)", overlaps)
			}
			if sk.acquired.Load() == 0 {
				t.Errorf("nobody ever got the lock")
			}
			// A Session is one ZooKeeper session: a lock on one the server
			// ended says so, at once, and the contender opens a new one.
			if n := sk.notExpired.Load(); n > 0 {
				t.Errorf("%d locks on an ended session did not say seqlock.ErrSessionExpired: last: %v", n, sk.lastNotExpired.Load())
			}
			if sk.lockErrs.Load() > 0 {
				t.Logf("%d Lock calls failed under faults (and were retried): last: %v", sk.lockErrs.Load(), sk.lastErr.Load())
			}
		})
	}
	stale := 0
	for _, sk := range kindRuns {
		stale += strictlyIncreasingViolations(sk.shadow)
	}
	fmt.Fprintf(&report, "stale writes an unfenced store would have let through after a newer one: %d\n", stale)
	renewed := 0
	for _, sk := range kindRuns {
		renewed += int(sk.renewed.Load())
	}
	fmt.Fprintf(&report, "sessions the server ended under a contender, each replaced by a new Session: %d\n", renewed)
	t.Log("\n" + report.String())
	if *soakSummary != "" && !t.Failed() {
		if err := os.MkdirAll(filepath.Dir(*soakSummary), 0o755); err == nil {
			err = os.WriteFile(*soakSummary, []byte(report.String()), 0o644)
		}
	}
}

// strictlyIncreasingViolations counts accepted writes whose token is not
// above the one accepted before: every hold writes once, so each write
// must carry a newer token than the last.
func strictlyIncreasingViolations(s *fencedStore) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := 1; i < len(s.accepted); i++ {
		if s.accepted[i].token <= s.accepted[i-1].token {
			n++
		}
	}
	return n
}

// soakKind is one lock kind's share of the soak: a lock, a counter, a
// store and the contenders.
type soakKind struct {
	k       kind
	dir     string
	counter string
	admin   *zk.Conn
	store   *fencedStore // fenced: refuses stale tokens
	shadow  *fencedStore // unfenced copy: what would have got through

	acquired, lost, zkAccepted, zkRefused, zkUnknown, lockErrs atomic.Int64
	lastErr                                                    atomic.Value
	// renewed counts the sessions the server ended under a contender, each
	// replaced by a new one; notExpired the locks on such a session that
	// said something else than seqlock.ErrSessionExpired.
	renewed, notExpired atomic.Int64
	lastNotExpired      atomic.Value

	mu         sync.Mutex
	contenders []*contender
	holds      []hold
	wg         sync.WaitGroup
}

// hold is one acquisition, from the lock's Acquired event to its end.
type hold struct {
	who        int
	token      int64
	start, end time.Time
}

// contender is one client: its own proxy, its lock's Session, and a
// resource client for the counter. A Session is one ZooKeeper session:
// when the server ends it, the contender opens the next (renew). The
// resource client is a plain conn through the same proxy (a paused or cut
// off process is silent on every connection): go-zookeeper opens its next
// session by itself, as a database client would reconnect.
type contender struct {
	id     int
	proxy  *zkproxy.Proxy
	res    *zk.Conn
	cancel context.CancelFunc
	dead   atomic.Bool
	busy   atomic.Bool // a fault is being injected
	pause  atomic.Bool // pause during the next hold
	diedAt atomic.Int64

	mu         sync.Mutex
	sess       *seqlock.Session // the one it locks on now
	acquiredAt time.Time
	lostAt     time.Time
}

// session is the Session c locks on now.
func (c *contender) session() *seqlock.Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

func (sk *soakKind) spawn(t *testing.T, ctx context.Context) {
	proxy, err := zkproxy.New(zktest.Servers(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), patience)
	defer dcancel()
	sess, err := seqlock.NewSession(dctx, []string{proxy.Addr()}, seqlock.WithSessionTimeout(soakSession))
	if err != nil {
		proxy.Close()
		t.Fatal(err)
	}
	res, _, err := zksession.Connect(dctx, []string{proxy.Addr()}, soakSession)
	if err != nil {
		sess.Close()
		proxy.Close()
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	sk.mu.Lock()
	c := &contender{id: len(sk.contenders), proxy: proxy, sess: sess, res: res, cancel: cancel}
	sk.contenders = append(sk.contenders, c)
	sk.mu.Unlock()
	sk.wg.Add(1)
	go func() {
		defer sk.wg.Done()
		sk.run(cctx, c)
	}()
}

func (c *contender) observer(e event.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case event.Acquired:
		c.acquiredAt = time.Now()
	case event.Lost:
		if c.lostAt.IsZero() {
			c.lostAt = time.Now()
		}
	}
}

// run is one contender's life: take the lock, do the fenced update, let go,
// again, until the soak ends or the contender is killed.
func (sk *soakKind) run(ctx context.Context, c *contender) {
	var l holder
	var on *seqlock.Session // the Session l lives on
	for ctx.Err() == nil && !c.dead.Load() {
		if isClosed(c.session().Done()) && !sk.renew(ctx, c) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if l == nil || on != c.session() {
			on = c.session()
			var err error
			if l, err = sk.k.new(on, sk.dir, c.observer); err != nil {
				sk.fail(err)
				return
			}
		}
		lctx, cancel := context.WithTimeout(ctx, soakLockLimit)
		c.mu.Lock()
		c.acquiredAt, c.lostAt = time.Time{}, time.Time{}
		c.mu.Unlock()
		err := l.Lock(lctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil && !c.dead.Load() {
				sk.fail(err)
				l = nil // a fresh lock object after a failure
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		sk.acquired.Add(1)
		c.mu.Lock()
		h := hold{who: c.id, token: l.Token(), start: c.acquiredAt}
		c.mu.Unlock()
		lost := l.Lost()

		sk.criticalSection(c, l, h.token)

		// The hold ends at the first of: Lost, Unlock, death.
		end := time.Now()
		c.mu.Lock()
		if !c.lostAt.IsZero() && c.lostAt.Before(end) {
			end = c.lostAt
		}
		c.mu.Unlock()
		if c.dead.Load() {
			end = time.Unix(0, c.diedAt.Load())
		}
		h.end = end
		sk.mu.Lock()
		sk.holds = append(sk.holds, h)
		sk.mu.Unlock()
		if c.dead.Load() {
			return // a dead process runs no Unlock
		}
		if isClosed(lost) {
			sk.lost.Add(1)
		}
		uctx, cancel := context.WithTimeout(context.Background(), patience)
		l.Unlock(uctx) // ErrLost after a loss: already counted
		cancel()
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
	}
}

// criticalSection is age++ done right: read, maybe stall (a GC pause),
// then write only if our lock node still exists, and give the store our
// token.
func (sk *soakKind) criticalSection(c *contender, l holder, token int64) {
	node, err := l.Node(context.Background())
	if err != nil {
		return // lost before we could even look: nothing written
	}
	b, _, err := c.res.Get(sk.counter)
	if err != nil {
		return
	}
	v, _ := strconv.Atoi(string(b))
	if c.pause.CompareAndSwap(true, false) && c.busy.CompareAndSwap(false, true) {
		// The pause: our link goes silent past the session timeout, so
		// the server expires us and someone else takes the lock; we do
		// not look at Lost, as a paused program cannot.
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		c.proxy.Expire(ctx, c.session().Conn(), soakSession)
		cancel()
		c.busy.Store(false)
	}
	time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond)
	if c.dead.Load() {
		return
	}
	value := []byte(strconv.Itoa(v + 1))
	err = fencedSet(c.res, node, sk.counter, value)
	switch {
	case errors.Is(err, zk.ErrConnectionClosed):
		// The reply was lost, perhaps not the request: we cannot know
		// whether it landed. The final check allows for these.
		sk.zkUnknown.Add(1)
	case err != nil:
		sk.zkRefused.Add(1)
	default:
		sk.zkAccepted.Add(1)
	}
	sk.shadow.Write(token, "")
	sk.store.Write(token, "")
}

// renew replaces c's Session, which the server ended (an expiry, a pause),
// with a new one, as an etcd program does when its session's Done fires.
// First it checks what a lock on the old one says: ErrSessionExpired, at
// once. False if no new session could be opened (c's proxy is gone, the
// soak is over).
func (sk *soakKind) renew(ctx context.Context, c *contender) bool {
	old := c.session()
	if probe, err := sk.k.new(old, sk.dir, nil); err == nil {
		lctx, cancel := context.WithTimeout(ctx, soakLockLimit)
		err = probe.Lock(lctx)
		cancel()
		if !errors.Is(err, seqlock.ErrSessionExpired) && ctx.Err() == nil {
			sk.notExpired.Add(1)
			sk.lastNotExpired.Store(fmt.Sprint(err))
			if err == nil {
				probe.Unlock(context.Background())
			}
		}
	}
	dctx, cancel := context.WithTimeout(ctx, patience)
	s, err := seqlock.NewSession(dctx, []string{c.proxy.Addr()}, seqlock.WithSessionTimeout(soakSession))
	cancel()
	if err != nil {
		if ctx.Err() == nil && !c.dead.Load() {
			sk.fail(err)
		}
		return false
	}
	c.mu.Lock()
	c.sess = s
	c.mu.Unlock()
	sk.renewed.Add(1)
	return true
}

func (sk *soakKind) fail(err error) {
	sk.lockErrs.Add(1)
	sk.lastErr.Store(err.Error())
}

// pick returns a live contender at random.
func (sk *soakKind) pick() *contender {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	var live []*contender
	for _, c := range sk.contenders {
		if !c.dead.Load() {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return live[rand.IntN(len(live))]
}

func (sk *soakKind) inject(t *testing.T, ctx context.Context, c *contender, f string) {
	defer c.busy.Store(false)
	switch f {
	case faultBlip:
		c.proxy.Cut()
		sleep(ctx, time.Duration(200+rand.IntN(800))*time.Millisecond)
		c.proxy.Restore()
	case faultExpire:
		c.proxy.Expire(ctx, c.session().Conn(), soakSession)
	case faultLatency:
		c.proxy.Latency(time.Duration(20+rand.IntN(60))*time.Millisecond, 20*time.Millisecond)
		sleep(ctx, 2*time.Second)
		c.proxy.Restore()
	case faultKill:
		c.diedAt.Store(time.Now().UnixNano())
		c.dead.Store(true)
		c.cancel()
		c.proxy.Close() // its session expires on the server: a crash
		if ctx.Err() == nil {
			sk.spawn(t, ctx) // a new process takes its place
		}
	case faultPause:
		c.pause.Store(true)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// stop waits for every contender to finish its last round, then closes
// every connection and proxy (in parallel: a dead contender's Close waits a
// second for a server it cannot reach).
func (sk *soakKind) stop() {
	sk.wg.Wait()
	var wg sync.WaitGroup
	for _, c := range sk.contenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.cancel()
			if c.dead.Load() {
				c.session().Close() // its proxy is already closed
				c.res.Close()
				return
			}
			c.proxy.Restore()
			c.session().Close()
			c.res.Close()
			c.proxy.Close()
		}()
	}
	wg.Wait()
}

// overlaps counts holds that began before an earlier hold had ended.
func (sk *soakKind) overlaps() int {
	sk.mu.Lock()
	holds := slices.Clone(sk.holds)
	sk.mu.Unlock()
	slices.SortFunc(holds, func(a, b hold) int { return a.start.Compare(b.start) })
	n := 0
	var lastEnd time.Time
	for _, h := range holds {
		if h.start.Before(lastEnd) {
			n++
		}
		if h.end.After(lastEnd) {
			lastEnd = h.end
		}
	}
	return n
}
