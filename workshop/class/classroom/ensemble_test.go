package classroom_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
	"github.com/lockstep-zk/lockstep/workshop/class/view"
)

// screen is the host's view model fed by the host's watch, as watch runs
// it, with a way for a learner to wait until it shows their write.
type screen struct {
	mu      sync.Mutex
	m       view.Model
	waiting map[string]expectation
}

type expectation struct {
	p     classroom.Progress
	sent  time.Time
	shown chan time.Duration // write → the model holds it
}

func (s *screen) apply(c classroom.Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, _ := s.m.Update(c)
	s.m = next.(view.Model)
	e, ok := s.waiting[c.Name]
	if !ok {
		return
	}
	if r, _ := s.m.Row(c.Name); r.Known && same(r.Progress, e.p) {
		delete(s.waiting, c.Name)
		e.shown <- time.Since(e.sent)
	}
}

// expect registers a write about to be sent; the channel says when the
// model shows it.
func (s *screen) expect(name string, p classroom.Progress) <-chan time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := expectation{p: p, sent: time.Now(), shown: make(chan time.Duration, 1)}
	s.waiting[name] = e
	return e.shown
}

func (s *screen) model() view.Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m
}

func same(a, b classroom.Progress) bool {
	return a.Chapter == b.Chapter && a.State == b.State && a.Mistake == b.Mistake && a.HintStage == b.HintStage &&
		a.ChapterStart.Equal(b.ChapterStart) && a.LastVerdict.Equal(b.LastVerdict)
}

