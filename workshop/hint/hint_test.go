package hint_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/hint"
)

const root = "../.."

func TestEveryRowIsComplete(t *testing.T) {
	table, err := hint.Load()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range table.Mistakes {
		key := m.Chapter + "/" + m.ID
		if seen[key] {
			t.Errorf("%s: two rows", key)
		}
		seen[key] = true
		if m.Name.EN == "" || m.Name.ZH == "" || m.Guide == "" {
			t.Errorf("%s: a name in both languages and the guide's words are required", key)
		}
		if m.Caught && (m.Tests == "" || table.Lesson(m.Chapter) == "") {
			t.Errorf("%s: a caught mistake needs its test and a lesson tier for its chapter", key)
		}
		if m.Caught && m.Says == "" {
			t.Errorf("%s: a caught mistake needs what its test says (\"says\"): a test's name alone never names a mistake, and a row without it is never matched", key)
		}
	}
}

// TestEveryPatchAppliesToItsReference: each mistake is a literal change of
// the reference file, found exactly once, so the row can be tried for real
// (workshop/course's TestEveryMistakeGivesItsHint does).
func TestEveryPatchAppliesToItsReference(t *testing.T) {
	table := hint.MustLoad()
	for _, m := range table.Mistakes {
		t.Run(m.Chapter+"/"+m.ID, func(t *testing.T) {
			if !strings.HasSuffix(m.Patch.File, ".go") || strings.HasSuffix(m.Patch.File, "_workshop.go") {
				t.Fatalf("patch file %q: want the reference file", m.Patch.File)
			}
			b, err := os.ReadFile(filepath.Join(root, m.Patch.File))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Patch.Apply(string(b)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTheGuideTableIsTheHintData: docs/workshop.md's mistakes table is
// go run ./workshop -mistakes-table, and docs/workshop.zh-CN.md's is
// go run ./workshop -mistakes-table -lang zh, each between its two markers;
// every row says what the tests say in both languages (a new row needs its
// name.zh and its guide_zh, nothing else: the Chinese table follows).
func TestTheGuideTableIsTheHintData(t *testing.T) {
	table := hint.MustLoad()
	for _, m := range table.Mistakes {
		if strings.TrimSpace(m.GuideZH) == "" {
			t.Errorf("workshop/hint/hints.json: the row %s %q has no guide_zh: say in Chinese what its guide says (the tests' own words as they print them), for docs/workshop.zh-CN.md's table", m.Chapter, m.ID)
		}
		if strings.TrimSpace(m.Name.ZH) == "" {
			t.Errorf("workshop/hint/hints.json: the row %s %q has no name.zh", m.Chapter, m.ID)
		}
	}
	re := regexp.MustCompile(`(?s)<!-- mistakes-table: begin[^>]*-->\n(.*?)<!-- mistakes-table: end -->`)
	for _, page := range []struct{ file, lang, cmd string }{
		{"workshop.md", "en", "go run ./workshop -mistakes-table"},
		{"workshop.zh-CN.md", "zh", "go run ./workshop -mistakes-table -lang zh"},
	} {
		b, err := os.ReadFile(filepath.Join(root, "docs", page.file))
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(b)
		if m == nil {
			t.Errorf("docs/%s has no <!-- mistakes-table: begin --> … <!-- mistakes-table: end --> block", page.file)
			continue
		}
		if got, want := string(m[1]), table.MarkdownIn(page.lang); got != want {
			t.Errorf("docs/%s's mistakes table differs from the hint data: replace it with the output of %s\n--- docs:\n%s\n--- data:\n%s", page.file, page.cmd, got, want)
		}
	}
}

// TestEveryStubHasItsHints: each TODO(workshop) of every exercise file has
// its row in the steps table (its goal, what must hold, its staged hints),
// whose English goal is the stub's message word for word; and every row
// has its stub. When a skeleton changes, this test names the row to add,
// fix or remove in hints.json.
func TestEveryStubHasItsHints(t *testing.T) {
	table := hint.MustLoad()
	files, _ := filepath.Glob(filepath.Join(root, "[0-9][0-9]-*", "*", "*_workshop.go"))
	stub := regexp.MustCompile(`panic\("TODO\(workshop\): ([^"]*)"\)`)
	used := map[*hint.Step]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ch := filepath.Base(filepath.Dir(filepath.Dir(f)))[:2]
		for _, m := range stub.FindAllStringSubmatch(string(b), -1) {
			s := table.StepOf(ch, m[1])
			switch {
			case s == nil:
				t.Errorf("%s: no row in workshop/hint/hints.json's steps for chapter %s's stub %q: add one (todo, goal, holds, hints)", f, ch, m[1])
			case s.Goal.EN != m[1]:
				t.Errorf("%s: the row %s %q says the goal is\n\t%q\nbut the stub says\n\t%q\nmake the row's goal.en (and goal.zh) say what the stub says", f, ch, s.Todo, s.Goal.EN, m[1])
			}
			if s != nil {
				used[s] = true
			}
		}
	}
	if len(used) == 0 {
		t.Fatal("found no stubs")
	}
	for i := range table.Steps {
		if s := &table.Steps[i]; !used[s] {
			t.Errorf("workshop/hint/hints.json: the row %s %q has no stub in chapter %s's exercise files: remove it, or rename it after its stub", s.Chapter, s.Todo, s.Chapter)
		}
	}
}

// TestEveryLessonTestHasItsLine: each test a chapter's rule or lesson
// pattern names has its sentence in tests.json, in English and Chinese, and
// each sentence is for a test the patterns name: a failure no mistake row
// knows still says, in the learner's language, what the test checks.
func TestEveryLessonTestHasItsLine(t *testing.T) {
	table := hint.MustLoad()
	names := regexp.MustCompile(`(?:Test|Example)\w*`)
	named := map[string]bool{}
	for _, c := range table.Chapters {
		for _, n := range names.FindAllString(c.Rule+" "+c.Lesson, -1) {
			if named[c.Chapter+" "+n] {
				continue // in the rule's pattern and the lesson's
			}
			named[c.Chapter+" "+n] = true
			l := table.TestLine(c.Chapter, n)
			switch {
			case l == nil:
				t.Errorf("chapter %s's %s has no line in workshop/hint/tests.json: add what it checks, in the lesson's words (en and zh)", c.Chapter, n)
			case l.EN == "" || l.ZH == "":
				t.Errorf("chapter %s's %s: its line needs en and zh", c.Chapter, n)
			}
		}
	}
	if len(named) == 0 {
		t.Fatal("no test named in hints.json's chapters")
	}
	for _, l := range table.Tests {
		if !named[l.Chapter+" "+l.Test] {
			t.Errorf("workshop/hint/tests.json: %s %s is not a lesson test of its chapter (hints.json's rule and lesson): remove it or rename it", l.Chapter, l.Test)
		}
	}
}
