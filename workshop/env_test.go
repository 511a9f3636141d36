package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
	"github.com/lockstep-zk/lockstep/workshop/internal/standin"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

func TestAReplayThatSaysWhereItBrokeComesFirst(t *testing.T) {
	dir := t.TempDir()
	write := func(name, header string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(header+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	unmarked := write("TestA.events.jsonl", `{"test":"TestA","chapter":"04","broke_at":-1,"why":""}`)
	marked := write("TestQueue.events.jsonl", `{"test":"TestQueue","chapter":"04","broke_at":0,"why":"release 1 woke 5 waiters"}`+"\n"+`{"Kind":"info","Detail":"x"}`)
	files := []string{unmarked, marked}
	sortReplays(files)
	if want := []string{marked, unmarked}; !slices.Equal(files, want) {
		t.Fatalf("sortReplays = %v, want the marked recording first: %v", files, want)
	}
}

// A second check of a chapter stops the first, all of it, before it runs;
// quitting (stopAll) stops the second the same way. Real processes: the
// stand-in module's test starts a child in its group and one in a group of
// its own, as a chapter's test starts ZooKeeper.
func TestANewCheckAndQuitLeaveNothingOfTheOldCheck(t *testing.T) {
	root, all := standin.Module(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	e := newEnv(root, hint.MustLoad(), all)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// runCheck runs check id as Bubble Tea would, and waits until its
	// test has started its children.
	runCheck := func(id int) ([]int, <-chan tea.Msg) {
		started := standin.Started(ctx, t)
		cmd := e.Run(runner.Check{Chapter: "01", Tier: course.Lesson, ID: id})
		out := make(chan tea.Msg, 1)
		go func() { out <- cmd() }()
		select {
		case pids := <-started:
			return pids, out
		case msg := <-out:
			t.Fatalf("check %d ended before its test started: %+v", id, msg)
		}
		return nil, nil
	}
	gone := func(when string, pids []int) {
		t.Helper()
		for _, pid := range pids {
			if standin.Alive(pid) {
				t.Errorf("%s: pid %d is still running", when, pid)
			}
		}
	}
	first, firstDone := runCheck(1)
	second, secondDone := runCheck(2)
	if msg := (<-firstDone).(runner.RunDone); msg.ID != 1 || msg.Result.Kind == course.Pass {
		t.Errorf("the stopped check reported %+v", msg)
	}
	gone("after a new check started", first)

	e.stopAll()
	<-secondDone
	gone("after quit", second)
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in the temporary directory after quit: %v", entries)
	}
}

// Issue 33, defect 2: Update registers a check when it asks for one, and
// Bubble Tea runs the check's command later, or, when the learner quits
// first, never. Quitting in between must not wait for a command that will
// not run; nor must a check wait for an older one that never ran.
func TestQuitBetweenUpdateAndTheCommandDoesNotHang(t *testing.T) {
	root, all := standin.Module(t)
	e := newEnv(root, hint.MustLoad(), all)
	e.Run(runner.Check{Chapter: "01", Tier: course.Lesson, ID: 1}) // asked for, never run
	second := e.Run(runner.Check{Chapter: "01", Tier: course.Lesson, ID: 2})
	out := make(chan tea.Msg, 1)
	go func() { out <- second() }()
	select {
	case msg := <-out:
		if done, ok := msg.(runner.RunDone); !ok || done.ID != 2 {
			t.Fatalf("the second check reported %#v", msg)
		}
	case <-time.After(time.Minute):
		t.Fatal("the second check waited a minute for a first one whose command never ran")
	}
	e.Run(runner.Check{Chapter: "01", Tier: course.Lesson, ID: 3}) // asked for, then quit
	stopped := make(chan struct{})
	go func() { e.stopAll(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("quit waited 10 s for a check whose command never ran: the runner hangs on quit")
	}
}

// Issue 30: the runner starts one ZooKeeper and hands it to the lesson's
// checks, so that no check waits for a JVM of its own. Two checks get the
// same server, the full suite none (it starts its own); quitting stops it
// (its port refuses, no java child is left); a check after that falls back
// to a server of its own, and the runner is told once.
func TestTheLessonChecksShareTheRunnersServerUntilQuit(t *testing.T) {
	if !wantSharedZK(false) {
		t.Skip("ZK_SERVERS is set: the runner starts no server of its own and uses that one")
	}
	root, all := standin.Module(t)
	e := newEnv(root, hint.MustLoad(), all)
	e.zk = startSharedZK(context.Background())
	t.Cleanup(e.zk.stop)
	ctx := context.Background()

	first, _ := e.checkEnv(ctx, "04", course.Lesson)
	second, _ := e.checkEnv(ctx, "09", course.Rule)
	if e.zk.err != nil {
		t.Fatalf("the runner's server did not start: %v", e.zk.err)
	}
	addr := e.zk.srv.Servers[0]
	want := []string{"ZK_SERVERS=" + e.zk.srv.ConnectString()}
	if !slices.Equal(first, want) || !slices.Equal(second, want) {
		t.Fatalf("two checks' environments: %q and %q, want both %q", first, second, want)
	}
	if full, _ := e.checkEnv(ctx, "04", course.Full); len(full) != 0 {
		t.Errorf("the full suite's environment: %q, want none (it starts its own server)", full)
	}
	if example, _ := e.checkEnv(ctx, "02", course.Lesson); len(example) != 0 {
		t.Errorf("02's lesson, which runs ExampleLock, got %q, want none (an example writes at a fixed path)", example)
	}
	jvms := javaDescendants(t)
	if len(jvms) != 1 {
		t.Fatalf("%d java processes of ours while the server runs, want 1: %v", len(jvms), jvms)
	}

	e.stopAll()
	e.zk.stop()
	// zkserver's Close returns once its watchdog shell is gone; the JVM,
	// killed with its process group, goes a moment later, and no event
	// tells that to a process that is not its parent: ask, for 10 s.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		alive := standin.Alive(jvms[0])
		if err != nil && !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after quit: %s accepts connections: %v; the server's JVM (pid %d) runs: %v", addr, err == nil, jvms[0], alive)
		}
	}

	for i := range 2 {
		if vars, _ := e.checkEnv(ctx, "04", course.Lesson); len(vars) != 0 {
			t.Errorf("check %d after the server stopped: %q, want none (its own server)", i+1, vars)
		}
	}
	if msg := <-e.progress; msg.(runner.ZKLost).Err == nil {
		t.Errorf("the runner was told %#v, want why the server is lost", msg)
	}
	select {
	case msg := <-e.progress:
		t.Errorf("told a second time: %#v", msg)
	default:
	}
}

// javaDescendants are the java processes this one started, directly or
// not (a local ZooKeeper is java under zkserver's watchdog shell).
func javaDescendants(t *testing.T) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to list processes from")
	}
	type proc struct {
		comm string
		ppid int
	}
	procs := map[int]proc{}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces, not ")".
		s := string(b)
		open, end := strings.Index(s, "("), strings.LastIndex(s, ")")
		if open < 0 || end < open {
			continue
		}
		pid, err1 := strconv.Atoi(strings.TrimSpace(s[:open]))
		fields := strings.Fields(s[end+1:])
		if err1 != nil || len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		procs[pid] = proc{s[open+1 : end], ppid}
	}
	var pids []int
	for pid, p := range procs {
		if p.comm != "java" {
			continue
		}
		for up := p.ppid; up > 1; up = procs[up].ppid {
			if up == os.Getpid() {
				pids = append(pids, pid)
				break
			}
			if _, ok := procs[up]; !ok {
				break
			}
		}
	}
	return pids
}
