package course_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// The failing tests of a tiny module, run for real through go test -json:
// what the check shows for each is the test's own failure, never its logs.
const failingTests = `package x

import (
	"fmt"
	"testing"
)

func TestLogsThenFails(t *testing.T) {
	t.Logf("re-entry after expiry: re-entry refused: lock lost")
	t.Errorf("Unlock of a lost lock: want an error wrapping ErrLost,\ngot nil")
	t.Logf("a log after the failure")
}

func TestHelperFails(t *testing.T) {
	t.Log("waiting for the second holder")
	eventually(t, "the second Acquire got lease 2 of 1")
}

func eventually(t *testing.T, msg string) {
	t.Helper()
	t.Fatal(msg)
}

func TestSubtestFails(t *testing.T) {
	t.Run("two clients never hold the lock at once", func(t *testing.T) {
		t.Log("round 1")
		t.Fatalf("2 holders at once")
	})
}

func TestPanics(t *testing.T) {
	Lock()
}

func TestGoroutinePanics(t *testing.T) {
	done := make(chan bool)
	go func() { Lock(); done <- true }()
	<-done
}

func TestWaitsForEver(t *testing.T) {
	t.Log("waiting for the second holder")
	select {}
}

func TestPassesAndLogs(t *testing.T) {
	t.Log("a passing test's log")
}

func TestOnlyLogs(t *testing.T) {
	t.Log("just a log")
	t.Fail()
}

func ExampleLock() {
	fmt.Println("acquired")
	// Output:
	// waiting
	// acquired
}
`

const lockFile = `package x

func Lock() {
	var m map[string]int
	m["x"]++
}
`

