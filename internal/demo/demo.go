// Package demo is the plumbing every chapter's `go run ./NN-name` shares, so
// that a chapter's main.go reads top to bottom as the lesson it shows:
//
//   - the flags every demo has: -servers, -session, -path (where it has a
//     lock), -tui (where the visualizer has a view of it), and -h;
//   - a server: -servers, else $ZK_SERVERS, else one started for the run;
//   - a root znode of the run's own, /lockstep/NN-name/run-<random>, said on
//     the first line and deleted at the end, so thirty learners can share
//     one server without meeting each other's nodes;
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
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// Program is one chapter's demo.
type Program struct {
	// Name is the chapter's folder, "07-leader": it names the flag set, the
	// run's root (/lockstep/07-leader/run-…) and, by its number, the
	// visualizer's chapter.
	Name string
	// Session is -session's default (0: zkconn.DefaultSessionTimeout) and
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

// Env is what the plumbing hands a story.
type Env struct {
	Out     io.Writer
	Servers []string
	// Root is the run's own znode, created before Run and deleted after it
	// (with what is left below it). With -path given, Root is -path's
	// parent, and it is left in place: the user chose it.
	Root string
	// Path is -path, or Program.Path under Root.
	Path string
	// Session is -session: what every session of the run asks for. The
	// server grants what its configuration allows; Granted says what.
	Session time.Duration
	// Admin is a session for setting up, checking and cleaning up. It
	// holds no lock and is never cut off, so it asks for the default
	// timeout (zkconn.DefaultSessionTimeout), not -session.
	Admin *zk.Conn
	// Set names the flags given on the command line.
	Set map[string]bool
	// Auth is ZK_AUTH's credentials, nil if unset: every session of the
	// run authenticates with them, and the run's nodes are then
	// creator-only (ACL).
	Auth *zksession.Auth

	mu      sync.Mutex
	conns   []*zk.Conn
	closers []func() // the Sessions the story opened
	links   []*Link
	granted func() time.Duration // of the first session that asked for -session
}

// ACL is what the run's nodes get: creator-only under ZK_AUTH, else open.
func (e *Env) ACL() []zk.ACL { return zksession.ACL(e.Auth) }

// Explain adds a hint to a zk.ErrNoAuth (zksession.Explain).
func (e *Env) Explain(err error) error { return zksession.Explain(e.Auth, err) }

// Dial opens another session that asks for -session, through zkconn.Dial;
// its session events are drained (pass zk.WithEventCallback to see them).
// The session is closed at the end of the run, if the story has not
// closed it.
func (e *Env) Dial(ctx context.Context, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	return e.dial(ctx, e.Servers, e.Session, opts...)
}

// DialTimeout is Dial with another session timeout, for a client that is
// not the one the story cuts off (08's client-B).
func (e *Env) DialTimeout(ctx context.Context, session time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	return e.dial(ctx, e.Servers, session, opts...)
}

// DialCuttable opens a session that asks for -session over a Link of its
// own, so the story can cut that client alone off. The session is closed
// at the end of the run, its link restored first.
func (e *Env) DialCuttable(ctx context.Context, opts ...func(*zk.Conn)) (*zk.Conn, *Link, error) {
	link := e.link()
	conn, err := e.dial(ctx, e.Servers, e.Session, append([]func(*zk.Conn){zkconn.WithDialer(link.dial)}, opts...)...)
	return conn, link, err
}

// link opens a Link, restored at the end of the run.
func (e *Env) link() *Link {
	link := newLink()
	e.mu.Lock()
	e.links = append(e.links, link)
	e.mu.Unlock()
	return link
}

func (e *Env) dial(ctx context.Context, servers []string, session time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, error) {
	d, err := zkconn.DialGranted(ctx, servers, session, opts...)
	if err != nil {
		return nil, err
	}
	go zkconn.Drain(d.Events)
	e.mu.Lock()
	e.conns = append(e.conns, d.Conn)
	if session == e.Session && e.granted == nil {
		e.granted = d.Timeout
	}
	e.mu.Unlock()
	return d.Conn, nil
}

// Granted is the session timeout the server grants for -session: what
// session expiry and a lock's loss detection take. A stock server
// (tickTime 2000) grants at least 4 s, whatever -session asks. If no
// session has asked for -session yet, Granted opens one to find out.
func (e *Env) Granted(ctx context.Context) time.Duration {
	e.mu.Lock()
	granted := e.granted
	e.mu.Unlock()
	if granted == nil {
		if _, err := e.Dial(ctx); err != nil {
			return e.Session // the story's own Dial will say what is wrong
		}
		e.mu.Lock()
		granted = e.granted
		e.mu.Unlock()
	}
	return granted()
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
func Execute(ctx context.Context, p Program, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	servers := fs.String("servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	session := p.Session
	if session == 0 {
		session = zkconn.DefaultSessionTimeout
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

	auth, err := zkconn.AuthFromEnv()
	if err != nil {
		return err
	}
	env := &Env{Out: out, Session: session, Set: set, Path: pathFlag, Auth: auth}
	owned := !set["path"]
	if owned {
		// 6 random hex digits: unique enough among the runs one server sees at once.
		env.Root = "/lockstep/" + p.Name + "/run-" + randhex.String(3)
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
	if env.Admin, err = env.DialTimeout(ctx, zkconn.DefaultSessionTimeout); err != nil {
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
		defer removeRoot(env.Admin, env.Root)
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

// closeAll closes the sessions the story opened, except Admin.
func (e *Env) closeAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	// A cut link would swallow the goodbye: let it through, so the server
	// ends those sessions now instead of after their timeout.
	for _, l := range e.links {
		l.Restore()
	}
	for _, c := range e.closers {
		c()
	}
	for _, c := range e.conns {
		if c != e.Admin {
			c.Close()
		}
	}
}

// removeRoot deletes the run's root and what is below it, then its parents
// up to /lockstep while they are empty (another run's may not be).
func removeRoot(conn *zk.Conn, root string) {
	if err := znode.DeleteTree(conn, root); err != nil {
		fmt.Fprintf(os.Stderr, "warning: could not delete %s: %v\n", root, err)
		return
	}
	for d := path.Dir(root); d != "/"; d = path.Dir(d) {
		if conn.Delete(d, -1) != nil {
			return // not empty (another run), or gone already
		}
	}
}

// Servers resolves -servers: the flag, or a server from zkserver.Start
// ($ZK_SERVERS, Docker, a local install). stop must be called when done.
func Servers(ctx context.Context, flagValue string, out io.Writer) (servers []string, stop func(), err error) {
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

// Signalled is the cause of a demo's context when a signal ended it.
type Signalled struct{ Signal os.Signal }

func (s *Signalled) Error() string { return "stopped by " + s.Signal.String() }

// signalContext ends on the first Ctrl-C (SIGINT), SIGTERM or SIGHUP (the
// terminal went away); its cause is a *Signalled. A second signal is not
// caught: it ends the program at once, as a second Ctrl-C should.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&Signalled{s})
		case <-done:
		}
	}()
	return ctx, func() {
		select {
		case <-done:
		default:
			close(done)
		}
		signal.Stop(sigs)
	}
}

// ExitCode is an error that only carries an exit code (the visualizer's,
// after -tui): Exit exits with it and prints nothing.
type ExitCode int

func (c ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// usageError is a flag error: the flag package has printed it with the usage.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// Exit ends a demo's main: exit code 0 after success, 2 after a bad flag
// (0 after -h), 128+n after signal n (by then every lock has been released,
// every session closed, the run's nodes deleted and the server we started
// stopped), the visualizer's own code after -tui, and 1 after any other
// error, which it prints.
func Exit(ctx context.Context, err error) {
	var code ExitCode
	var bad usageError
	var sig *Signalled
	switch {
	case errors.As(err, &code):
		os.Exit(int(code))
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &bad):
		os.Exit(2)
	case errors.As(context.Cause(ctx), &sig):
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "error:", err)
		}
		fmt.Fprintf(os.Stderr, "interrupted (%v): locks released, sessions closed, this run's nodes gone\n", sig.Signal)
		n := 1
		if s, ok := sig.Signal.(syscall.Signal); ok {
			n = int(s)
		}
		os.Exit(128 + n)
	case err != nil:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
