package course_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
	"github.com/lockstep-zk/lockstep/workshop/internal/standin"
)

const root = "../.."

func TestDiscoverFindsEveryChaptersExercise(t *testing.T) {
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	var chapters []string
	for _, e := range all {
		chapters = append(chapters, e.Chapter)
		for _, f := range e.Files {
			if _, err := os.Stat(filepath.Join(root, course.Reference(f))); err != nil {
				t.Errorf("%s replaces %s, which is missing", f, course.Reference(f))
			}
		}
	}
	if got := strings.Join(chapters, " "); got != "02 03 04 05 06 07 09" {
		t.Errorf("chapters with an exercise: %s", got)
	}
}

func TestWorkshopBuildGivesAnyFileTheWorkshopTag(t *testing.T) {
	for in, want := range map[string]string{
		"//go:build !workshop\n\npackage x\n": "//go:build workshop\n\npackage x\n",
		"//go:build workshop\n\npackage x\n":  "//go:build workshop\n\npackage x\n",
		"package x\n":                         "//go:build workshop\n\npackage x\n",
	} {
		if got := course.WorkshopBuild(in); got != want {
			t.Errorf("WorkshopBuild(%q) = %q, want %q", in, got, want)
		}
	}
}

// A cancelled run leaves nothing behind, whether it ran go test (a Custom
// run, the caller's flags) or the test binary it built (every other tier).
func TestACancelledRunLeavesNoProcessAndNoOverlay(t *testing.T) {
	for _, c := range []struct {
		name string
		tier course.Tier
		args []string
	}{
		{"go test, with the caller's flags", course.Custom, []string{"-run", "TestHangs", "-timeout", "10m"}},
		{"the test binary built once, under test2json", course.Full, nil},
	} {
		t.Run(c.name, func(t *testing.T) { cancelledRun(t, c.tier, c.args) })
	}
}

func cancelledRun(t *testing.T, tier course.Tier, args []string) {
	root, all := standin.Module(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // go's build directory too
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := standin.Started(ctx, t)
	done := make(chan course.Result, 1)
	go func() {
		done <- course.Run(ctx, root, all, all[0], tier, hint.MustLoad(),
			course.Options{Args: args, TempDir: tmp})
	}()
	var pids []int
	select {
	case pids = <-started:
	case r := <-done:
		t.Fatalf("the stand-in test ended before it started its children: %s\n%s", r.First, r.Output)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) == 0 {
		t.Fatal("no overlay directory while the run runs: the check below would prove nothing")
	}
	cancel()
	r := <-done
	if r.Kind == course.Pass || r.Hash != "" {
		t.Errorf("a cancelled run gave a verdict: %v, hash %q", r.Kind, r.Hash)
	}
	for i, what := range []string{"the test binary", "a child in its process group", "a child in a group of its own (a ZooKeeper under its watchdog)"} {
		if standin.Alive(pids[i]) {
			t.Errorf("%s (pid %d) outlived the cancelled run", what, pids[i])
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the overlay or go's build directory outlived the cancelled run: %v", names)
	}
}

// 05's rule tests reach readRule before writeRule, but the skeleton, its
// hints and its comments go writeRule first: what is still to write is the
// first stub left in the file, whichever one a test reached.
func TestWhatIsStillToWriteIsTheFirstStubInTheFile(t *testing.T) {
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := course.Find(all, "05")
	if err != nil {
		t.Fatal(err)
	}
	out := testJSON("TestRules", "--- FAIL: TestRules (0.00s)\npanic: TODO(workshop): readRule — a reader holds unless a writer other than our own is ahead [recovered]\n", true)
	r := course.Classify(root, ex, hint.MustLoad(), out, false)
	if r.Kind != course.Todo || course.StubName(r.Todo) != "writeRule" || r.Step != 1 {
		t.Errorf("fresh 05, a test reached readRule: %v %q step %d; want writeRule, the first stub", r.Kind, r.Todo, r.Step)
	}
	if hint.MustLoad().StepOf("05", r.Todo) == nil {
		t.Errorf("no hints for %q", r.Todo)
	}
}

// testJSON is go test -json's lines for a test that printed out (and
// failed, if fail; else the binary died in it).
func testJSON(test, out string, fail bool) string {
	var b strings.Builder
	line := func(ev map[string]string) {
		j, _ := json.Marshal(ev)
		b.Write(j)
		b.WriteByte('\n')
	}
	line(map[string]string{"Action": "run", "Test": test})
	for _, l := range strings.SplitAfter(out, "\n") {
		if l != "" {
			line(map[string]string{"Action": "output", "Test": test, "Output": l})
		}
	}
	if fail {
		line(map[string]string{"Action": "fail", "Test": test})
	}
	return b.String()
}

// A panic in a goroutine that a test started ends the test binary before
// any "--- FAIL" line: the check names the test that was running, and what
// the panic said and where in our code, instead of "no test failed".
func TestAPanicInATestsGoroutineNamesThatTest(t *testing.T) {
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := course.Find(all, "04")
	if err != nil {
		t.Fatal(err)
	}
	out := "panic: runtime error: index out of range [-2]\n\ngoroutine 41 [running]:\n" +
		"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock.First(...)\n" +
		"\t/tmp/x/acquire_workshop.go:20\n" +
		"created by github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock_test.TestAWaiterWhoseNodeIsDeletedQueuesUpAgain in goroutine 7\n" +
		"\t/work/04-sequential-lock/seqlock/nodegone_test.go:31 +0x2a5\n"
	r := course.Classify(root, ex, hint.MustLoad(), testJSON("TestAWaiterWhoseNodeIsDeletedQueuesUpAgain", out, false), false)
	if len(r.Failed) != 1 || r.Failed[0] != "TestAWaiterWhoseNodeIsDeletedQueuesUpAgain" || r.First != "panic: runtime error: index out of range [-2]\n  at seqlock.First (acquire_workshop.go:20)" {
		t.Errorf("a panic in a test's goroutine: failed %q, first %q; want the test that started it and the panic's words", r.Failed, r.First)
	}
	if r.Kind != course.Mistake || r.Mistake.ID != "ignores-list-error" {
		t.Errorf("kind %v, mistake %v; want 04's ignores-list-error named", r.Kind, r.Mistake)
	}
}

// The rule tier runs the rule's table tests, which need no ZooKeeper, and
// starts none (internal/zktest starts one only when a test asks): where no
// server can be started, it still passes, and the lesson's tier after it
// fails with the reason.
func TestTheRuleTierStartsNoZooKeeper(t *testing.T) {
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := course.Find(all, "04")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(root)
	table := hint.MustLoad()
	noServer := course.Options{Solution: true, Env: []string{"ZK_SERVERS=", "LOCKSTEP_ZK=podman"}}
	r := course.Run(context.Background(), abs, all, ex, course.Rule, table, noServer)
	if r.Kind != course.Pass {
		t.Fatalf("04's rule tier where no ZooKeeper can start: %v %s; want it to pass without one\n%s", r.Kind, r.First, r.Output)
	}
	r = course.Run(context.Background(), abs, all, ex, course.Lesson, table, noServer)
	if r.Kind == course.Pass || r.Tier != course.Lesson || !strings.Contains(r.First, "want docker or local") {
		t.Errorf("04's lesson tier where no ZooKeeper can start: %v in the %v tier, %q; want the lesson's first test to fail saying why\n%s", r.Kind, r.Tier, r.First, r.Output)
	}
}
