package runner

import (
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// Every lesson test's line (tests.json) names the exercise step whose
// contract it checks, so that h has hints for any failure of it.
func TestEveryLessonTestNamesItsStep(t *testing.T) {
	table := hint.MustLoad()
	for _, l := range table.Tests {
		if table.StepOfTest(l.Chapter, l.Test) == nil {
			t.Errorf("tests.json: %s %s: its step %q is no exercise step of chapter %s (hints.json's steps)", l.Chapter, l.Test, l.Step, l.Chapter)
		}
	}
}

// A failure no mistake row knows: the screen says what the test checks,
// in the learner's language, and h gives the staged hints of the step
// that test checks, not "no hint".
func TestHOnAFailureNoRowKnowsShowsTheHintsOfItsTestsStep(t *testing.T) {
	table := hint.MustLoad()
	const test = "TestOnlyTheRightWaitersWake"
	step, line := table.StepOfTest("05", test), table.TestLine("05", test)
	if step == nil || line == nil {
		t.Fatalf("05's %s has no step or no line in tests.json", test)
	}
	m := newModel(t, &fakeEnv{}, "en")
	failing := course.Result{Tier: course.Lesson, Kind: course.Failing, Failed: []string{test + "/a_release_wakes_only_the_waiters_it_lets_in"},
		First: "a writer's release woke 3 readers, want 2"}
	m = update(m, key("down"), key("down"), key("down"), key("enter"), RunDone{Chapter: "05", Result: failing})
	flat := func(v string) string { return strings.Join(strings.Fields(v), " ") }
	if v := flat(m.View()); !strings.Contains(v, flat(line.EN)) || strings.Contains(v, "hint 1/") {
		t.Fatalf("before h: want the test's line and no hint yet:\n%s", m.View())
	}
	m = update(m, key("h"))
	v := flat(m.View())
	if strings.Contains(v, "no hint") || !strings.Contains(v, "hint 1/3") || !strings.Contains(v, flat(step.Hint(0, "en"))[:40]) || strings.Contains(v, "hint 2/3") {
		t.Fatalf("after h: want hint 1/3 of 05's %s step, and no other:\n%s", strings.Fields(step.Todo)[0], m.View())
	}
	m = update(m, key("h"), key("l"))
	v = flat(m.View())
	if !strings.Contains(v, flat(line.ZH)) || !strings.Contains(v, "提示 2/3") {
		t.Errorf("after h and l: want the test's line and hint 2/3 in Chinese:\n%s", m.View())
	}
}
