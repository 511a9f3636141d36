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
