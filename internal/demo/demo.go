// Package demo runs a lock chapter's demo: several workers, each with its
// own ZooKeeper session, contend for the chapter's lock; inside it they do
// the articles' unguarded age++ on a counter znode; the events of every lock
// are printed as a timeline, and the last line is
//
//	counter=<final> expected=<start + workers*rounds>
//
// A chapter's main.go only says how to build its lock; the flags, the
// server, the workers and the printing are the same everywhere and live here.
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// Locker is what a chapter's lock offers the demo.
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// Chapter describes one lock chapter to the demo.
type Chapter struct {
	Name  string // "04-sequential-lock": the default paths derive from it
	Title string // one line printed first
	// NewLock builds one worker's lock on path over conn; obs already
	// stamps the worker's name on every event.
	NewLock func(conn *zk.Conn, path string, obs event.Observer) (Locker, error)
	// Flags adds the chapter's own flags, if any, before parsing.
	Flags func(fs *flag.FlagSet)
	// TUI, if set, opens the visualizer on this chapter; -tui calls it
	// instead of printing the timeline. (The chapter's main passes it in:
	// this package cannot import the visualizer, which imports it.)
	TUI func(ctx context.Context, cfg Config) error
}

// Config is what the common flags set.
type Config struct {
	Servers string        // -servers: empty means zkserver.Start (ZK_SERVERS, Docker, local)
	Path    string        // -path: the lock path
	Counter string        // -counter: the counter znode
	Workers int           // -workers
	Rounds  int           // -rounds: acquisitions per worker
	Hold    time.Duration // -hold: time inside the critical section
	NoLock  bool          // -nolock: skip the lock and watch updates get lost
	Quiet   bool          // -quiet: print acquisitions and the result only
	Session time.Duration // -session: session timeout
	TUI     bool          // -tui: open the visualizer instead
	// Set names the flags given on the command line, so -tui can keep the
	// visualizer's own defaults for the others.
	Set map[string]bool
}

// Flags registers the common flags on fs and returns the Config they fill.
func Flags(fs *flag.FlagSet, name string) *Config {
	c := &Config{}
	fs.StringVar(&c.Servers, "servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	fs.StringVar(&c.Path, "path", "/lockstep/"+name+"/lock", "lock path")
	fs.StringVar(&c.Counter, "counter", "", "counter znode (default: beside the lock path); created with 0 if missing")
	fs.IntVar(&c.Workers, "workers", 3, "number of workers, each with its own session")
	fs.IntVar(&c.Rounds, "rounds", 2, "acquisitions per worker")
	fs.DurationVar(&c.Hold, "hold", 50*time.Millisecond, "time spent inside the critical section")
	fs.BoolVar(&c.NoLock, "nolock", false, "skip the lock: show the lost updates")
	fs.BoolVar(&c.Quiet, "quiet", false, "print only acquisitions, releases and the result")
	fs.DurationVar(&c.Session, "session", zkconn.DefaultSessionTimeout, "ZooKeeper session timeout")
	fs.BoolVar(&c.TUI, "tui", false, "open the visualizer on this chapter")
	return c
}

// Main is a chapter's whole main function.
func Main(ch Chapter) {
	fs := flag.NewFlagSet(ch.Name, flag.ExitOnError)
	cfg := Flags(fs, ch.Name)
	if ch.Flags != nil {
		ch.Flags(fs)
	}
	fs.Parse(os.Args[1:])
	cfg.Set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { cfg.Set[f.Name] = true })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run := func() error { _, err := Run(ctx, ch, *cfg, os.Stdout); return err }
	if cfg.TUI {
		if ch.TUI == nil {
			fmt.Fprintf(os.Stderr, "error: %s has no visualizer view yet; try go run ./visualizer\n", ch.Name)
			os.Exit(2)
		}
		run = func() error { return ch.TUI(ctx, *cfg) }
	}
	err := run()
	stop()
	Exit(ctx, err)
}

// Exit ends a demo's main: nothing on success; "interrupted" and exit code
// 130 after Ctrl-C (ctx is the signal context; by then every worker has let
// go of its lock and closed its session, and the server we started is
// stopped); otherwise the error and exit code 1.
func Exit(ctx context.Context, err error) {
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, "interrupted")
		os.Exit(130)
	default:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// Result is what a demo run ends with.
type Result struct {
	Start, Final, Expected int
	Tally                  *event.Tally
}

