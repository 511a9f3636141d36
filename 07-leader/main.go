// Command 07-leader shows leader election: -candidates candidates, each
// with its own ZooKeeper session, campaign under -path. Whoever leads
// processes jobs, stamped with its term, the fencing token ("candidate-1
// (token 1) processed job 3"); the others wait, each behind the candidate
// just before it.
//
// After -kill-after the demo kills the leader the hard way: its link to
// ZooKeeper goes silent (its own link is cut) and its connection is closed
// without a goodbye reaching the server, as when a machine dies. Nobody
// deletes its node: ZooKeeper must notice the silence and EXPIRE the session,
// which takes the session timeout the server granted (-session asks for
// one; a stock server grants at least 4 s). Then the next candidate leads;
// the demo ends once it has processed two jobs, and prints how long the
// handover took.
//
//	go run ./07-leader -candidates 3 -kill-after 1s
//	go run ./07-leader -kill-after 0 -duration 5s   # nobody is killed
//	go run ./07-leader -tui                         # the visualizer on this chapter
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
)

var (
	candidates          int
	job                 time.Duration
	killAfter, duration time.Duration
	verbose             bool
)

func main() {
	demo.MainProgram(demo.Program{
		Name: "07-leader", Path: "election", PathUsage: "election directory",
		Session: 2 * time.Second,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&candidates, "candidates", 3, "number of candidates, each with its own session")
			fs.DurationVar(&job, "job", 500*time.Millisecond, "time the leader spends on each job")
			fs.DurationVar(&killAfter, "kill-after", time.Second, "kill the leader this long after it was elected (0: never)")
			fs.DurationVar(&duration, "duration", 0, "how long the demo runs (default: until the next leader has done 2 jobs; 5s with -kill-after 0)")
			fs.BoolVar(&verbose, "verbose", false, "print every request, watch and notification too")
		},
		Check: func() error {
			if candidates < 1 || job <= 0 || duration < 0 || killAfter < 0 {
				return errors.New("want -candidates ≥ 1, a positive -job, and -duration and -kill-after ≥ 0")
			}
			return nil
		},
		TUI: true,
		TUIArgs: func(set map[string]bool) []string {
			if set["candidates"] {
				return []string{"-workers", strconv.Itoa(candidates)}
			}
			return nil
		},
		Run: run,
	})
}

func run(ctx context.Context, env *demo.Env) error {
	granted := env.Granted(ctx)
	fmt.Fprintf(env.Out, "%d candidates campaign under %s (session timeout: asked %v, granted %v)\n",
		candidates, env.Path, env.Session, granted)

	// The demo ends after -duration if given; else once the next leader has
	// done two jobs, which takes about the granted session timeout after
	// the kill — with a generous bound, in case nobody takes over.
	end := duration
	switch {
	case end == 0 && killAfter == 0:
		end = 5 * time.Second
	case end == 0:
		end = killAfter + 3*granted + 10*job + 30*time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, end)
	defer cancel()
	s := &story{tl: demo.NewTimeline(env.Out), candidates: candidates, finished: cancel, stopWhenServed: duration == 0}
	if !verbose {
		s.tl.Show = demo.Milestone
	}

	var wg sync.WaitGroup
	var cands []*candidate
	for i := 1; i <= candidates; i++ {
		cand, err := newCandidate(ctx, env, fmt.Sprintf("candidate-%d", i), s)
		if err != nil {
			return err
		}
		cands = append(cands, cand)
		wg.Go(func() { cand.run(ctx) })
	}
	if killAfter > 0 {
		go s.killLeader(ctx, cands)
	}
	wg.Wait()
	s.summary(granted)
	return nil
}

// candidate is one process of the demo: a session over its own link (so
// the demo can silence it alone) and an Election on it. Both change when
// the server ends the session under a candidate the demo did not kill: it
// opens the next session over the same link, and campaigns again.
type candidate struct {
	name string
	env  *demo.Env
	link *zkproxy.Link
	s    *story

	mu     sync.Mutex // guards the three below
	sess   *seqlock.Session
	e      *leader.Election
	killed bool
}

func newCandidate(ctx context.Context, env *demo.Env, name string, s *story) (*candidate, error) {
	sess, link, err := demo.DialCuttable(ctx, env, seqlock.NewSession)
	if err != nil {
		return nil, err
	}
	c := &candidate{name: name, env: env, link: link, s: s}
	e, err := c.elect(sess)
	if err != nil {
		return nil, err
	}
	c.sess, c.e = sess, e
	return c, nil
}

// elect is the candidate's Election on sess.
func (c *candidate) elect(sess *seqlock.Session) (*leader.Election, error) {
	return leader.New(sess, c.env.Path, seqlock.WithObserver(event.Observer(c.s.observe).WithOwner(c.name)))
}

// election is the candidate's Election now, and its session.
func (c *candidate) election() (*leader.Election, *seqlock.Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.e, c.sess
}

