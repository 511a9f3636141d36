package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
