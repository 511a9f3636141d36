package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
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
	// Workers, if set, casts the run's n workers (05 makes some of them
	// readers); by default they are worker-1 … worker-n, all writers.
	Workers func(n int) ([]Worker, error)
	// Flags adds the chapter's own flags, and Check validates them before
	// anything connects; TUIArgs carries them over to the visualizer (see
	// Program).
	Flags   func(fs *flag.FlagSet)
	Check   func() error
	TUIArgs func(set map[string]bool) []string
	// Instead, if set, is asked when the run starts (the flags checked,
	// the run's root made): a Story it returns is told in place of the
	// workers (04's -inventory); nil, the workers run.
	Instead func() Story
}

// A Worker is one contender of a lock chapter's run.
type Worker struct {
	Name string
	// Reader reads the counter under the Sessions' read lock (OnSession's
	// newReadLock) instead of doing age++, and adds nothing to expected.
	Reader bool
}

// A Story is what a lock chapter tells in place of its workers
// (Chapter.Instead), with the Config its flags set.
type Story func(ctx context.Context, env *Env, cfg Config) error

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
}

// Main is a lock chapter's whole main function.
func Main(ch Chapter) { MainProgram(ch.Program(nil)) }

// Program is ch as a demo program. done, if not nil, receives the Result
// of a workers' run that finished (tests read it).
func (ch Chapter) Program(done func(Result)) Program {
	var cfg Config
	return Program{
		Name: ch.Name, Path: "lock", PathUsage: "lock path",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&cfg.Counter, "counter", "", "counter znode (default: beside the lock); created with 0 if missing")
			fs.IntVar(&cfg.Workers, "workers", 3, "number of workers, each with its own session")
			fs.IntVar(&cfg.Rounds, "rounds", 2, "acquisitions per worker")
			fs.DurationVar(&cfg.Hold, "hold", 50*time.Millisecond, "time spent inside the critical section")
			fs.BoolVar(&cfg.NoLock, "nolock", false, "skip the lock: show the lost updates")
			fs.BoolVar(&cfg.Quiet, "quiet", false, "print only acquisitions, waits, releases, losses and the result")
			if ch.Flags != nil {
				ch.Flags(fs)
			}
		},
		Check: func() error {
			err := cfg.check()
			if ch.Check != nil {
				err = errors.Join(err, ch.Check())
			}
			return err
		},
		TUI: true,
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
			if ch.Instead != nil {
				if story := ch.Instead(); story != nil {
					return story(ctx, env, cfg)
				}
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
