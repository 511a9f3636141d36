package demo

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// processLock is an in-process mutex standing in for a chapter's lock, so
// these tests exercise the plumbing (flags, run root, workers, counter,
// timeline) and nothing else. All workers of a run share it.
type processLock struct {
	mu  *sync.Mutex
	obs event.Observer
}

func (l processLock) Lock(context.Context) error {
	l.mu.Lock()
	l.obs.Emit(event.Event{Kind: event.Acquired, Node: "/x/lock"})
	return nil
}

func (l processLock) Unlock(context.Context) error {
	l.obs.Emit(event.Event{Kind: event.Released, Node: "/x/lock"})
	l.mu.Unlock()
	return nil
}

func testChapter() Chapter {
	var mu sync.Mutex
	return Chapter{Name: "00-test", Title: "a test chapter",
		NewLock: func(_ *zk.Conn, _ string, obs event.Observer) (Locker, error) { return processLock{&mu, obs}, nil }}
}

// execute runs ch with args after -servers and returns its output and
// result.
func execute(t *testing.T, ch Chapter, args ...string) (string, Result, error) {
	t.Helper()
	var out bytes.Buffer
	var res Result
	args = append([]string{"-servers", strings.Join(zktest.Servers(t), ",")}, args...)
	err := Execute(zktest.Context(t), ch.Program(func(r Result) { res = r }), args, &out)
	return out.String(), res, err
}

var runRootLine = regexp.MustCompile(`^00-test: this run works under (/lockstep/00-test/run-[0-9a-f]{6}) \(deleted when it ends\)\n`)

