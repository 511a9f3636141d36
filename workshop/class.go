package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

// A learner in a class (-class <join line>, or LOCKSTEP_CLASS): the runner
// and the check join with classroom.Join, run the chapters' tests on the
// class's ZooKeeper inside the learner's own subtree, and report every
// verdict to the learner's progress node, where the host's screen sees it.

// ClassEnv and NameEnv stand for -class and -name.
const (
	ClassEnv = "LOCKSTEP_CLASS"
	NameEnv  = "LOCKSTEP_NAME"
)

// rootEnv is internal/zktest.RootEnv, the node under which the tests make
// their roots (not imported: the workshop links no test harness).
const rootEnv = "ZK_ROOT"

// class is a joined learner, as the runner and the check use it.
type class struct {
	line, name string
	secrets    classroom.FileSecrets
	servers    []string
	opts       []classroom.Option

	mu      sync.Mutex // one report at a time, and the learner while it is replaced
	learner *classroom.Learner
	last    classroom.Progress  // what the class holds: its chapter's start is kept
	pending *classroom.Progress // a report that did not reach the class: sent on the next join

	arena arenaSide // the learner's lock in the class's arena (arena.go)
}

// joinClass joins the class of line as name ("": -name's default, the name
// kept in the state, else asked on the terminal). Nothing is half-joined:
// on an error no session stays open, and the name is kept only once it is
// the learner's.
func joinClass(ctx context.Context, root, line, name string, t *runner.Texts, in io.Reader, out io.Writer, opts ...classroom.Option) (*class, error) {
	jl, err := classroom.ParseJoinLine(line)
	if err != nil {
		return nil, err
	}
	st, _ := course.LoadState(root)
	if name == "" {
		name = st.Name
	}
	asked := name == ""
	c := &class{line: line, secrets: classroom.FileSecrets(filepath.Join(root, course.ClassSecretsFile)), servers: jl.Servers, opts: opts}
	for try := 1; ; try++ {
		if asked {
			if name, err = askName(t, in, out); err != nil {
				return nil, err
			}
		}
		c.name = name
		err = classroom.CheckName(name)
		if err == nil {
			err = c.join(ctx)
		}
		if err == nil {
			break
		}
		// A name typed at the question may be taken or unusable: the
		// question again, a few times, rather than a runner to restart.
		if !asked || try == 3 || !(errors.Is(err, classroom.ErrNameTaken) || errors.Is(err, classroom.ErrBadName)) {
			return nil, err
		}
		fmt.Fprintln(out, err)
	}
	if st.Name != name {
		st.Name = name
		if err := st.Save(root); err != nil {
			c.Close()
			return nil, fmt.Errorf("keep the name %q in %s: %w", name, course.StateFile, err)
		}
	}
	return c, nil
}

// askName asks for a name on the terminal; with no terminal, it says how
// to give one.
func askName(t *runner.Texts, in io.Reader, out io.Writer) (string, error) {
	if !isTerminal(in) {
		return "", errors.New(t.ClassNoName)
	}
	fmt.Fprint(out, t.ClassAskName)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return "", errors.New(t.ClassNoName)
	}
	return strings.TrimSpace(line), nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// join opens a session as the learner and reads back what the class holds.
func (c *class) join(ctx context.Context) error {
	l, err := classroom.Join(ctx, c.line, c.name, c.secrets, c.opts...)
	if err != nil {
		return err
	}
	p, err := l.Progress(ctx)
	if err != nil {
		l.Close()
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learner != nil {
		c.learner.Close() // the expired session's conn: go-zookeeper would go on reconnecting it
	}
	c.learner, c.last = l, p
	if c.pending != nil {
		// A verdict reported while the session was lost.
		if err := l.Report(ctx, *c.pending); err == nil {
			c.last, c.pending = *c.pending, nil
		}
	}
	return nil
}

// Env is what a check's go test needs to run in the learner's subtree:
// the class's servers, the subtree (ZK_ROOT) and the learner's
// identity, which alone may create there.
func (c *class) Env() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return []string{
		"ZK_SERVERS=" + strings.Join(c.servers, ","),
		rootEnv + "=" + c.learner.Workspace(),
		zksession.AuthEnv + "=" + c.learner.Auth(),
	}
}

