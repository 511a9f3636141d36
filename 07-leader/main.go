// Command 07-leader shows leader election: -candidates candidates, each
// with its own ZooKeeper session, campaign under -path. Whoever leads
// processes jobs ("candidate-1 (term 1) processed job 3"); the others wait,
// each behind the candidate just before it.
//
// After -kill-after the demo kills the leader the hard way: its link to
// ZooKeeper goes silent (its own proxy is cut) and its connection is closed
// without a goodbye reaching the server, as when a machine dies. Nobody
// deletes its node: ZooKeeper must notice the silence and EXPIRE the session,
// which takes the session timeout (-session). Then the next candidate leads;
// the demo prints how long the handover took. It ends after -duration.
//
//	go run ./07-leader -candidates 3 -kill-after 1s -duration 5s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

type config struct {
	servers, path       string
	candidates          int
	session, job        time.Duration
	killAfter, duration time.Duration
	verbose             bool
}

func main() {
	var c config
	flag.StringVar(&c.servers, "servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	flag.StringVar(&c.path, "path", "/lockstep/07-leader/election", "election directory")
	flag.IntVar(&c.candidates, "candidates", 3, "number of candidates, each with its own session")
	flag.DurationVar(&c.session, "session", 2*time.Second, "ZooKeeper session timeout")
	flag.DurationVar(&c.job, "job", 500*time.Millisecond, "time the leader spends on each job")
	flag.DurationVar(&c.killAfter, "kill-after", time.Second, "kill the leader this long after it was elected (0: never)")
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "how long the demo runs")
	flag.BoolVar(&c.verbose, "verbose", false, "print every request, watch and notification too")
	openTUI := flag.Bool("tui", false, "open the visualizer on this chapter")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run := func() error { return run(ctx, c, os.Stdout) }
	if *openTUI {
		run = func() error {
			return tui.Run(ctx, tui.Options{Chapter: "07", Servers: c.servers, Workers: c.candidates, Session: c.session})
		}
	}
	err := run()
	stop()
	demo.Exit(ctx, err)
}

func run(ctx context.Context, c config, out io.Writer) error {
	if c.candidates < 1 || c.session <= 0 || c.job <= 0 || c.duration <= 0 {
		return errors.New("want -candidates ≥ 1 and positive -session, -job and -duration")
	}
	servers, stopServer, err := demo.Servers(ctx, c.servers, out)
	defer stopServer()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d candidates campaign under %s (session timeout %v)\n", c.candidates, c.path, c.session)

	p := &printer{out: out, start: time.Now(), verbose: c.verbose, candidates: c.candidates}
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	var wg sync.WaitGroup
	var cands []*candidate
	for i := 1; i <= c.candidates; i++ {
		cand, err := newCandidate(ctx, fmt.Sprintf("candidate-%d", i), servers[0], c, p)
		if err != nil {
			return err
		}
		defer cand.close()
		cands = append(cands, cand)
		wg.Add(1)
		go func() { defer wg.Done(); cand.run(ctx, c.job) }()
	}
	if c.killAfter > 0 {
		go p.killLeader(ctx, c.killAfter, cands)
	}
	wg.Wait()
	p.summary(c.session)
	return nil
}

// candidate is one process of the demo: a session through its own proxy
// (so the demo can silence it alone) and an Election.
type candidate struct {
	name  string
	conn  *zk.Conn
	proxy *zkconn.Proxy
	e     *leader.Election
	p     *printer

	mu     sync.Mutex
	killed bool
}

func newCandidate(ctx context.Context, name, server string, c config, p *printer) (*candidate, error) {
	proxy, err := zkconn.NewProxy(server)
	if err != nil {
		return nil, err
	}
	conn, events, err := zkconn.Dial(ctx, []string{proxy.Addr()}, c.session)
	if err != nil {
		proxy.Close()
		return nil, err
	}
	go zkconn.Drain(events)
	e, err := leader.New(conn, c.path, leader.WithSessionTimeout(c.session),
		leader.WithObserver(event.Observer(p.observe).WithOwner(name)))
	if err != nil {
		conn.Close()
		proxy.Close()
		return nil, err
	}
	return &candidate{name: name, conn: conn, proxy: proxy, e: e, p: p}, nil
}

