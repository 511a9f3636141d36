package leader_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// sessionAsking is session asking for the session timeout d.
func sessionAsking(t testing.TB, d time.Duration) *seqlock.Session {
	t.Helper()
	return seqlocktest.Session(t, seqlock.WithSessionTimeout(d))
}

func newElection(t testing.TB, s *seqlock.Session, dir string, opts ...seqlock.Option) *leader.Election {
	t.Helper()
	// Each election's events go to the test's recording, for the replay
	// of a failure (an observer in opts comes after: give it through recorded).
	opts = append([]seqlock.Option{recorded(t)}, opts...)
	e, err := leader.New(s, dir, opts...)
	if err != nil {
		t.Fatalf("New(%q): %v", dir, err)
	}
	return e
}

// recorded is the observer option of a test's next candidate
// ("candidate-1", …): it records its events when LOCKSTEP_RECORD_DIR is set
// and passes them to also.
func recorded(t testing.TB, also ...event.Observer) seqlock.Option {
	return seqlock.WithObserver(zktest.ObserveNext(t, "candidate", also...))
}

// asLock lets the lock conformance suite drive an election: Campaign is
// Lock, Resign is Unlock, Token is the fencing token. Leadership is
// mutual exclusion, so every lock property must hold.
type asLock struct{ e *leader.Election }

func (l asLock) Lock(ctx context.Context) error   { return l.e.Campaign(ctx, "candidate") }
func (l asLock) Unlock(ctx context.Context) error { return l.e.Resign(ctx) }
func (l asLock) Token() int64                     { return l.e.Token() }
func (l asLock) Lost() <-chan struct{}            { return l.e.Lost() }

func TestElectionPassesTheLockConformanceSuite(t *testing.T) {
	locktest.Run(t, locktest.Impl{
		Open: func(tb testing.TB) (*zk.Conn, func(string, event.Observer) (locktest.Locker, error)) {
			s := seqlocktest.Session(tb)
			return s.Conn(), func(path string, obs event.Observer) (locktest.Locker, error) {
				e, err := leader.New(s, path, seqlock.WithObserver(obs))
				if err != nil {
					return nil, err
				}
				return asLock{e}, nil
			}
		},
		ErrNotHeld: leader.ErrNotHeld,
	})
}

// leadership is one leadership as its leader saw it: from the moment Campaign
// returned to the moment the leader knew it was over (just before it
// called Resign, or when its Election reported Lost).
type leadership struct {
	who        string
	token      int64
	start, end time.Time
}

// history collects every leadership of a test.
type history struct {
	mu    sync.Mutex
	terms []*leadership
}

func (h *history) begin(who string, token int64, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.terms = append(h.terms, &leadership{who: who, token: token, start: at})
}

// end closes who's open leadership at time at.
func (h *history) end(who string, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range slices.Backward(h.terms) {
		if l.who == who && l.end.IsZero() {
			l.end = at
			return
		}
	}
}

// observer records who's leadership from its Election's own events: it
// starts at Acquired (just before Campaign returns) and, if it is lost,
// ends at Lost. A Resign is recorded by the test, just before calling it.
func (h *history) observer(who string) event.Observer {
	return func(e event.Event) {
		switch e.Kind {
		case event.Acquired:
			h.begin(who, e.Token, e.Time)
		case event.Lost:
			h.end(who, e.Time)
		}
	}
}

// assertOneAtATime fails if two leaderships overlap or if tokens do not
// strictly increase from one leader to the next.
func (h *history) assertOneAtATime(t testing.TB) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	terms := slices.Clone(h.terms)
	sort.Slice(terms, func(i, j int) bool { return terms[i].start.Before(terms[j].start) })
	for i, l := range terms {
		if l.end.IsZero() && i != len(terms)-1 {
			t.Errorf("%s (token %d) never learned its leadership ended, yet %s led after it", l.who, l.token, terms[i+1].who)
		}
		if i == 0 {
			continue
		}
		prev := terms[i-1]
		if l.token <= prev.token {
			t.Errorf("token %d (%s) came after token %d (%s): tokens must increase", l.token, l.who, prev.token, prev.who)
		}
		if !prev.end.IsZero() && l.start.Before(prev.end) {
			t.Errorf("two leaders at once: %s (token %d) started %v before %s (token %d) knew it had ended",
				l.who, l.token, prev.end.Sub(l.start), prev.who, prev.token)
		}
	}
}