// Workspace is the learner's subtree for their checks.
func (c *class) Workspace() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.learner.Workspace()
}

// Report tells the class where the learner stands on ch after a verdict.
func (c *class) Report(ctx context.Context, ch string, v course.ChapterState, untouched bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.last
	if c.pending != nil {
		prev = *c.pending
	}
	p := progressOf(prev, ch, v, untouched, time.Now())
	if err := c.learner.Report(ctx, p); err != nil {
		c.pending = &p
		return err
	}
	c.last, c.pending = p, nil
	return nil
}

// progressOf is what the class is told after a verdict on ch: the state
// the host's screen sorts by, the mistake by its id in the hint table
// (docs/workshop.md's table lists them), the hints seen, and when the
// learner came to ch (kept while they stay on it).
func progressOf(prev classroom.Progress, ch string, v course.ChapterState, untouched bool, now time.Time) classroom.Progress {
	p := classroom.Progress{Chapter: ch, State: classroom.Failing, HintStage: max(v.Hints, v.HintsCLI),
		ChapterStart: now.UTC(), LastVerdict: v.At.UTC()}
	switch {
	case untouched:
		p.State = classroom.Untouched
	case v.Kind == course.Pass:
		p.State = classroom.Passing
	default:
		p.Mistake = v.Mistake
	}
	if v.At.IsZero() {
		p.LastVerdict = now.UTC()
	}
	if prev.Chapter == ch && !prev.ChapterStart.IsZero() {
		p.ChapterStart = prev.ChapterStart
	}
	return p
}

// Done is closed when the learner's session is over.
func (c *class) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.learner.Done()
}

// Close ends the session: the host's screen shows the learner gone, their
// progress stays.
func (c *class) Close() {
	c.arena.leave(true) // the worker first: nothing of it outlives the runner
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learner != nil {
		c.learner.Close()
	}
}

// keepJoined sends news on the class while the runner runs: when the
// session is lost (the laptop slept past the session timeout, the class
// was served again), it says so and joins again, every few seconds until
// it is back or ctx ends.
func (c *class) keepJoined(ctx context.Context, news chan<- runner.ClassNews) {
	say := func(n runner.ClassNews) bool {
		n.Name = c.name
		select {
		case news <- n:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		select {
		case <-c.Done():
		case <-ctx.Done():
			return
		}
		if ctx.Err() != nil || !say(runner.ClassNews{Kind: runner.ClassLost}) {
			return
		}
		for wait := time.Second; ; wait = min(2*wait, 10*time.Second) {
			jctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := c.join(jctx)
			cancel()
			if err == nil {
				if !say(runner.ClassNews{Kind: runner.ClassOnline, Again: true}) {
					return
				}
				break
			}
			if ctx.Err() != nil || !say(runner.ClassNews{Kind: runner.ClassRetry, Err: err}) {
				return
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
		}
	}
}

// classLine is -class's value, else LOCKSTEP_CLASS's.
func classLine(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(ClassEnv)
}

// className is -name's value, else LOCKSTEP_NAME's ("" : the kept one, or ask).
func className(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(NameEnv)
}

// Report and Class are the runner's Env in a class.
func (e *env) Report(r runner.Report) tea.Cmd {
	if e.class == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.class.Report(ctx, r.Chapter, r.Verdict, r.Untouched); err != nil {
			return runner.ClassNews{Kind: runner.ClassNotSent, Err: err}
		}
		return nil
	}
}

func (e *env) Class() tea.Cmd {
	if e.classNews == nil {
		return nil
	}
	return func() tea.Msg { return <-e.classNews }
}
