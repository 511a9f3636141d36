// Package hint is the workshop's mistakes table as data (hints.json): for
// each chapter, the lesson's tests (the tier that runs first), and for each
// classic mistake, the failing test and message that give it away, its
// name in the lesson's words, three staged hints (a nudge, the reason, the
// near-solution) in English and Chinese, and the mistake itself as a patch
// of the reference file, which the tests apply to prove the row is true.
// The runner (go run ./workshop), the non-interactive check
// (scripts/exercise) and the facilitator's table in docs/workshop.md all
// read this one table.
package hint

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

//go:embed hints.json
var raw []byte

// tests.json: what each lesson test checks, one sentence in each language.
//
//go:embed tests.json
var rawTests []byte

// Text is one text in the workshop's two languages.
type Text struct {
	EN string `json:"en"`
	ZH string `json:"zh"`
}

// In returns the text in lang ("zh" or anything else for English).
func (t Text) In(lang string) string {
	if lang == "zh" && t.ZH != "" {
		return t.ZH
	}
	return t.EN
}

// Patch is a literal replacement: Old occurs exactly once in File.
type Patch struct {
	File string `json:"file"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// Apply returns src with the patch applied, or an error if Old does not
// occur exactly once (the reference changed: the row must follow it).
func (p Patch) Apply(src string) (string, error) {
	if n := strings.Count(src, p.Old); n != 1 {
		return "", fmt.Errorf("patch for %s: the text to replace occurs %d times, want 1", p.File, n)
	}
	return strings.Replace(src, p.Old, p.New, 1), nil
}

// Mistake is one row of the table.
type Mistake struct {
	Chapter string `json:"chapter"`
	ID      string `json:"id"`
	Name    Text   `json:"name"`
	// Tests matches the name of a failing test as go test prints it
	// (subtests with _ for spaces); Says must match that test's own
	// output (its lines and its subtests', never another test's). A row
	// whose Says is empty never matches: a test's name alone does not say
	// which mistake made it fail.
	Tests string `json:"tests"`
	Says  string `json:"says"`
	Hints Hints  `json:"hints"`
	Patch Patch  `json:"patch"`
	// Caught is false for a mistake no test catches: the row is for the
	// facilitator (what to ask), and the check never names it.
	Caught bool `json:"caught"`
	// Tier is where the mistake first shows: "lesson" (the lesson's
	// tests) or "full" (the lesson's tests pass; the full suite fails).
	Tier string `json:"tier"`
	// Guide is what the tests say, in the facilitator's table; GuideZH
	// says it in Chinese (the tests' own words stay as they print them),
	// for docs/workshop.zh-CN.md's table.
	Guide   string `json:"guide"`
	GuideZH string `json:"guide_zh"`

	tests, says *regexp.Regexp
}

// Hints are a mistake's or a step's staged hints (0: the nudge, 1: the
// reason, 2: the near-solution), in English and 中文.
type Hints struct {
	EN []string `json:"en"`
	ZH []string `json:"zh"`
}

// Hint returns the hint of stage i in lang; past the last stage, the last
// one.
func (h Hints) Hint(i int, lang string) string {
	in := h.EN
	if lang == "zh" && len(h.ZH) == len(in) {
		in = h.ZH
	}
	if len(in) == 0 {
		return ""
	}
	return in[min(max(i, 0), len(in)-1)]
}

// Stages is the number of hints.
func (h Hints) Stages() int { return len(h.EN) }

// Hint returns the mistake's hint of stage i in lang (Hints.Hint).
func (m *Mistake) Hint(i int, lang string) string { return m.Hints.Hint(i, lang) }

// Stages is the number of hints of the mistake.
func (m *Mistake) Stages() int { return m.Hints.Stages() }

// Chapter is a chapter's tiers.
type Chapter struct {
	Chapter string `json:"chapter"`
	// Lesson is the -run pattern of the lesson's tests: the rule's table
	// test and the one or two tests of the lesson, a few seconds in all.
	Lesson string `json:"lesson"`
	// Rule, if set, is the -run pattern of the rule's table tests (no
	// ZooKeeper, a second or so): they run before the lesson's others,
	// and the check stops there when one fails.
	Rule string `json:"rule,omitempty"`
}

// Step is one TODO(workshop) stub: its goal and what must hold once it is
// written, in both languages (the runner shows them for the stub the
// learner is on), and its staged hints, which say which calls, and why.
// Goal.EN is the stub's own message, word for word (a test keeps the two
// in step).
type Step struct {
	Chapter string `json:"chapter"`
	// Todo is how the stub's message starts, after "TODO(workshop): ".
	Todo  string `json:"todo"`
	Goal  Text   `json:"goal"`
	Holds Text   `json:"holds"`
	Hints Hints  `json:"hints"`
}

// GoalIn returns the step's goal in lang. The English goal is the stub's
// message word for word, which names the lesson's page in both languages
// ("(step 3 of 05-rwlock/README.md / README.zh-CN.md 第 3 步)"); on the
// English screen only the English page is named.
func (s *Step) GoalIn(lang string) string {
	g := s.Goal.In(lang)
	if lang == "zh" {
		return g
	}
	return chinesePage.ReplaceAllString(g, ")")
}

var chinesePage = regexp.MustCompile(` / README\.zh-CN\.md[^)]*\)$`)

// Hint returns the step's hint of stage i in lang (Hints.Hint).
func (s *Step) Hint(i int, lang string) string { return s.Hints.Hint(i, lang) }

// Stages is the number of hints of the step.
func (s *Step) Stages() int { return s.Hints.Stages() }

// Table is the whole table.
type Table struct {
	Chapters []Chapter `json:"chapters"`
	Steps    []Step    `json:"steps"`
	Mistakes []Mistake `json:"mistakes"`
	// Tests is tests.json: a sentence for each lesson test.
	Tests []TestLine `json:"-"`
}

// TestLine is what one lesson test checks, in the lesson's words (tests.json):
// a failure no mistake row knows still gets a sentence in the learner's
// language above the test's own message.
type TestLine struct {
	Chapter string `json:"chapter"`
	Test    string `json:"test"`
	// Step names the exercise step whose contract the test checks (its
	// stub's function: "readRule"): when no mistake row knows a failure,
	// h shows that step's hints.
	Step string `json:"step"`
	Text
}

// TestLine returns what chapter's test checks (a subtest: its test's
// line), or nil.
func (t *Table) TestLine(chapter, test string) *Text {
	top, _, _ := strings.Cut(test, "/")
	for i := range t.Tests {
		if l := &t.Tests[i]; l.Chapter == chapter && l.Test == top {
			return &l.Text
		}
	}
	return nil
}

// StepOfTest returns the exercise step whose contract chapter's test
// checks (tests.json's "step"; a subtest: its test's), or nil.
func (t *Table) StepOfTest(chapter, test string) *Step {
	top, _, _ := strings.Cut(test, "/")
	for _, l := range t.Tests {
		if l.Chapter != chapter || l.Test != top || l.Step == "" {
			continue
		}
		for i := range t.Steps {
			if s := &t.Steps[i]; s.Chapter == chapter && strings.HasPrefix(s.Todo, l.Step+" —") {
				return s
			}
		}
	}
	return nil
}

// StepOf returns the hints of the stub whose message is todo, or nil.
func (t *Table) StepOf(chapter, todo string) *Step {
	todo = strings.TrimPrefix(todo, "TODO(workshop): ")
	for i := range t.Steps {
		if s := &t.Steps[i]; s.Chapter == chapter && strings.HasPrefix(todo, s.Todo) {
			return s
		}
	}
	return nil
}

// Load parses the embedded table and its tests' lines.
func Load() (*Table, error) {
	t, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(rawTests, &t.Tests); err != nil {
		return nil, fmt.Errorf("hint: parse tests.json: %w", err)
	}
	return t, nil
}

// Parse parses a table and compiles its patterns.
func Parse(b []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("hint: parse hints.json: %w", err)
	}
	for i := range t.Mistakes {
		m := &t.Mistakes[i]
		var err error
		if m.tests, err = regexp.Compile(m.Tests); err != nil {
			return nil, fmt.Errorf("hint: %s/%s: tests: %w", m.Chapter, m.ID, err)
		}
		if m.says, err = regexp.Compile(m.Says); err != nil {
			return nil, fmt.Errorf("hint: %s/%s: says: %w", m.Chapter, m.ID, err)
		}
		if len(m.Hints.EN) != 3 || len(m.Hints.ZH) != 3 {
			return nil, fmt.Errorf("hint: %s/%s: want 3 hints in en and zh, have %d and %d", m.Chapter, m.ID, len(m.Hints.EN), len(m.Hints.ZH))
		}
	}
	for _, s := range t.Steps {
		if len(s.Hints.EN) != 3 || len(s.Hints.ZH) != 3 {
			return nil, fmt.Errorf("hint: step %s %q: want 3 hints in en and zh", s.Chapter, s.Todo)
		}
		if s.Goal.EN == "" || s.Goal.ZH == "" || s.Holds.EN == "" || s.Holds.ZH == "" {
			return nil, fmt.Errorf("hint: step %s %q: want its goal and what must hold in en and zh", s.Chapter, s.Todo)
		}
	}
	return &t, nil
}

// MustLoad is Load for the programs whose table is built in.
func MustLoad() *Table {
	t, err := Load()
	if err != nil {
		panic(err)
	}
	return t
}

// Lesson returns the chapter's lesson pattern, "" if it has none.
func (t *Table) Lesson(chapter string) string {
	for _, c := range t.Chapters {
		if c.Chapter == chapter {
			return c.Lesson
		}
	}
	return ""
}

// Rule returns the chapter's rule pattern, "" if it has none.
func (t *Table) Rule(chapter string) string {
	for _, c := range t.Chapters {
		if c.Chapter == chapter {
			return c.Rule
		}
	}
	return ""
}

// Find returns the row chapter/id, or nil.
func (t *Table) Find(chapter, id string) *Mistake {
	for i := range t.Mistakes {
		if m := &t.Mistakes[i]; m.Chapter == chapter && m.ID == id {
			return m
		}
	}
	return nil
}

// Match returns the first caught mistake of chapter whose test is a
// failing test (failed, in the order go test reported them) and whose
// message appears in that test's own output (said(test)); nil if none does.
func (t *Table) Match(chapter string, failed []string, said func(test string) string) *Mistake {
	for _, name := range failed {
		out := said(name)
		for i := range t.Mistakes {
			m := &t.Mistakes[i]
			if m.Chapter != chapter || !m.Caught || m.Tests == "" || m.Says == "" || !m.tests.MatchString(name) {
				continue
			}
			if m.says.MatchString(out) {
				return m
			}
		}
	}
	return nil
}