// run campaigns, works while it leads, and campaigns again if it loses.
func (c *candidate) run(ctx context.Context, job time.Duration) {
	for ctx.Err() == nil && !c.isKilled() {
		if err := c.e.Campaign(ctx, c.name); err != nil {
			if ctx.Err() == nil && !c.isKilled() {
				c.p.say(c.name, "campaign failed: %v", err)
			}
			return
		}
		tick := time.NewTicker(job)
		for n := 1; ; n++ {
			select {
			case <-tick.C:
				if c.isKilled() {
					continue // a dead process does no work
				}
				c.p.say(c.name, "(term %d) processed job %d", c.e.Term(), n)
				continue
			case <-c.e.Done(): // lost: campaign again (unless dead)
			case <-ctx.Done():
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				c.e.Resign(rctx)
				cancel()
			}
			break
		}
		tick.Stop()
	}
}

// kill silences the candidate's link, then closes its connection: the
// close request is swallowed, so the server never hears the goodbye.
func (c *candidate) kill() {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	c.proxy.Cut()
	c.conn.Close()
}

func (c *candidate) isKilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

func (c *candidate) close() {
	c.conn.Close()
	c.proxy.Close()
}

// printer prints the timeline, "+  1.234s candidate-2 acquired …", and
// remembers who leads, to kill them and to time the handover.
type printer struct {
	out        io.Writer
	start      time.Time
	verbose    bool
	candidates int

	mu       sync.Mutex
	leader   string
	elected  chan struct{} // closed at each election, then replaced
	killedAt time.Time
	victim   string
	handover time.Duration
	next     string
}

func (p *printer) observe(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind == event.Acquired {
		p.leader = e.Owner
		if !p.killedAt.IsZero() && p.next == "" && e.Owner != p.victim {
			p.handover, p.next = e.Time.Sub(p.killedAt), e.Owner
		}
		if p.elected != nil {
			close(p.elected)
			p.elected = nil
		}
	}
	if p.verbose || e.Kind == event.Acquired || e.Kind == event.Released || e.Kind == event.Lost || e.Kind == event.Waiting {
		fmt.Fprintf(p.out, "+%7.3fs %s\n", e.Time.Sub(p.start).Seconds(), e)
	}
}

func (p *printer) say(who, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, "+%7.3fs %s %s\n", time.Since(p.start).Seconds(), who, fmt.Sprintf(format, args...))
}

// killLeader waits until someone leads, lets it work for a while, and kills it.
func (p *printer) killLeader(ctx context.Context, after time.Duration, cands []*candidate) {
	p.mu.Lock()
	wait := make(chan struct{})
	if p.leader == "" {
		p.elected = wait
	} else {
		close(wait)
	}
	p.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return
	}
	select {
	case <-time.After(after):
	case <-ctx.Done():
		return
	}
	p.mu.Lock()
	victim := p.leader
	p.victim, p.killedAt = victim, time.Now()
	p.mu.Unlock()
	for _, c := range cands {
		if c.name == victim {
			p.say(victim, "is KILLED: link cut, connection dropped; its session must expire")
			c.kill()
		}
	}
}

func (p *printer) summary(session time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.killedAt.IsZero():
		fmt.Fprintln(p.out, "no leader was killed")
	case p.next == "" && p.candidates < 2:
		fmt.Fprintf(p.out, "nobody took over from %s: with one candidate there is nobody to (try -candidates 3)\n", p.victim)
	case p.next == "":
		fmt.Fprintf(p.out, "nobody took over from %s before the end: try a longer -duration\n", p.victim)
	default:
		fmt.Fprintf(p.out, "handover: %s leads %v after %s was killed (session timeout %v)\n",
			p.next, p.handover.Round(time.Millisecond), p.victim, session)
	}
}
