package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// Locker is what a chapter's lock (or one side of 05's) offers the demo.
type Locker = contend.Locker

// Chapter describes a lock chapter (02–06) to the demo: several workers,
// each with its own ZooKeeper session, take the chapter's lock; inside it
// they do the articles' unguarded age++ on a counter znode; every lock's
// events are printed as a timeline, and the last line is
//
//	counter=<final> expected=<start + writers*rounds>
type Chapter struct {
	Name  string // "04-sequential-lock"
	Title string // the lesson's heading, printed before the timeline
	// NewLock builds one worker's lock on path over conn (02, 03); obs
	// already stamps the worker's name on every event.
	NewLock func(conn *zk.Conn, path string, obs event.Observer) (Locker, error)
	// Sessions, for locks that live on a Session (04 on), replaces
	// NewLock: each worker opens its session and builds its lock on it
	// (OnSession).
	Sessions Sessions
	// Readers, if set, makes that many of the workers readers (05): they
	// read the counter under the Sessions' read lock instead of
	// incrementing it.
	Readers func(workers int) (int, error)
	// Inventory adds -inventory: the article's shop (inventory.go) instead
	// of the workers.
	Inventory bool
	// Flags adds the chapter's own flags; TUIArgs carries them over to the
	// visualizer (see Program).
	Flags   func(fs *flag.FlagSet)
	TUIArgs func(set map[string]bool) []string
}

// Config is what the lock chapters' flags set.
type Config struct {
	Servers string        // -servers
	Path    string        // -path: the lock
	Counter string        // -counter: beside the lock unless given
	Workers int           // -workers
	Rounds  int           // -rounds: acquisitions per worker
	Hold    time.Duration // -hold: time inside the critical section
	NoLock  bool          // -nolock: skip the lock and watch updates get lost
	Quiet   bool          // -quiet: print the milestones and the result only
	Session time.Duration // -session
	Set     map[string]bool
}

// Result is what a lock chapter's run ends with.
type Result struct {
	Start, Final, Expected int
	Tally                  *event.Tally
	Shop                   *ShopResult // after -inventory
}

// Main is a lock chapter's whole main function.
func Main(ch Chapter) { MainProgram(ch.Program(nil)) }

// Program is ch as a demo program. done, if not nil, receives the Result
// of a run that finished (tests read it).
func (ch Chapter) Program(done func(Result)) Program {
	var cfg Config
	var s shop
	return Program{
		Name: ch.Name, Path: "lock", PathUsage: "lock path",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.Counter, "counter", "", "counter znode (default: beside the lock); created with 0 if missing")
			fs.IntVar(&cfg.Workers, "workers", 3, "number of workers, each with its own session")
			fs.IntVar(&cfg.Rounds, "rounds", 2, "acquisitions per worker")
			fs.DurationVar(&cfg.Hold, "hold", 50*time.Millisecond, "time spent inside the critical section")
			fs.BoolVar(&cfg.NoLock, "nolock", false, "skip the lock: show the lost updates")
			fs.BoolVar(&cfg.Quiet, "quiet", false, "print only acquisitions, waits, releases, losses and the result")
			if ch.Inventory {
				s.flags(fs)
			}
			if ch.Flags != nil {
				ch.Flags(fs)
			}
		},
		Check: func() error { return errors.Join(cfg.check(), s.check()) },
		TUI:   true,
		TUIArgs: func(set map[string]bool) []string {
			var args []string
			if set["workers"] {
				args = append(args, "-workers", strconv.Itoa(cfg.Workers))
			}
			if set["hold"] {
				args = append(args, "-hold", cfg.Hold.String())
			}
			if ch.TUIArgs != nil {
				args = append(args, ch.TUIArgs(set)...)
			}
			return args
		},
		Run: func(ctx context.Context, env *Env) error {
			cfg.Path, cfg.Session, cfg.Set = env.Path, env.Session, env.Set
			if s.on {
				r, err := ch.shop(ctx, env, cfg, s)
				if err == nil && done != nil {
					done(Result{Shop: &r})
				}
				return err
			}
			res, err := ch.run(ctx, env, cfg)
			if err == nil && done != nil {
				done(res)
			}
			return err
		},
	}
}