// run campaigns, works while it leads, and campaigns again if it loses.
// A session is one ZooKeeper session: when the server ends it (and the
// demo did not kill the candidate), the candidate opens the next one, as
// an etcd program does when its session's Done fires, and campaigns on it.
func (c *candidate) run(ctx context.Context) {
	for ctx.Err() == nil && !c.isKilled() {
		e, sess := c.election()
		if err := e.Campaign(ctx, c.name); err != nil {
			if ctx.Err() != nil || c.isKilled() {
				return
			}
			if demo.Ended(sess) && c.renew(ctx, err) {
				continue
			}
			c.s.tl.Say(c.name, "campaign failed: %v", err)
			return
		}
		tick := time.NewTicker(job)
		for n := 1; ; n++ {
			select {
			case <-tick.C:
				if c.isKilled() {
					continue // a dead process does no work
				}
				c.s.tl.Say(c.name, "(token %d) processed job %d", e.Token(), n)
				c.s.served(c.name, n)
				continue
			case <-e.Lost(): // lost: campaign again (unless dead), on a new session if it ended
				if demo.Ended(sess) && !c.isKilled() && !c.renew(ctx, seqlock.ErrSessionExpired) {
					tick.Stop()
					return
				}
			case <-ctx.Done():
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				e.Resign(rctx)
				cancel()
			}
			break
		}
		tick.Stop()
	}
}

// renew opens the candidate's next session, over its link, and an
// Election on it, after its session ended with why; false if it could not
// or the candidate was killed meanwhile.
func (c *candidate) renew(ctx context.Context, why error) bool {
	sess, err := demo.DialOver(ctx, c.env, c.link, seqlock.NewSession)
	if err != nil {
		c.s.tl.Say(c.name, "lost its session (%v) and could not open another: %v", why, err)
		return false
	}
	e, err := c.elect(sess)
	if err != nil {
		sess.Close()
		c.s.tl.Say(c.name, "lost its session (%v) and could not campaign on a new one: %v", why, err)
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killed {
		sess.Close()
		return false
	}
	c.sess, c.e = sess, e
	c.s.tl.Say(c.name, "lost its session (%v); it opens a new one and campaigns again", why)
	return true
}

// kill silences the candidate's link, then closes its connection: the
// close request is swallowed, so the server never hears the goodbye.
func (c *candidate) kill() {
	c.mu.Lock()
	c.killed = true
	sess := c.sess
	c.mu.Unlock()
	c.link.Cut()
	sess.Close()
}

func (c *candidate) isKilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// story follows the election: who leads, whom the demo killed, who took
// over and when; it ends the demo once the successor has done two jobs.
type story struct {
	tl             *demo.Timeline
	candidates     int
	finished       func()
	stopWhenServed bool

	mu       sync.Mutex
	leader   string
	elected  chan struct{} // closed at each election, then replaced
	killedAt time.Time
	victim   string
	handover time.Duration
	next     string
}

func (s *story) observe(e event.Event) {
	s.tl.Observe(e)
	if e.Kind != event.Acquired {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leader = e.Owner
	if !s.killedAt.IsZero() && s.next == "" && e.Owner != s.victim {
		s.handover, s.next = e.Time.Sub(s.killedAt), e.Owner
	}
	if s.elected != nil {
		close(s.elected)
		s.elected = nil
	}
}

// served is called after each job; the successor's second job ends the demo.
func (s *story) served(who string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopWhenServed && who == s.next && n == 2 {
		s.finished()
	}
}

// killLeader waits until someone leads, lets it work for a while, and kills it.
func (s *story) killLeader(ctx context.Context, cands []*candidate) {
	s.mu.Lock()
	wait := make(chan struct{})
	if s.leader == "" {
		s.elected = wait
	} else {
		close(wait)
	}
	s.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return
	}
	select {
	case <-time.After(killAfter):
	case <-ctx.Done():
		return
	}
	s.mu.Lock()
	victim := s.leader
	s.victim, s.killedAt = victim, time.Now()
	s.mu.Unlock()
	for _, c := range cands {
		if c.name == victim {
			s.tl.Say(victim, "is KILLED: link cut, connection dropped; its session must expire")
			c.kill()
		}
	}
}

func (s *story) summary(granted time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.killedAt.IsZero():
		s.tl.Printf("no leader was killed\n")
	case s.next == "" && s.candidates < 2:
		s.tl.Printf("nobody took over from %s: with one candidate there is nobody to (try -candidates 3)\n", s.victim)
	case s.next == "":
		s.tl.Printf("nobody took over from %s before the end (-duration %v; the session timeout is %v)\n", s.victim, duration, granted)
	default:
		s.tl.Printf("handover: %s leads %v after %s was killed (session timeout %v)\n",
			s.next, s.handover.Round(time.Millisecond), s.victim, granted)
	}
}