// Validate checks a Config before anything connects.
func (c *Config) Validate() error {
	switch {
	case c.Workers < 1:
		return fmt.Errorf("-workers %d: want at least 1", c.Workers)
	case c.Rounds < 1:
		return fmt.Errorf("-rounds %d: want at least 1", c.Rounds)
	case c.Hold < 0:
		return fmt.Errorf("-hold %v: want a duration ≥ 0", c.Hold)
	case c.Session <= 0:
		return fmt.Errorf("-session %v: want a positive duration", c.Session)
	}
	// Check the paths before anything connects, so a bad -path writes
	// nothing (not even the counter beside it) and says so once.
	if err := zkpath.Validate(c.Path); err != nil {
		return fmt.Errorf("-path: %w", err)
	}
	if c.Counter == "" {
		c.Counter = parent(c.Path) + "/counter"
	}
	if err := zkpath.Validate(c.Counter); err != nil {
		return fmt.Errorf("-counter: %w", err)
	}
	return nil
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

// Servers resolves -servers: the flag, or a server from zkserver.Start.
// The returned stop function must be called when done.
func Servers(ctx context.Context, flagValue string, out io.Writer) ([]string, func(), error) {
	if flagValue != "" {
		s, err := zkserver.ParseServers(flagValue)
		return s, func() {}, err
	}
	srv, err := zkserver.Start(ctx)
	if err != nil {
		return nil, func() {}, err
	}
	fmt.Fprintf(out, "ZooKeeper at %s (%s)\n", srv.ConnectString(), srv.Source)
	return srv.Servers, srv.Close, nil
}

// Run runs the demo and writes the timeline to out.
func Run(ctx context.Context, ch Chapter, cfg Config, out io.Writer) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	servers, stopServer, err := Servers(ctx, cfg.Servers, out)
	defer stopServer()
	if err != nil {
		return Result{}, err
	}
	admin, events, err := zkconn.Dial(ctx, servers, cfg.Session)
	if err != nil {
		return Result{}, err
	}
	go zkconn.Drain(events)
	defer admin.Close()
	start, err := EnsureCounter(admin, cfg.Counter)
	if err != nil {
		return Result{}, err
	}

	fmt.Fprintln(out, ch.Title)
	mode := "with the lock"
	if cfg.NoLock {
		mode = "WITHOUT the lock (-nolock)"
	}
	fmt.Fprintf(out, "%d workers × %d rounds on %s, %s; counter %s starts at %d\n",
		cfg.Workers, cfg.Rounds, cfg.Path, mode, cfg.Counter, start)

	tl := &Timeline{Out: out, Quiet: cfg.Quiet, Start: time.Now()}
	tally := &event.Tally{}
	obs := event.Tee(tl.Observe, tally.Observe)

	var wg sync.WaitGroup
	errs := make(chan error, cfg.Workers)
	for i := 1; i <= cfg.Workers; i++ {
		name := fmt.Sprintf("worker-%d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(ctx, ch, cfg, servers, event.Observer(obs).WithOwner(name)); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if err := errors.Join(all...); err != nil {
		return Result{}, err
	}

	final, err := ReadCounter(admin, cfg.Counter)
	if err != nil {
		return Result{}, err
	}
	res := Result{Start: start, Final: final, Expected: start + cfg.Workers*cfg.Rounds, Tally: tally}
	fmt.Fprintf(out, "requests=%d notifications=%d acquisitions=%d\n",
		tally.Count(event.Request), tally.Count(event.Notified), tally.Count(event.Acquired))
	fmt.Fprintf(out, "counter=%d expected=%d\n", res.Final, res.Expected)
	return res, nil
}

// work is one worker: its own session, its own lock, Rounds times age++.
func work(ctx context.Context, ch Chapter, cfg Config, servers []string, obs event.Observer) error {
	conn, events, err := zkconn.Dial(ctx, servers, cfg.Session)
	if err != nil {
		return err
	}
	go zkconn.Drain(events)
	defer conn.Close()
	var l Locker
	if !cfg.NoLock {
		if l, err = ch.NewLock(conn, cfg.Path, obs); err != nil {
			return err
		}
	}
	for range cfg.Rounds {
		if l != nil {
			if err := l.Lock(ctx); err != nil {
				return err
			}
		}
		err := increment(ctx, conn, cfg.Counter, cfg.Hold, obs)
		if l != nil {
			// Unlock even if ctx is done (Ctrl-C), so nothing is left behind.
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			uerr := l.Unlock(uctx)
			cancel()
			err = errors.Join(err, uerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// increment is the articles' unguarded age++: read, wait, write back with
// version -1 (no compare-and-swap), so only the lock keeps it correct.
func increment(ctx context.Context, conn *zk.Conn, counter string, hold time.Duration, obs event.Observer) error {
	v, err := ReadCounter(conn, counter)
	if err != nil {
		return err
	}
	select { // Ctrl-C ends the hold at once; the counter is left as it was
	case <-time.After(hold):
	case <-ctx.Done():
		return ctx.Err()
	}
	if _, err := conn.Set(counter, []byte(strconv.Itoa(v+1)), -1); err != nil {
		return fmt.Errorf("write counter %s: %w", counter, err)
	}
	obs.Emit(event.Event{Kind: event.Info, Node: counter, Detail: fmt.Sprintf("counter %d → %d", v, v+1)})
	return nil
}

// EnsureCounter creates the counter (and its parents) with 0 if missing,
// and returns its current value.
func EnsureCounter(conn *zk.Conn, counter string) (int, error) {
	if err := ensureParents(conn, counter); err != nil {
		return 0, err
	}
	_, err := conn.Create(counter, []byte("0"), 0, zk.WorldACL(zk.PermAll))
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return 0, fmt.Errorf("create counter %s: %w", counter, err)
	}
	return ReadCounter(conn, counter)
}

func ensureParents(conn *zk.Conn, p string) error {
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return fmt.Errorf("counter path %q: want an absolute path without a trailing slash", p)
	}
	parts := strings.Split(p, "/")
	cur := ""
	for _, part := range parts[1 : len(parts)-1] {
		cur += "/" + part
		_, err := conn.Create(cur, nil, 0, zk.WorldACL(zk.PermAll))
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", cur, err)
		}
	}
	return nil
}

// ReadCounter reads the counter znode as a decimal number.
func ReadCounter(conn *zk.Conn, counter string) (int, error) {
	b, _, err := conn.Get(counter)
	if err != nil {
		return 0, fmt.Errorf("read counter %s: %w", counter, err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("counter %s holds %q, not a number", counter, b)
	}
	return v, nil
}

// Timeline prints events as "+  0.123s worker-2 acquired lock-0000000003".
type Timeline struct {
	Out   io.Writer
	Quiet bool
	Start time.Time
	mu    sync.Mutex
}

// Observe is an event.Observer.
func (t *Timeline) Observe(e event.Event) {
	if t.Quiet && e.Kind != event.Acquired && e.Kind != event.Released && e.Kind != event.Lost {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, "+%7.3fs %s\n", e.Time.Sub(t.Start).Seconds(), e)
}