// failingModule writes a module with one exercise (chapter "01") whose
// tests fail in each way a check must explain, and a hint table whose
// lesson is those tests and whose rule is TestRule.
func failingModule(t *testing.T, extra map[string]string) (string, []course.Exercise, *hint.Table) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                  "module example.com/m\n\ngo 1.22\n",
		"01-x/x/lock.go":          "//go:build !workshop\n\n" + lockFile,
		"01-x/x/lock_workshop.go": "//go:build workshop\n\n" + lockFile,
		"01-x/x/x_test.go":        failingTests,
	}
	for name, body := range extra {
		files[name] = body
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	table, err := hint.Parse([]byte(`{"chapters": [{"chapter": "01", "lesson": "^Test", "rule": "^TestRule$"}], "mistakes": [
		{"chapter": "01", "id": "unlock-lost", "caught": true, "tests": "TestLogsThenFails", "says": "want an error wrapping ErrLost",
		 "hints": {"en": ["a", "b", "c"], "zh": ["a", "b", "c"]}},
		{"chapter": "01", "id": "elsewhere", "caught": true, "tests": "TestSubtestFails", "says": "want an error wrapping ErrLost",
		 "hints": {"en": ["a", "b", "c"], "zh": ["a", "b", "c"]}},
		{"chapter": "01", "id": "by-name-only", "caught": true, "tests": "TestHelperFails", "says": "",
		 "hints": {"en": ["a", "b", "c"], "zh": ["a", "b", "c"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return root, all, table
}

func TestTheCheckShowsTheFailingTestsOwnWords(t *testing.T) {
	root, all, table := failingModule(t, nil)
	for _, c := range []struct {
		name, test, want, notWant string
	}{
		{"a test that logs, then fails, then logs: its failure", "TestLogsThenFails",
			"Unlock of a lost lock: want an error wrapping ErrLost,\ngot nil", "re-entry refused"},
		{"a helper's t.Fatal (its caller's line): the failure, not the log before it", "TestHelperFails",
			"the second Acquire got lease 2 of 1", "waiting"},
		{"a subtest's failure, named by the subtest", "TestSubtestFails/two_clients_never_hold_the_lock_at_once",
			"2 holders at once", "round 1"},
		{"a panic: its first line and the first frame of ours", "TestPanics",
			"panic: assignment to entry in nil map\n  at x.Lock (lock_workshop.go:", ""},
		{"a panic in a goroutine a test started: that test, the panic and our frame", "TestGoroutinePanics",
			"panic: assignment to entry in nil map\n  at x.Lock (lock_workshop.go:", ""},
		{"a test that only logs: its last log", "TestOnlyLogs", "just a log", ""},
		{"a test -timeout ended: the timeout, then what the test said last", "TestWaitsForEver",
			"panic: test timed out after 2s\nwaiting for the second holder", ""},
		{"an Example: its got and want", "ExampleLock", "got:\nacquired\nwant:\nwaiting\nacquired", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := strings.SplitN(c.test, "/", 2)[0]
			r := course.Run(context.Background(), root, all, all[0], course.Custom, table,
				course.Options{Args: []string{"-run", "^" + run + "$", "-timeout", "2s"}})
			if r.Kind == course.Pass || len(r.Failed) == 0 || r.Failed[0] != c.test {
				t.Fatalf("%v, failed %q; want %s named\n%s", r.Kind, r.Failed, c.test, r.Output)
			}
			if !strings.HasPrefix(r.First, c.want) {
				t.Errorf("the failure shown is\n%s\nwant it to start with\n%s\n(the whole output:\n%s)", r.First, c.want, r.Output)
			}
			if c.notWant != "" && strings.Contains(r.First, c.notWant) {
				t.Errorf("the failure shown is a log line: %q", r.First)
			}
		})
	}
}

// 06's "want an error wrapping ErrLost" once named a re-entry mistake for
// an Unlock failure: a row matches only the failing test's own lines.
func TestAMistakeIsMatchedAgainstTheFailingTestsOwnOutput(t *testing.T) {
	root, all, table := failingModule(t, nil)
	run := func(pattern string) course.Result {
		return course.Run(context.Background(), root, all, all[0], course.Custom, table,
			course.Options{Args: []string{"-run", pattern}})
	}
	if r := run("^TestLogsThenFails$"); r.Kind != course.Mistake || r.Mistake.ID != "unlock-lost" {
		t.Errorf("TestLogsThenFails, which says the row's words: %v %v; want unlock-lost", r.Kind, r.Mistake)
	}
	// Both run, without -failfast: the words are in the output, but not
	// in TestSubtestFails's own lines.
	if r := run("^(TestLogsThenFails|TestSubtestFails)$"); r.Kind == course.Mistake && r.Mistake.ID == "elsewhere" {
		t.Errorf("TestSubtestFails was named by another test's words: %v", r.Mistake.ID)
	}
	if r := run("^TestHelperFails$"); r.Kind != course.Failing {
		t.Errorf("a row with no words matched by its test's name alone: %v %v", r.Kind, r.Mistake)
	}
}

func TestAnExerciseFileWithoutItsBuildLineIsAClearError(t *testing.T) {
	root, all, table := failingModule(t, map[string]string{"01-x/x/lock_workshop.go": lockFile})
	r := course.Run(context.Background(), root, all, all[0], course.Lesson, table, course.Options{})
	if r.Kind != course.NoBuild || !strings.Contains(r.First, "01-x/x/lock_workshop.go") || !strings.Contains(r.First, "//go:build workshop") {
		t.Errorf("no build line: %v %q; want a build error naming the file and the line to put back", r.Kind, r.First)
	}
}

func TestABuildErrorShowsItsFirstLines(t *testing.T) {
	root, all, table := failingModule(t, map[string]string{"01-x/x/lock_workshop.go": "//go:build workshop\n\npackage x\n\nfunc Lock() { undefinedThing() }\n"})
	r := course.Run(context.Background(), root, all, all[0], course.Lesson, table, course.Options{})
	if r.Kind != course.NoBuild || !strings.Contains(r.First, "lock_workshop.go:5") || !strings.Contains(r.First, "undefinedThing") {
		t.Errorf("a build error: %v %q; want the compiler's line\n%s", r.Kind, r.First, r.Output)
	}
}

// The rule's table tests run first, and a failure there stops the check
// before the lesson's slower tests.
func TestTheRulesTestsRunFirstAndStopTheCheck(t *testing.T) {
	root, all, table := failingModule(t, map[string]string{"01-x/x/rule_test.go": "package x\n\nimport \"testing\"\n\nfunc TestRule(t *testing.T) { t.Fatal(\"Leases(1) at index 1 = (true, \\\"\\\")\") }\n"})
	r := course.Run(context.Background(), root, all, all[0], course.Lesson, table, course.Options{})
	if r.Tier != course.Rule || len(r.Failed) != 1 || r.Failed[0] != "TestRule" || !strings.Contains(r.First, "Leases(1) at index 1") {
		t.Errorf("tier %v, failed %q, %q; want the rule's tier stopped at TestRule", r.Tier, r.Failed, r.First)
	}
	if strings.Contains(r.Output, "TestLogsThenFails") {
		t.Errorf("the lesson's tests ran after the rule failed:\n%s", r.Output)
	}
}

// The check reads -json, which runs the tests verbosely; what it prints as
// it goes is what go test without -v prints: a failing test's lines, not a
// passing test's, and no === framing.
func TestWhatTheCheckPrintsIsGoTestsPlainOutput(t *testing.T) {
	root, all, table := failingModule(t, nil)
	var out bytes.Buffer
	r := course.Run(context.Background(), root, all, all[0], course.Custom, table,
		course.Options{Args: []string{"-run", "^(TestPassesAndLogs|TestLogsThenFails)$"}, Out: &out})
	got := out.String()
	for _, want := range []string{"re-entry refused: lock lost", "want an error wrapping ErrLost", "--- FAIL: TestLogsThenFails", "FAIL\texample.com/m/01-x/x"} {
		if !strings.Contains(got, want) {
			t.Errorf("printed no %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"a passing test's log", "=== RUN", "--- PASS"} {
		if strings.Contains(got, not) {
			t.Errorf("printed %q, which go test without -v does not:\n%s", not, got)
		}
	}
	if !strings.Contains(r.Output, "a passing test's log") {
		t.Errorf("the whole output (o) lost a passing test's log:\n%s", r.Output)
	}
}