func (c *Config) check() error {
	switch {
	case c.Workers < 1:
		return fmt.Errorf("-workers %d: want at least 1", c.Workers)
	case c.Rounds < 1:
		return fmt.Errorf("-rounds %d: want at least 1", c.Rounds)
	case c.Hold < 0:
		return fmt.Errorf("-hold %v: want a duration ≥ 0", c.Hold)
	}
	if c.Counter != "" {
		if err := zkpath.Validate(c.Counter); err != nil {
			return fmt.Errorf("-counter: %w", err)
		}
	}
	return nil
}

// worker is one contender of a run.
type worker struct {
	name   string
	reader bool
}

// workers names them: worker-1…, or reader-1…/writer-1… alternating, so
// readers and writers start side by side.
func (ch Chapter) workers(n int) ([]worker, error) {
	readers := 0
	if ch.Readers != nil {
		var err error
		if readers, err = ch.Readers(n); err != nil {
			return nil, err
		}
	}
	var ws []worker
	nr, nw := 0, 0
	for i := range n {
		switch {
		case ch.Readers == nil:
			ws = append(ws, worker{name: fmt.Sprintf("worker-%d", i+1)})
		case nr < readers && (i%2 == 0 || nw == n-readers):
			nr++
			ws = append(ws, worker{name: fmt.Sprintf("reader-%d", nr), reader: true})
		default:
			nw++
			ws = append(ws, worker{name: fmt.Sprintf("writer-%d", nw)})
		}
	}
	return ws, nil
}

func (ch Chapter) run(ctx context.Context, env *Env, cfg Config) (Result, error) {
	ws, err := ch.workers(cfg.Workers)
	if err != nil {
		return Result{}, err
	}
	if cfg.Counter == "" {
		cfg.Counter = env.Root + "/counter"
	}
	start, err := ensureCounter(ctx, env, env.Admin, cfg.Counter)
	if err != nil {
		return Result{}, err
	}
	writers := 0
	for _, w := range ws {
		if !w.reader {
			writers++
		}
	}

	fmt.Fprintln(env.Out, ch.Title)
	mode := "with the lock"
	if cfg.NoLock {
		mode = "WITHOUT the lock (-nolock)"
	}
	who := plural(cfg.Workers, "worker")
	if ch.Readers != nil {
		who += fmt.Sprintf(" (%s, %s)", plural(cfg.Workers-writers, "reader"), plural(writers, "writer"))
	}
	fmt.Fprintf(env.Out, "%s × %s on %s, %s; counter %s starts at %d\n", who, plural(cfg.Rounds, "round"), cfg.Path, mode, cfg.Counter, start)

	tl := NewTimeline(env.Out)
	if cfg.Quiet {
		tl.Show = Milestone
	}
	tally := &event.Tally{}
	obs := event.Tee(tl.Observe, tally.Observe)
	var wg sync.WaitGroup
	errs := make([]error, len(ws))
	for i, w := range ws {
		wg.Go(func() {
			if err := ch.work(ctx, env, cfg, w, obs.WithOwner(w.name)); err != nil {
				errs[i] = fmt.Errorf("%s: %w", w.name, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}

	final, err := contend.ReadCounter(env.Admin, cfg.Counter)
	if err != nil {
		return Result{}, err
	}
	res := Result{Start: start, Final: final, Expected: start + writers*cfg.Rounds, Tally: tally}
	fmt.Fprintf(env.Out, "requests=%d notifications=%d acquisitions=%d\n",
		tally.Count(event.Request), tally.Count(event.Notified), tally.Count(event.Acquired))
	fmt.Fprintf(env.Out, "counter=%d expected=%d\n", res.Final, res.Expected)
	return res, nil
}

// work is one worker: its own session, its own lock, Rounds times the
// critical section — age++ for a writer, a read for a reader.
func (ch Chapter) work(ctx context.Context, env *Env, cfg Config, w worker, obs event.Observer) error {
	conn, newLock, closeSession, err := ch.open(ctx, env, w.reader)
	if err != nil {
		return err
	}
	defer closeSession()
	var l Locker
	if !cfg.NoLock {
		if l, err = newLock(cfg.Path, obs); err != nil {
			return err
		}
	}
	critical := func(ctx context.Context) error {
		v, err := contend.Increment(ctx, conn, cfg.Counter, cfg.Hold)
		if err == nil {
			obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("counter %d → %d", v, v+1)})
		}
		return err
	}
	if w.reader {
		critical = func(ctx context.Context) error {
			v, err := contend.ReadCounter(conn, cfg.Counter)
			if err == nil {
				obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("reads counter = %d", v)})
				err = contend.Hold(cfg.Hold)(ctx)
			}
			return err
		}
	}
	_, err = contend.Loop(ctx, l, cfg.Rounds, critical)
	return err
}