// TestFortyLearnersOnAnEnsemble is the classroom at full size: 40
// learners, each with their own session and credentials, step through the
// nine chapters with real progress writes while the host's screen follows
// them through its watches; one ZooKeeper server is killed halfway.
func TestFortyLearnersOnAnEnsemble(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server ensemble and runs 40 learners (about 40 s): skipped in -short")
	}
	const learners, chapters = 40, 9
	e := zktest.StartEnsemble(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	c := class{root: "/lockstep-class", code: classroom.NewCode(), admin: classroom.NewAdminSecret()}
	h, err := classroom.OpenHost(ctx, e.Servers, c.root, c.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Lockdown(ctx, c.admin); err != nil {
		t.Fatal(err)
	}
	if err := h.Create(ctx, "forty", c.code, c.admin); err != nil {
		t.Fatal(err)
	}
	c.line = classroom.JoinLine{Servers: e.Servers, Root: c.root, Code: c.code}.String()

	s := &screen{m: view.New(c.line, view.English, time.Now(), nil), waiting: map[string]expectation{}}
	changes := make(chan classroom.Change, 256)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() { watched <- h.Watch(watchCtx, changes) }()
	applied := make(chan struct{})
	go func() {
		defer close(applied)
		for {
			select {
			case ch := <-changes:
				s.apply(ch)
			case <-watchCtx.Done():
				return
			}
		}
	}()
	defer func() {
		stopWatch()
		<-applied
		if err := <-watched; !errors.Is(err, context.Canceled) {
			t.Errorf("the host's watch ended with %v", err)
		}
	}()

	type sample struct {
		d         time.Duration
		afterKill bool
	}
	var (
		mu       sync.Mutex
		samples  []sample
		killed   = make(chan struct{})
		killOnce sync.Once
		final    = map[string]classroom.Progress{}
		members  []*classroom.Learner
	)
	total := learners * chapters * 3
	var wg sync.WaitGroup
	errs := make(chan error, learners)
	for i := range learners {
		name := fmt.Sprintf("learner-%02d", i+1)
		l, err := classroom.Join(ctx, c.line, name, classroom.FileSecrets(path.Join(t.TempDir(), "secrets.json")))
		if err != nil {
			t.Fatalf("join as %s: %v", name, err)
		}
		defer l.Close()
		members = append(members, l)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 34))
			for ch := 1; ch <= chapters; ch++ {
				start := time.Now().UTC()
				p := classroom.Progress{Chapter: fmt.Sprintf("%02d", ch), State: classroom.Untouched, ChapterStart: start}
				for _, step := range []classroom.State{classroom.Untouched, classroom.Failing, classroom.Passing} {
					p.State = step
					if step != classroom.Untouched {
						p.LastVerdict = time.Now().UTC()
					}
					if step == classroom.Failing {
						p.Mistake, p.HintStage = "the herd", 1
					} else {
						p.Mistake = ""
					}
					shown := s.expect(name, p)
					if err := l.Report(ctx, p); err != nil {
						errs <- fmt.Errorf("%s reports %s %s: %w", name, p.Chapter, p.State, err)
						return
					}
					select {
					case d := <-shown:
						mu.Lock()
						samples = append(samples, sample{d, isClosed(killed)})
						n := len(samples)
						final[name] = p
						mu.Unlock()
						if n == total/2 {
							killOnce.Do(func() { go killLeader(t, e, killed) })
						}
					case <-time.After(10 * time.Second):
						errs <- fmt.Errorf("%s's write (%s %s) not on the host's screen after 10 s", name, p.Chapter, p.State)
						return
					}
					time.Sleep(time.Duration(100+r.IntN(200)) * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	if !isClosed(killed) {
		t.Fatal("no server was killed: the run ended before half its writes")
	}

	// Nothing lost: the screen and ZooKeeper hold every learner's last
	// write, and every learner is still online.
	m := s.model()
	for _, l := range members {
		want := final[l.Name()]
		if r, ok := m.Row(l.Name()); !ok || !r.Online || !same(r.Progress, want) {
			t.Errorf("%s on the screen: %+v (online %v), want %+v", l.Name(), r.Progress, r.Online, want)
		}
		if got, err := l.Progress(ctx); err != nil || !same(got, want) {
			t.Errorf("%s in ZooKeeper: %+v, %v; want %+v", l.Name(), got, err, want)
		}
	}
	var calm, all []time.Duration
	for _, x := range samples {
		all = append(all, x.d)
		if !x.afterKill {
			calm = append(calm, x.d)
		}
	}
	if len(all) != total {
		t.Fatalf("%d writes measured, want %d", len(all), total)
	}
	p50, p99, worst := percentiles(calm)
	t.Logf("write → screen, before the kill: %d writes, p50 %v, p99 %v, max %v", len(calm), p50, p99, worst)
	if p99 > time.Second {
		t.Errorf("before the kill, p99 of write → screen is %v, want ≤ 1 s", p99)
	}
	p50, p99, worst = percentiles(all)
	t.Logf("write → screen, whole run with a server killed halfway: %d writes, p50 %v, p99 %v, max %v", len(all), p50, p99, worst)
	if p99 > 3*time.Second {
		t.Errorf("with a server killed, p99 of write → screen is %v, want ≤ 3 s", p99)
	}

	// The class tree is the only place a learner writes: the root and
	// ZooKeeper's own nodes refuse them after Lockdown.
	secret, _, _ := classroom.FileSecrets(path.Join(t.TempDir(), "none.json")).Secret(c.code, "x")
	conn := dialAs(t, e.Servers, "learner-01:"+secret, "class:"+c.code)
	for _, p := range []string{"/elsewhere", "/zookeeper/quota/mine"} {
		if _, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("a learner creates %s: %v, want zk.ErrNoAuth", p, err)
		}
	}
}

// killLeader kills the member that leads the ensemble, and closes killed.
func killLeader(t *testing.T, e interface {
	Leader(context.Context) (int, error)
	Stop(context.Context, int) error
}, killed chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	i, err := e.Leader(ctx)
	if err != nil {
		i = 0
	}
	if err := e.Stop(ctx, i); err != nil {
		t.Errorf("kill member %d: %v", i, err)
	}
	t.Logf("killed member %d (the leader: %v) at %s", i, err == nil, time.Now().Format("15:04:05.000"))
	close(killed)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func percentiles(ds []time.Duration) (p50, p99, worst time.Duration) {
	if len(ds) == 0 {
		return
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.50), at(0.99), s[len(s)-1]
}