func TestExactlyOneLeaderAtAnyInstant(t *testing.T) {
	t.Run("candidates taking turns never lead at once and tokens increase", func(t *testing.T) {
		const candidates, rounds = 5, 4
		dir := zktest.Root(t) + "/election"
		h := &history{}
		var wg sync.WaitGroup
		errs := make(chan error, candidates)
		for i := range candidates {
			who := fmt.Sprintf("candidate-%d", i)
			e := newElection(t, seqlocktest.Session(t), dir, recorded(t, h.observer(who)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx := zktest.Context(t)
				for r := range rounds {
					if err := e.Campaign(ctx, who); err != nil {
						errs <- fmt.Errorf("%s round %d: %w", who, r, err)
						return
					}
					time.Sleep(2 * time.Millisecond) // the leader's work
					h.end(who, time.Now())
					if err := e.Resign(ctx); err != nil {
						errs <- fmt.Errorf("%s round %d: %w", who, r, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		h.assertOneAtATime(t)
		if got := len(h.terms); got != candidates*rounds {
			t.Errorf("%d leaderships, want %d", got, candidates*rounds)
		}
	})
}

// leadNow makes a candidate on its own conn and waits until it leads.
func leadNow(t testing.TB, s *seqlock.Session, dir, who string, opts ...seqlock.Option) *leader.Election {
	t.Helper()
	e := newElection(t, s, dir, opts...)
	if err := e.Campaign(zktest.Context(t), who); err != nil {
		t.Fatalf("%s: Campaign: %v", who, err)
	}
	return e
}

// campaignInBackground starts a Campaign and returns a channel that gets
// its result and the time it returned.
func campaignInBackground(ctx context.Context, e *leader.Election, who string) <-chan campaignResult {
	ch := make(chan campaignResult, 1)
	go func() {
		err := e.Campaign(ctx, who)
		ch <- campaignResult{err, time.Now()}
	}()
	return ch
}

type campaignResult struct {
	err error
	at  time.Time
}

// waitFor waits for a background Campaign to return; it must succeed.
func waitFor(t testing.TB, ch <-chan campaignResult, who string) time.Time {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("%s: Campaign: %v", who, r.err)
		}
		return r.at
	case <-time.After(zktest.Patience):
		t.Fatalf("%s never became leader", who)
		return time.Time{}
	}
}

// waitQueued waits until n candidate nodes are in dir.
func waitQueued(t testing.TB, conn *zk.Conn, dir string, n int) {
	t.Helper()
	zktest.Eventually(t, zktest.Patience, fmt.Sprintf("%d candidates queued in %s", n, dir), func() bool {
		children, _, err := conn.Children(dir)
		return err == nil && len(children) == n
	})
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestFailoverWhenTheLeadersSessionExpires(t *testing.T) {
	// A leader whose link goes silent steps down by itself (Lost) before the
	// server expires its session, so its successor can never start leading
	// while it still believes it leads. The lock reads the session timeout
	// the server granted its conn: no option is needed.
	const sessionTimeout = 2 * time.Second
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	h := &history{}
	tally := &event.Tally{}
	oldConnS, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
	oldConn := oldConnS.Conn()
	old := leadNow(t, oldConnS, dir, "old", recorded(t, event.Tee(h.observer("old"), tally.Observe)))
	oldToken, lost := old.Token(), old.Lost()

	next := newElection(t, sessionAsking(t, sessionTimeout), dir, recorded(t, h.observer("next")))
	won := campaignInBackground(ctx, next, "next")
	admin := zktest.Connect(t)
	waitQueued(t, admin, dir, 2)

	cut := time.Now()
	if err := proxy.Expire(ctx, oldConn, sessionTimeout); err != nil {
		t.Fatal(err)
	}
	at := waitFor(t, won, "next")

	t.Run("the old leader's Lost closes and it reports Lost once", func(t *testing.T) {
		if !isClosed(lost) {
			t.Fatal("Lost is still open after the session expired")
		}
		// The observer hears of the loss from a goroutine of its own,
		// just after Lost closes.
		zktest.Eventually(t, zktest.Patience, "no Lost event after Lost closed", func() bool { return tally.Count(event.Lost) > 0 })
		if n := tally.Count(event.Lost); n != 1 {
			t.Errorf("%d Lost events, want 1", n)
		}
		if err := old.Campaign(ctx, "old"); !errors.Is(err, leader.ErrAlreadyHeld) {
			t.Errorf("Campaign after losing, before Resign = %v, want ErrAlreadyHeld", err)
		}
		if err := old.Resign(ctx); !errors.Is(err, leader.ErrLost) {
			t.Errorf("Resign after losing = %v, want ErrLost", err)
		}
		if old.Token() != 0 {
			t.Errorf("old.Token() = %d after Resign, want 0", old.Token())
		}
	})
	t.Run("the next candidate leads with a larger token", func(t *testing.T) {
		if next.Token() <= oldToken {
			t.Errorf("next token %d, old token %d", next.Token(), oldToken)
		}
		l, err := next.Leader(ctx)
		if err != nil || l.Value != "next" || l.Node != next.Node() || l.Token < next.Token() {
			t.Errorf("Leader() = %+v, %v; want next (%s), token at least %d", l, err, next.Node(), next.Token())
		}
	})
	t.Run("the old leader stepped down before its successor started", func(t *testing.T) {
		h.assertOneAtATime(t)
	})
	h.mu.Lock()
	t.Logf("link cut → old leader stepped down after %v; successor led after %v (session timeout %v)",
		h.terms[0].end.Sub(cut).Round(time.Millisecond), at.Sub(cut).Round(time.Millisecond), sessionTimeout)
	h.mu.Unlock()
	h.end("next", time.Now())
	if err := next.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCutOffLeaderWithoutSessionTimeoutStillBelievesItLeads is this
// chapter's flaw, measured: with the disconnection check turned off
// (WithoutDisconnectCheck()), a leader cut off from ZooKeeper hears nothing —
// no event reaches it — while the server expires its session and elects a
// successor. It finds out only when the link comes back. Until then two
// processes believe they lead; only a fencing token checked by the
// resource can tell them apart. The second half is the fix: with the
// check on (the default), the same cut makes the leader step down before
// its successor leads.
func TestCutOffLeaderWithoutSessionTimeoutStillBelievesItLeads(t *testing.T) {
	const sessionTimeout = 1500 * time.Millisecond
	t.Run("without the check the cut-off leader still believes it leads after its successor is elected", func(t *testing.T) {
		lostAt, elected := cutTheLeader(t, sessionTimeout, seqlock.WithoutDisconnectCheck())
		if !lostAt.IsZero() {
			t.Fatalf("the cut-off leader learned it lost %v before its successor was elected: the flaw is gone?",
				elected.Sub(lostAt).Round(time.Millisecond))
		}
	})
	t.Run("with the check (the default) it steps down before its successor leads", func(t *testing.T) {
		lostAt, elected := cutTheLeader(t, sessionTimeout)
		if lostAt.IsZero() || !lostAt.Before(elected) {
			t.Fatalf("the leader stepped down at %v, its successor led at %v", lostAt, elected)
		}
		t.Logf("the leader stepped down %v before its successor led", elected.Sub(lostAt).Round(time.Millisecond))
	})
}

// cutTheLeader elects "old" (with opts) on a conn through a proxy, queues
// "next" behind it, cuts old's link and waits until next leads. It returns
// when old's Lost closed, if it did before next led (zero otherwise), and
// when next led. Then it restores the link: old must learn it lost by then.
func cutTheLeader(t *testing.T, sessionTimeout time.Duration, opts ...seqlock.Option) (lostAt, elected time.Time) {
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	oldConnS, proxy := seqlocktest.SessionViaProxy(t, sessionTimeout)
	oldConn := oldConnS.Conn()
	h := &history{} // old's Lost event, stamped when the core declared the loss
	old := leadNow(t, oldConnS, dir, "old", append(opts, recorded(t, h.observer("old")))...)
	lost := old.Lost()
	next := newElection(t, sessionAsking(t, sessionTimeout), dir)
	won := campaignInBackground(ctx, next, "next")
	waitQueued(t, zktest.Connect(t), dir, 2)

	cut := time.Now()
	if err := proxy.Cut(); err != nil {
		t.Fatal(err)
	}
	elected = waitFor(t, won, "next")
	h.mu.Lock()
	lostAt = h.terms[0].end
	h.mu.Unlock()
	t.Logf("successor elected %v after the cut (session timeout %v; token %d, the old leader's %d); the old leader's Lost closed by then: %v",
		elected.Sub(cut).Round(time.Millisecond), zktest.SessionTimeout(t, oldConn), next.Token(), old.Token(), !lostAt.IsZero())

	proxy.Restore()
	select {
	case <-lost:
	case <-time.After(zktest.Patience):
		t.Fatal("the old leader never learned it lost, even after the link came back")
	}
	if lostAt.IsZero() {
		t.Logf("the old leader learned it had lost %v after its successor was elected, and only because the link came back (at once, in this test)",
			time.Since(elected).Round(time.Millisecond))
	}
	if err := old.Resign(ctx); !errors.Is(err, leader.ErrLost) {
		t.Errorf("the old leader's Resign = %v, want ErrLost", err)
	}
	if err := next.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	return lostAt, elected
}

func TestResignHandsOverAtOnce(t *testing.T) {
	// Long sessions: if a handover waited for any timeout, it would show.
	const sessionTimeout = 10 * time.Second
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	first := leadNow(t, sessionAsking(t, sessionTimeout), dir, "first")
	tallies := make([]*event.Tally, 3)
	var results []<-chan campaignResult
	var waiters []*leader.Election
	for i := range tallies {
		tallies[i] = &event.Tally{}
		w := newElection(t, sessionAsking(t, sessionTimeout), dir, recorded(t, tallies[i].Observe))
		waiters = append(waiters, w)
		results = append(results, campaignInBackground(ctx, w, fmt.Sprintf("waiter-%d", i)))
		waitQueued(t, zktest.Connect(t), dir, i+2) // join in order
	}
	zktest.Eventually(t, zktest.Patience, "not every waiter reported event.Waiting", func() bool {
		for _, tl := range tallies {
			if tl.Count(event.Waiting) == 0 {
				return false
			}
		}
		return true
	})

	start := time.Now()
	if err := first.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	at := waitFor(t, results[0], "waiter-0")
	handover := at.Sub(start)
	t.Logf("handover after Resign: %v (session timeout %v)", handover.Round(time.Millisecond), sessionTimeout)

	t.Run("the next candidate leads well within the session timeout", func(t *testing.T) {
		if handover > sessionTimeout/2 {
			t.Errorf("handover took %v: Resign must not wait for a timeout", handover)
		}
	})
	t.Run("only the next candidate is woken", func(t *testing.T) {
		for i, tl := range tallies {
			want := 0
			if i == 0 {
				want = 1
			}
			if n := tl.Count(event.Notified); n != want {
				t.Errorf("waiter-%d got %d notifications, want %d", i, n, want)
			}
		}
	})
	// Hand over down the line so every Campaign returns.
	for i, w := range waiters {
		if i > 0 {
			waitFor(t, results[i], fmt.Sprintf("waiter-%d", i))
		}
		if err := w.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// reportWithin bounds how long an observer may take to report a leader
// that already leads: a notification already on its way, one listing and
// one read, milliseconds; 3 s leaves room for a loaded machine, and an
// observer that set no watch is named within seconds, not at the test's
// patience.
const reportWithin = 3 * time.Second

// reportAfterTheReply bounds the time from the reply to lookup's listing
// being in to lookup's next step (a WatchSet, or the exists request for a
// directory that does not exist): no request in between, only the
// scheduler; 500 ms leaves room for a loaded machine. (The test's round
// trip that shows the reply is in starts once lookup has emitted its
// Request event, and lookup sends the listing right after that event:
// were the round trip to overtake it, the listing's reply would still be
// due within the same 500 ms.)
const reportAfterTheReply = 500 * time.Millisecond

// A candidate's node name starts with a random UUID (the protected prefix,
// as Curator's LeaderLatch names its nodes), so in name order the queue is
// in no order at all: only the sequence number says who joined first. Here
// a node named as a LeaderLatch would name it joins after alpha, with a
// UUID that sorts before any random one. Alpha, who joined first, still
// leads, and Leader and Observe must say so. (With random names only, a
// lookup sorted by name would pass whenever the UUIDs happen to sort in
// joining order.)
func TestTheLeaderIsTheLowestSequenceNumberNotTheLowestName(t *testing.T) {
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	alpha := leadNow(t, seqlocktest.Session(t), dir, "alpha")
	admin := zktest.Connect(t)
	latecomer, err := admin.Create(dir+"/_c_00000000-0000-4000-8000-000000000000-latch-", []byte("latecomer"),
		zk.FlagEphemeral|zk.FlagSequence, zktest.ACL(admin))
	if err != nil {
		t.Fatal(err)
	}
	if path.Base(latecomer) >= path.Base(alpha.Node()) {
		t.Fatalf("the latecomer's name %s does not sort before alpha's %s", path.Base(latecomer), path.Base(alpha.Node()))
	}
	asker := newElection(t, seqlocktest.Session(t), dir)
	const why = "the leader is the lowest sequence number (who joined first); sorted by name, a random UUID decides"

	t.Run("Leader names the candidate that joined first", func(t *testing.T) {
		l, err := asker.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if l.Value != "alpha" {
			t.Fatalf("Leader = %s (%s), want alpha (%s): %s", l.Value, path.Base(l.Node), path.Base(alpha.Node()), why)
		}
	})
	t.Run("Observe reports the candidate that joined first", func(t *testing.T) {
		octx, stop := context.WithCancel(ctx)
		defer stop()
		select {
		case l, ok := <-asker.Observe(octx):
			if !ok {
				t.Fatal("Observe's channel closed before it reported alpha")
			}
			if l.Value != "alpha" {
				t.Fatalf("Observe reported %s (%s) first, want alpha (%s): %s", l.Value, path.Base(l.Node), path.Base(alpha.Node()), why)
			}
		case <-time.After(reportWithin):
			t.Fatalf("Observe reported nothing within %v while alpha leads", reportWithin)
		}
	})
	if err := alpha.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestObserversSeeEveryChangeInOrder(t *testing.T) {
	dir := zktest.Root(t) + "/election" // does not exist yet: Observe must wait for it
	ctx := zktest.Context(t)
	octx, stop := context.WithCancel(ctx)
	defer stop()
	ws := seqlocktest.Session(t)
	var its event.Tally
	watcher := newElection(t, ws, dir, recorded(t, its.Observe))
	changes := watcher.Observe(octx)
	// The first evidence of an observer that sets no watch on a directory
	// that does not exist yet: it listed the directory, the listing's reply
	// is in (a round trip on its conn after the listing returned: replies
	// come in order), and it has neither reported a watch nor asked again
	// (the exists watch) within reportAfterTheReply. Nobody has joined
	// yet, so nothing can wake it later.
	var answered time.Time
	zktest.Until(t, zktest.Patience, "the observer to watch the election that does not exist yet (event.WatchSet)", func() (bool, string) {
		if its.Count(event.WatchSet) > 0 {
			return true, ""
		}
		if answered.IsZero() && its.Requests("children") > 0 {
			if _, err := ws.Conn().Sync("/"); err != nil {
				t.Fatalf("sync the observer's conn: %v", err)
			}
			answered = time.Now()
		}
		if !answered.IsZero() && its.Requests("") == 1 && time.Since(answered) > reportAfterTheReply {
			return false, fmt.Sprintf("the observer never reported a watch: it listed %s, which does not exist yet, had the reply %v ago, and neither set a watch for its creation (an exists watch) nor asked again: it would never see a leader", dir, time.Since(answered).Round(time.Millisecond))
		}
		return false, ""
	})

	names := []string{"alpha", "bravo", "charlie"}
	var elections []*leader.Election
	var results []<-chan campaignResult
	for i, who := range names {
		e := newElection(t, seqlocktest.Session(t), dir)
		elections = append(elections, e)
		results = append(results, campaignInBackground(ctx, e, who))
		waitQueued(t, zktest.Connect(t), dir, i+1)
	}

	var seen []leader.Leadership
	for i, who := range names {
		waitFor(t, results[i], who)
		select {
		case l, ok := <-changes:
			if !ok {
				t.Fatalf("Observe's channel closed before it reported %s", who)
			}
			seen = append(seen, l)
			if l.Value != who {
				// Only who is in front now: the candidates joined in this
				// order, and each resigns only after it was reported.
				t.Fatalf("observed %s while %s leads (observed so far: %v): the leader is the lowest sequence number, whatever the names", l.Value, who, values(seen))
			}
		case <-time.After(reportWithin):
			// who leads already: the observer's watch should have fired
			// long ago. Fail now rather than at the test's patience.
			t.Fatalf("the observer did not report %s within %v of its leading: was a watch set on the directory (an exists watch while it did not exist)?", who, reportWithin)
		}
		if err := elections[i].Resign(ctx); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("each leader is reported once, in the order they led", func(t *testing.T) {
		if got := values(seen); !slices.Equal(got, names) {
			t.Errorf("observed %v, want %v", got, names)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i].Token <= seen[i-1].Token {
				t.Errorf("observed token %d after %d", seen[i].Token, seen[i-1].Token)
			}
		}
	})
	t.Run("the channel closes when the context ends", func(t *testing.T) {
		stop()
		deadline := time.After(zktest.Patience)
		for {
			select {
			case l, ok := <-changes:
				if !ok {
					return
				}
				t.Errorf("reported %+v after the last leader resigned", l)
			case <-deadline:
				t.Fatal("Observe's channel stayed open after its context ended")
			}
		}
	})
}

// values are the leaders' values, in order.
func values(ls []leader.Leadership) []string {
	var v []string
	for _, l := range ls {
		v = append(v, l.Value)
	}
	return v
}

func TestCampaignHonoursItsContext(t *testing.T) {
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	admin := zktest.Connect(t)
	holder := leadNow(t, seqlocktest.Session(t), dir, "holder")
	holderNodes := zktest.Tree(t, admin, dir)

	t.Run("a cancelled Campaign returns context.Canceled and leaves no node", func(t *testing.T) {
		tally := &event.Tally{}
		e := newElection(t, seqlocktest.Session(t), dir, recorded(t, tally.Observe))
		cctx, cancel := context.WithCancel(ctx)
		res := campaignInBackground(cctx, e, "quitter")
		zktest.Eventually(t, zktest.Patience, "the candidate waits", func() bool { return tally.Count(event.Waiting) > 0 })
		cancel()
		select {
		case r := <-res:
			if !errors.Is(r.err, context.Canceled) {
				t.Fatalf("Campaign = %v, want context.Canceled", r.err)
			}
		case <-time.After(zktest.Patience):
			t.Fatal("Campaign did not return after its context was cancelled")
		}
		if got := zktest.Tree(t, admin, dir); !slices.Equal(got, holderNodes) {
			t.Errorf("left in %s:\n  %s", dir, zktest.Describe(got))
		}
	})
	t.Run("a Campaign with a context already over sends nothing", func(t *testing.T) {
		tally := &event.Tally{}
		e := newElection(t, seqlocktest.Session(t), dir, recorded(t, tally.Observe))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := e.Campaign(cctx, "late"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Campaign = %v, want context.Canceled", err)
		}
		if n := tally.Requests(""); n != 0 {
			t.Errorf("%d requests sent", n)
		}
		if got := zktest.Tree(t, admin, dir); !slices.Equal(got, holderNodes) {
			t.Errorf("left in %s:\n  %s", dir, zktest.Describe(got))
		}
	})
	if err := holder.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestTheAPIRefusesMisuse(t *testing.T) {
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	e := leadNow(t, seqlocktest.Session(t), dir, "me")
	t.Run("Campaign while leading returns ErrAlreadyHeld", func(t *testing.T) {
		if err := e.Campaign(ctx, "me again"); !errors.Is(err, leader.ErrAlreadyHeld) {
			t.Fatalf("Campaign = %v, want ErrAlreadyHeld", err)
		}
	})
	t.Run("Campaign while campaigning returns ErrAlreadyHeld", func(t *testing.T) {
		tally := &event.Tally{}
		w := newElection(t, seqlocktest.Session(t), dir, recorded(t, tally.Observe))
		cctx, cancel := context.WithCancel(ctx)
		res := campaignInBackground(cctx, w, "waiter")
		zktest.Eventually(t, zktest.Patience, "the candidate waits", func() bool { return tally.Count(event.Waiting) > 0 })
		if err := w.Campaign(ctx, "waiter again"); !errors.Is(err, leader.ErrAlreadyHeld) {
			t.Errorf("Campaign = %v, want ErrAlreadyHeld", err)
		}
		cancel()
		if r := zktest.Await(t, res, "the first Campaign never returned after its context was cancelled"); !errors.Is(r.err, context.Canceled) {
			t.Errorf("the first Campaign = %v, want context.Canceled", r.err)
		}
	})
	t.Run("Lost is open while leading and stays open after Resign, which is no loss", func(t *testing.T) {
		lost := e.Lost()
		if lost == nil || isClosed(lost) {
			t.Fatal("Lost nil or closed while leading")
		}
		if err := e.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if isClosed(lost) {
			t.Fatal("Lost closed by Resign")
		}
		if e.Token() != 0 || e.Node() != "" {
			t.Errorf("after Resign: Token %d, Node %q; want 0 and \"\"", e.Token(), e.Node())
		}
	})
	t.Run("Resign when not leading returns ErrNotHeld", func(t *testing.T) {
		if err := e.Resign(ctx); !errors.Is(err, leader.ErrNotHeld) {
			t.Fatalf("Resign = %v, want ErrNotHeld", err)
		}
	})
	t.Run("Lost before any Campaign is nil, a channel that never fires", func(t *testing.T) {
		if lost := newElection(t, seqlocktest.Session(t), dir).Lost(); lost != nil {
			t.Fatal("Lost of a fresh Election is not nil")
		}
	})
}

func TestLeaderSaysWhoLeads(t *testing.T) {
	root := zktest.Root(t)
	dir := root + "/election"
	ctx := zktest.Context(t)
	var askerEvents event.Tally
	asker := newElection(t, seqlocktest.Session(t), dir, recorded(t, askerEvents.Observe))
	t.Cleanup(func() {
		if n := askerEvents.Count(event.WatchSet); n != 0 {
			t.Errorf("Leader set %d watches: a question needs none, and each would stay on the server until the directory changes", n)
		}
		// Three questions: no directory, then an empty one (one listing
		// each), and one with a leader (a listing and a get).
		if n := askerEvents.Requests("children"); n != 3 {
			t.Errorf("Leader listed the directory %d times in three questions, want 3 (one listing each, each one reported)", n)
		}
	})
	t.Run("no directory means no leader", func(t *testing.T) {
		if _, err := asker.Leader(ctx); !errors.Is(err, leader.ErrNoLeader) {
			t.Fatalf("Leader = %v, want ErrNoLeader", err)
		}
	})
	e := leadNow(t, seqlocktest.Session(t), dir, "host-a:8080")
	t.Run("the leader's value, node and token", func(t *testing.T) {
		l, err := asker.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Nobody came or went since e found itself first: same listing state.
		if l.Value != "host-a:8080" || l.Node != e.Node() || l.Token != e.Token() {
			t.Errorf("Leader = %+v, want host-a:8080 at %s, token %d", l, e.Node(), e.Token())
		}
	})
	if err := e.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("an empty directory means no leader", func(t *testing.T) {
		if _, err := asker.Leader(ctx); !errors.Is(err, leader.ErrNoLeader) {
			t.Fatalf("Leader = %v, want ErrNoLeader", err)
		}
	})
}

func TestALoneCandidateSendsThreeRequests(t *testing.T) {
	// create and children to lead; delete to resign — and one event line
	// for each, in this order. Leading costs no request and no watch: the
	// core watches the session's own state, not our node.
	dir := zktest.Root(t) + "/election"
	// Create the directory (persistent, so it is never reaped) and campaign
	// once, so we count the steady state.
	if _, err := zktest.Connect(t).Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	// One Session for both: it knows the directory by the time we count.
	s := seqlocktest.Session(t)
	if err := leadNow(t, s, dir, "warm-up").Resign(zktest.Context(t)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	obs := func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		line := e.Kind.String() + " " + string(e.Op)
		if e.Kind == event.Acquired && e.Token == 0 {
			line += " (no token)"
		}
		got = append(got, line)
	}
	e := leadNow(t, s, dir, "solo", recorded(t, obs))
	if err := e.Resign(zktest.Context(t)); err != nil {
		t.Fatal(err)
	}
	want := []string{"request create", "request children", "acquired ", "request delete", "released "}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("events:\n  %v\nwant\n  %v", got, want)
	}
}

// TestALeaderWhoLeavesBetweenTheListingAndTheReadIsNoError makes the moment
// happen: the asker lists the candidates, and just before it reads the
// lowest one's data, that candidate's node goes (the test's observer deletes
// it there, as a leader that resigns or dies at that instant). The asker must
// look again and name the next leader — under churn, a lookup without that
// second look makes Leader fail with "node does not exist" and Observe end.
func TestALeaderWhoLeavesBetweenTheListingAndTheReadIsNoError(t *testing.T) {
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	admin := zktest.Connect(t)
	alpha := leadNow(t, seqlocktest.Session(t), dir, "alpha")
	var betaEvents event.Tally
	beta := newElection(t, seqlocktest.Session(t), dir, recorded(t, betaEvents.Observe))
	betaDone := campaignInBackground(ctx, beta, "beta")
	waitUntilWaiting(t, &betaEvents, betaDone)

	var once sync.Once
	var deleted error
	leave := func(ev event.Event) {
		if ev.Kind == event.Request && ev.Op == "get" && ev.Node == alpha.Node() {
			once.Do(func() { deleted = admin.Delete(ev.Node, -1) })
		}
	}
	asker := newElection(t, seqlocktest.Session(t), dir, recorded(t, leave))
	l, err := asker.Leader(ctx)
	if deleted != nil {
		t.Fatalf("deleting alpha's node between the listing and the read: %v", deleted)
	}
	if err != nil {
		t.Fatalf("Leader = %v: the leader left between the listing and the read of its data, and lookup did not look again", err)
	}
	if l.Value != "beta" {
		t.Fatalf("Leader = %q, want beta: alpha left before its data was read", l.Value)
	}
	waitFor(t, betaDone, "beta")
}

// TestObserveWaitsOnItsWatch: an observer whose watch is set must wait for
// it to fire, not list the directory again on a timer — whether it found no
// leader (nobody has joined yet) or the same leader as before (a candidate
// joined behind it). Every listing after the first comes after a
// notification. Nobody leaves before the end, so every get succeeds and
// lookup never has to list again at once.
func TestObserveWaitsOnItsWatch(t *testing.T) {
	dir := zktest.Root(t) + "/election"
	ctx := zktest.Context(t)
	if _, err := zktest.Connect(t).Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var armed bool
	var polled string
	var seen event.Tally
	pace := func(e event.Event) {
		seen.Observe(e)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind == event.WatchSet:
			armed = true
		case e.Kind == event.Notified:
			armed = false
		case e.Kind == event.Request && e.Op == "children" && armed && polled == "":
			polled = e.Node
		}
	}
	var reported string
	report := func(who string, changes <-chan leader.Leadership) {
		t.Helper()
		select {
		case l := <-changes:
			if l.Value != who && l.Value == reported {
				t.Fatalf("observed %q again, want %s: Observe reports each leader once, and %s had been reported already", l.Value, who, reported)
			}
			if l.Value != who {
				t.Fatalf("observed %q, want %s", l.Value, who)
			}
			reported = l.Value
		case <-time.After(reportWithin):
			t.Fatalf("the observer did not report %s within %v of its leading", who, reportWithin)
		}
		mu.Lock()
		p := polled
		mu.Unlock()
		if p != "" {
			t.Fatalf("Observe listed %s again while its watch was set and had not fired: it polls instead of waiting on its watch", p)
		}
	}
	octx, stop := context.WithCancel(ctx)
	defer stop()
	obs := seqlocktest.Session(t)
	changes := newElection(t, obs, dir, recorded(t, pace)).Observe(octx)
	// The watch comes back with the listing (ChildrenW): once the listing
	// went out, a WatchSet that does not follow within reportWithin is
	// missing, and the test says so then, not after Patience. It says so
	// sooner once the listing's reply is in (a round trip on the
	// observer's conn after the listing went out: replies come in order):
	// lookup reports the watch right after it, with no request in between
	// (reportAfterTheReply).
	var listed, answered time.Time
	zktest.Until(t, zktest.Patience, "the observer to report the children watch it set on the empty election (event.WatchSet)", func() (bool, string) {
		if seen.Count(event.WatchSet) > 0 {
			return true, ""
		}
		if listed.IsZero() && seen.Requests("children") > 0 {
			listed = time.Now()
			if _, err := obs.Conn().Sync("/"); err != nil {
				t.Fatalf("sync the observer's conn: %v", err)
			}
			answered = time.Now()
		}
		if !answered.IsZero() && time.Since(answered) > reportAfterTheReply && seen.Count(event.WatchSet) == 0 {
			return false, fmt.Sprintf("it listed the election (request children, %d requests in all), had the reply %v ago, and reported no WatchSet within %v of it: a watch that is set is reported, e.emit(event.Event{Kind: event.WatchSet, …}), or nobody can tell a wait on a watch from a poll", seen.Requests(""), time.Since(answered).Round(time.Millisecond), reportAfterTheReply)
		}
		if !listed.IsZero() && time.Since(listed) > reportWithin {
			return false, fmt.Sprintf("it listed the election (request children, %d requests in all) and reported no WatchSet within %v: a watch that is set is reported, e.emit(event.Event{Kind: event.WatchSet, …}), or nobody can tell a wait on a watch from a poll", seen.Requests(""), reportWithin)
		}
		return false, ""
	})
	alpha := leadNow(t, seqlocktest.Session(t), dir, "alpha")
	report("alpha", changes)

	// bravo joins behind alpha: one notification, one listing, the same leader.
	bravo := campaignInBackground(ctx, newElection(t, seqlocktest.Session(t), dir), "bravo")
	zktest.Eventually(t, zktest.Patience, "the observer did not look again after bravo joined (no second get of the leader)", func() bool {
		return seen.Requests("get") >= 2
	})
	if err := alpha.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, bravo, "bravo")
	report("bravo", changes)
}

// eventStream hands an Election's events to the test in the order the
// Election emitted them. Whoever follows an Election through its observer
// knows what it did from these events alone: a timeline prints each one, and
// the visualizer counts each request and draws each watch on its node
// (visualizer/tui/fold.go). So which events come, and in what order, is part
// of what Observe promises. The test reads only the first few; a full
// buffer drops the rest rather than block the Election.
type eventStream chan event.Event

func newEventStream() eventStream { return make(eventStream, 256) }

func (s eventStream) observe(e event.Event) {
	select {
	case s <- e:
	default:
	}
}

// next is the next event, as "kind op node detail" without the empty
// fields ("request exists election", "notified election EventNodeCreated");
// the test fails if none comes within reportWithin of the one before.
func (s eventStream) next(t testing.TB, after string) string {
	t.Helper()
	select {
	case e := <-s:
		return strings.Join(slices.DeleteFunc([]string{e.Kind.String(), string(e.Op), path.Base(e.Node), e.Detail},
			func(f string) bool { return f == "" }), " ")
	case <-time.After(reportWithin):
		t.Fatalf("after %q, the observer emitted nothing within %v", after, reportWithin)
		return ""
	}
}

// expect reads the next events and fails at the first one that differs
// from want; why says what a difference means.
func (s eventStream) expect(t testing.TB, why string, want ...string) {
	t.Helper()
	after := "Observe"
	for _, w := range want {
		if got := s.next(t, after); got != w {
			t.Fatalf("after %q the observer emitted %q, want %q: %s", after, got, w, why)
		}
		after = w
	}
}

// An observer can start before anyone has campaigned: the election's
// directory does not exist yet, so there is nothing to set a children watch
// on. Observe then asks whether the directory exists and watches for its
// creation (an exists watch) — and says so, as it says every request and
// watch, for a timeline or the visualizer to show.
func TestObservingAnElectionThatDoesNotExistYet(t *testing.T) {
	t.Run("the observer asks whether the directory exists, says it watches for it, and reports the first leader", func(t *testing.T) {
		dir := zktest.Root(t) + "/election"
		ctx := zktest.Context(t)
		octx, stop := context.WithCancel(ctx)
		defer stop()
		events := newEventStream()
		changes := newElection(t, seqlocktest.Session(t), dir, recorded(t, events.observe)).Observe(octx)
		events.expect(t, "with no directory to list, the observer asks whether it exists and watches for its creation; without these two events, a timeline or the visualizer shows an observer that asked nothing and watches nothing",
			"request children election", "request exists election", "watch exists election")

		alpha := leadNow(t, seqlocktest.Session(t), dir, "alpha")
		events.expect(t, "the directory's creation fires the exists watch, and the observer lists it",
			"notified election "+zk.EventNodeCreated.String(), "request children election")
		select {
		case l, ok := <-changes:
			if !ok || l.Value != "alpha" {
				t.Fatalf("Observe reported %+v (open: %v), want alpha", l, ok)
			}
		case <-time.After(reportWithin):
			t.Fatalf("the observer did not report alpha within %v of its leading", reportWithin)
		}
		if err := alpha.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a directory created between the listing and the exists check is listed again, and its first leader reported", func(t *testing.T) {
		// The moment is made to happen: the test's observer creates the
		// directory when the Election says it is about to ask whether it
		// exists. The exists check then finds it. An exists watch on a
		// directory that exists fires only when the directory itself
		// changes, never when a candidate joins it: only a second listing
		// (and its children watch) lets the observer see the first leader.
		dir := zktest.Root(t) + "/election"
		ctx := zktest.Context(t)
		admin := zktest.Connect(t)
		octx, stop := context.WithCancel(ctx)
		defer stop()
		events := newEventStream()
		created := make(chan error, 1)
		var once sync.Once
		obs := func(e event.Event) {
			if e.Kind == event.Request && e.Op == "exists" {
				once.Do(func() {
					_, err := admin.Create(dir, nil, 0, zktest.ACL(admin))
					created <- err
				})
			}
			events.observe(e)
		}
		changes := newElection(t, seqlocktest.Session(t), dir, recorded(t, obs)).Observe(octx)
		select {
		case err := <-created:
			if err != nil {
				t.Fatalf("creating %s just before the exists check: %v", dir, err)
			}
		case <-time.After(reportWithin):
			t.Fatalf("the observer did not ask whether %s exists within %v of finding it missing", dir, reportWithin)
		}
		events.expect(t, "the exists check found the directory, so the observer must list it again (and watch its children): an exists watch on it would never fire for a candidate joining",
			"request children election", "request exists election", "request children election", "watch children election")

		alpha := leadNow(t, seqlocktest.Session(t), dir, "alpha")
		select {
		case l, ok := <-changes:
			if !ok || l.Value != "alpha" {
				t.Fatalf("Observe reported %+v (open: %v), want alpha", l, ok)
			}
		case <-time.After(reportWithin):
			t.Fatalf("the observer did not report alpha within %v of its leading: it watches the directory for its creation though it exists", reportWithin)
		}
		if err := alpha.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