// open opens one worker's session and returns its conn and the
// constructor of its lock (the read lock for a reader).
func (ch Chapter) open(ctx context.Context, env *Env, reader bool) (*zk.Conn, func(string, event.Observer) (Locker, error), func(), error) {
	if ch.Sessions.open == nil {
		conn, err := env.Dial(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return conn, func(p string, obs event.Observer) (Locker, error) { return ch.NewLock(conn, p, obs) }, conn.Close, nil
	}
	s, err := ch.Sessions.open(ctx, env)
	if err != nil {
		return nil, nil, nil, err
	}
	newLock := ch.Sessions.lock
	if reader {
		newLock = ch.Sessions.readLock
	}
	return s.Conn(), func(p string, obs event.Observer) (Locker, error) { return newLock(s, p, obs) }, s.Close, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ensureCounter creates the counter (and its parents) with 0 if missing,
// and returns its value.
func ensureCounter(ctx context.Context, env *Env, conn *zk.Conn, counter string) (int, error) {
	if err := znode.CreateParents(ctx, conn, counter, env.ACL(), nil); err != nil {
		return 0, fmt.Errorf("create the parents of counter %s: %w", counter, env.Explain(err))
	}
	_, err := conn.Create(counter, []byte("0"), 0, env.ACL())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return 0, fmt.Errorf("create counter %s: %w", counter, env.Explain(err))
	}
	return contend.ReadCounter(conn, counter)
}

// Milestone is true for the events a short timeline shows: acquired,
// waiting, released, lost.
func Milestone(e event.Event) bool {
	switch e.Kind {
	case event.Acquired, event.Waiting, event.Released, event.Lost:
		return true
	}
	return false
}

// Timeline prints events and story lines as "+  0.123s worker-2 acquired
// lock-0000000003", counting from its start. It is safe for concurrent use:
// locks report from their own goroutines.
type Timeline struct {
	Out  io.Writer
	Show func(event.Event) bool // which events to print; nil: all

	mu    sync.Mutex
	start time.Time
}

// NewTimeline starts a timeline at 0 now.
func NewTimeline(out io.Writer) *Timeline { return &Timeline{Out: out, start: time.Now()} }

// Observe is an event.Observer.
func (t *Timeline) Observe(e event.Event) {
	if t.Show == nil || t.Show(e) {
		t.line(e.Time, e.String())
	}
}

// Say prints a line of the story: "+  1.234s candidate-2 <what>".
func (t *Timeline) Say(who, format string, args ...any) {
	t.line(time.Now(), who+" "+fmt.Sprintf(format, args...))
}

// Printf prints without a timestamp.
func (t *Timeline) Printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, format, args...)
}

// Restart counts from 0 again.
func (t *Timeline) Restart() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start = time.Now()
}

func (t *Timeline) line(at time.Time, s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, "+%7.3fs %s\n", at.Sub(t.start).Seconds(), s)
}
