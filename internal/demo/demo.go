// Package demo is the plumbing every chapter's `go run ./NN-name` shares, so
// that a chapter's main.go reads top to bottom as the lesson it shows:
//
//   - the flags every demo has: -servers, -session, -path (where it has a
//     lock), -tui (where the visualizer has a view of it), and -h;
//   - a server: -servers, else $ZK_SERVERS, else one started for the run;
//   - a root znode of the run's own, /lockstep/NN-name/run-<random> (below
//     $ZK_ROOT in a class: root.go), said on the first line and deleted at
//     the end, so thirty learners can share one server without meeting
//     each other's nodes;
//   - sessions dialled with -session (Env.Dial), closed at the end;
//   - Ctrl-C, SIGTERM and SIGHUP (the terminal closed): the story's context
//     ends, every lock is released, every session closed, the run's nodes
//     deleted and the server we started stopped, then the exit code says
//     which signal;
//   - -tui: the visualizer on this chapter, run as a child process.
//
// A lock chapter (02–06) needs even less: Main(Chapter{…}) runs its workers,
// the unguarded counter and the timeline (chapter.go). 01, 07 and 08 tell a
// story of their own: MainProgram(Program{…}).
//
// The files, by concern: demo.go (Program, the flags every demo has,
// Execute), env.go (what a story is handed: sessions, ACL), root.go (the
// run's root), server.go (-servers), exit.go (signals and exit codes),
// visualize.go (-tui), link.go (cutting one client off), sessions.go (a
// chapter's Session), chapter.go and workers.go (a lock chapter's workers
// on the counter), timeline.go (what the demos print).
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// Program is one chapter's demo.
type Program struct {
	// Name is the chapter's folder, "07-leader": it names the flag set, the
	// run's root (/lockstep/07-leader/run-…) and, by its number, the
	// visualizer's chapter.
	Name string
	// Session is -session's default (0: zksession.DefaultTimeout) and
	// SessionUsage its help text.
	Session      time.Duration
	SessionUsage string
	// Path, if set, adds -path: the znode the chapter works on, by default
	// Path under the run's root ("lock", "election"). PathUsage is its help.
	Path, PathUsage string
	// Flags adds the chapter's own flags.
	Flags func(fs *flag.FlagSet)
	// Check validates the chapter's own flags before anything connects.
	Check func() error
	// TUI adds -tui, which opens the visualizer on this chapter instead.
	// -servers, and -session when given, carry over; TUIArgs adds the
	// visualizer flags that carry over the chapter's own (02's
	// -persistent, 07's -candidates as -workers).
	TUI     bool
	TUIArgs func(set map[string]bool) []string
	// Run is the story. It returns when done, or soon after ctx ends.
	Run func(ctx context.Context, env *Env) error
}

// MainProgram is a chapter's whole main function.
func MainProgram(p Program) {
	ctx, stop := signalContext()
	err := Execute(ctx, p, os.Args[1:], os.Stdout)
	stop()
	Exit(ctx, err)
}

// Execute parses args and runs p, writing to out. Main calls it with the
// command line; tests call it with their own.
func Execute(ctx context.Context, p Program, args []string, out io.Writer) (err error) {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	servers := fs.String("servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	session := p.Session
	if session == 0 {
		session = zksession.DefaultTimeout
	}
	usage := p.SessionUsage
	if usage == "" {
		usage = "ZooKeeper session timeout to ask for (the server grants what its configuration allows)"
	}
	fs.DurationVar(&session, "session", session, usage)
	var pathFlag string
	if p.Path != "" {
		fs.StringVar(&pathFlag, "path", "", p.PathUsage+" (default: "+p.Path+" under this run's own root, /lockstep/"+p.Name+"/run-…)")
	}
	var tui bool
	if p.TUI {
		fs.BoolVar(&tui, "tui", false, "open the visualizer on this chapter instead")
	}
	if p.Flags != nil {
		p.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if session <= 0 {
		return fmt.Errorf("-session %v: want a positive duration", session)
	}
	if set["path"] {
		// Checked before anything connects, so a bad -path writes nothing.
		if err := zkpath.Validate(pathFlag); err != nil {
			return fmt.Errorf("-path: %w", err)
		}
	}
	if p.Check != nil {
		if err := p.Check(); err != nil {
			return err
		}
	}
	if tui {
		chapter, _, _ := strings.Cut(p.Name, "-") // "07-leader" → "07"
		return visualize(ctx, chapter, tuiArgs(p, set, *servers, session))
	}

	auth, err := zksession.AuthFromEnv()
	if err != nil {
		return err
	}
	env := &Env{Out: out, Session: session, Set: set, Path: pathFlag, Auth: auth}
	owned := !set["path"]
	if owned {
		// 6 random hex digits: unique enough among the runs one server
		// sees at once. Below ZK_ROOT in a class.
		if env.Root, err = RunRoot(p.Name, 3); err != nil {
			return err
		}
		if p.Path != "" {
			env.Path = env.Root + "/" + p.Path
		}
		fmt.Fprintf(out, "%s: this run works under %s (deleted when it ends)\n", p.Name, env.Root)
	} else {
		env.Root = path.Dir(env.Path)
		fmt.Fprintf(out, "%s: this run works on %s (-path: left in place when it ends)\n", p.Name, env.Path)
	}

	var stopServer func()
	env.Servers, stopServer, err = Servers(ctx, *servers, out)
	defer stopServer()
	if err != nil {
		return err
	}
	if env.Admin, err = env.DialTimeout(ctx, zksession.DefaultTimeout); err != nil {
		return err
	}
	// Last in, first out: the story's sessions close (their ephemeral
	// nodes go with them), then the run's root is deleted, then the
	// admin session closes and the server stops.
	defer env.Admin.Close()
	if owned {
		// The run's root and its missing parents (znode.CreateAll starts over
		// if another run deletes an empty parent under us).
		if _, err := znode.CreateAll(ctx, env.Admin, env.Root, env.ACL()); err != nil {
			return err
		}
		// A root we could not delete is part of the result, so that the
		// last line never says the run's nodes are gone when they are not.
		defer func() { err = errors.Join(err, RemoveRunRoot(env.Admin, env.Root)) }()
	}
	defer env.closeAll()
	return p.Run(ctx, env)
}

// tuiArgs are the visualizer flags that carry over what the user gave.
func tuiArgs(p Program, set map[string]bool, servers string, session time.Duration) []string {
	var args []string
	if servers != "" {
		args = append(args, "-servers", servers)
	}
	if set["session"] {
		args = append(args, "-session", session.String())
	}
	if p.TUIArgs != nil {
		args = append(args, p.TUIArgs(set)...)
	}
	return args
}