func TestLockChapter(t *testing.T) {
	t.Run("with a lock the counter ends exactly at workers×rounds and the last line says so", func(t *testing.T) {
		out, res, err := execute(t, testChapter(), "-hold", "1ms")
		if err != nil {
			t.Fatal(err)
		}
		if res.Final != 6 || res.Expected != 6 {
			t.Fatalf("final %d expected %d", res.Final, res.Expected)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if last := lines[len(lines)-1]; last != "counter=6 expected=6" {
			t.Fatalf("last line %q", last)
		}
		if !strings.Contains(out, "worker-2 acquired lock") {
			t.Fatalf("the timeline has no acquisitions:\n%s", out)
		}
	})
	t.Run("each run works under a root of its own, says so first, and deletes it at the end", func(t *testing.T) {
		out1, _, err := execute(t, testChapter(), "-rounds", "1")
		if err != nil {
			t.Fatal(err)
		}
		out2, _, err := execute(t, testChapter(), "-rounds", "1")
		if err != nil {
			t.Fatal(err)
		}
		m1, m2 := runRootLine.FindStringSubmatch(out1), runRootLine.FindStringSubmatch(out2)
		if m1 == nil || m2 == nil {
			t.Fatalf("the first line does not name the run's root:\n%s\n%s", out1, out2)
		}
		if m1[1] == m2[1] {
			t.Fatalf("two runs worked under the same root %s", m1[1])
		}
		if !strings.Contains(out1, "on "+m1[1]+"/lock,") {
			t.Fatalf("the lock is not under the run's root:\n%s", out1)
		}
		admin := zktest.Connect(t)
		for _, root := range []string{m1[1], m2[1]} {
			if ok, _, err := admin.Exists(root); err != nil || ok {
				t.Fatalf("%s after the run: exists=%v err=%v", root, ok, err)
			}
		}
	})
	t.Run("with -path the counter there is kept, and expected counts from it", func(t *testing.T) {
		root := zktest.Root(t)
		admin := zktest.Connect(t)
		if _, err := admin.Create(root+"/counter", []byte("40"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		_, res, err := execute(t, testChapter(), "-path", root+"/lock")
		if err != nil || res.Start != 40 || res.Final != 46 || res.Expected != 46 {
			t.Fatalf("res %+v, err %v", res, err)
		}
		if b, _, err := admin.Get(root + "/counter"); err != nil || string(b) != "46" {
			t.Fatalf("counter after the run: %q, %v", b, err)
		}
	})
	t.Run("-quiet prints only the milestones and the result", func(t *testing.T) {
		out, _, err := execute(t, testChapter(), "-quiet")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "counter 0 → 1") {
			t.Fatalf("-quiet printed counter updates:\n%s", out)
		}
	})
	t.Run("readers read and do not count; writers count", func(t *testing.T) {
		ch := testChapter()
		ch.Workers = func(int) ([]Worker, error) {
			return []Worker{{Name: "reader-1", Reader: true}, {Name: "writer-1"}, {Name: "reader-2", Reader: true}}, nil
		}
		ch.Sessions = testSessions(ch.NewLock)
		out, res, err := execute(t, ch, "-workers", "3", "-rounds", "2")
		if err != nil {
			t.Fatal(err)
		}
		if res.Expected != 2 || res.Final != 2 {
			t.Fatalf("res %+v: one writer × 2 rounds should count 2", res)
		}
		for _, want := range []string{"3 workers (2 readers, 1 writer)", "reader-2 info", "reads counter ="} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
	t.Run("a story the chapter tells Instead runs in place of the workers, with the Config its flags set", func(t *testing.T) {
		ch := testChapter()
		var got Config
		ch.Instead = func() Story {
			return func(ctx context.Context, env *Env, cfg Config) error {
				got = cfg
				fmt.Fprintln(env.Out, "the chapter's own story")
				return nil
			}
		}
		out, res, err := execute(t, ch, "-hold", "7ms", "-nolock")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out, "the chapter's own story\n") || strings.Contains(out, "counter=") || res.Tally != nil {
			t.Fatalf("the workers ran (result %+v):\n%s", res, out)
		}
		if m := runRootLine.FindStringSubmatch(out); m == nil || got.Path != m[1]+"/lock" || got.Hold != 7*time.Millisecond || !got.NoLock || !got.Set["hold"] {
			t.Fatalf("the story got %+v:\n%s", got, out)
		}
	})
	t.Run("a counter that is not a number is a clear error", func(t *testing.T) {
		root := zktest.Root(t)
		zktest.Connect(t).Create(root+"/counter", []byte("forty"), 0, zk.WorldACL(zk.PermAll))
		_, _, err := execute(t, testChapter(), "-path", root+"/lock")
		if err == nil || !strings.Contains(err.Error(), "not a number") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestBadFlagsAreErrorsBeforeAnythingConnects(t *testing.T) {
	for _, args := range [][]string{
		{"-workers", "0"},
		{"-rounds", "0"},
		{"-hold", "-1s"},
		{"-session", "0s"},
		{"-path", "relative"},
		{"-path", "/a//lock"},
		{"-counter", "/a/"},
		{"-no-such-flag"},
		{"-story"}, // the chapter's own Check refuses it
	} {
		var out bytes.Buffer
		// Nothing listens on port 1: a connection attempt would fail
		// differently, and print the first line.
		ch := testChapter()
		var story bool
		ch.Flags = func(fs *flag.FlagSet) { fs.BoolVar(&story, "story", false, "a chapter's own flag") }
		ch.Check = func() error {
			if story {
				return errors.New("-story: not in this chapter")
			}
			return nil
		}
		err := Execute(context.Background(), ch.Program(nil), append([]string{"-servers", "127.0.0.1:1"}, args...), &out)
		if err == nil {
			t.Errorf("%q was accepted", args)
		}
		if out.Len() > 0 {
			t.Errorf("%q: printed %q before failing", args, out.String())
		}
	}
}

func TestTimelineCountsFromItsStart(t *testing.T) {
	var out bytes.Buffer
	tl := NewTimeline(&out)
	tl.Show = Milestone
	tl.Observe(event.Event{Kind: event.Request, Owner: "w", Node: "/x", Time: time.Now()})
	tl.Observe(event.Event{Kind: event.Acquired, Owner: "w", Node: "/x/lock-1", Time: time.Now()})
	tl.Say("w", "says %d", 1)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "+  0.0") || !strings.HasSuffix(lines[1], "w says 1") {
		t.Fatalf("timeline:\n%s", out.String())
	}
}

// testSession is a session of the test's own, for a Chapter's Sessions
// (the chapters' is seqlock.Session): a conn dialled by zksession.
type testSession struct{ d *zksession.Dialled }

func (s testSession) Conn() *zk.Conn         { return s.d.Conn }
func (s testSession) Timeout() time.Duration { return s.d.Timeout() }
func (s testSession) Close()                 { s.d.Conn.Close() }

// Done never closes: a plain conn outlives its sessions (go-zookeeper
// opens the next one itself).
func (s testSession) Done() <-chan struct{} { return nil }

func newTestSession(ctx context.Context, servers []string, opts ...zksession.Option) (testSession, error) {
	var c zksession.Config
	for _, o := range opts {
		o(&c)
	}
	d, err := zksession.Dial(ctx, servers, c)
	return testSession{d}, err
}

// testSessions gives every worker a testSession and newLock's lock on its
// conn, for writers and readers alike.
func testSessions(newLock func(*zk.Conn, string, event.Observer) (Locker, error)) Sessions {
	f := func(s testSession, p string, obs event.Observer) (Locker, error) { return newLock(s.d.Conn, p, obs) }
	return OnSession(newTestSession, f, f)
}
