package docs

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A chapter's README is a lesson read top to bottom (docs/STYLE: the
// problem, the steps, the run, the flaw and its test); hardening, history
// and numbers go under "## Going further". Two checks keep it that way.
//
// The budget: at most lessonBudget English words before Going further. A
// word is a run of non-space characters with a Latin letter in it, outside
// fenced code blocks (a transcript is read, but it is the run, not prose);
// the Chinese summary under the title has none, so it costs nothing.
//
// The order: a learner sees the lock run before the machinery of sessions.
// In 04 the first code block and the `go run` transcript come before the
// first "d/6", the rule that tells a holder when to stop believing it holds.

const lessonBudget = 1800

var latinWord = regexp.MustCompile(`[A-Za-z]`)

// lessonWords counts the English words of a README before Going further,
// outside fenced code blocks.
func lessonWords(text string) int {
	n := 0
	forEachProseLine(before(text, goingFurther), func(_ int, line string) {
		for _, w := range strings.Fields(line) {
			if latinWord.MatchString(w) {
				n++
			}
		}
	})
	return n
}

func TestEveryChapterLessonFitsItsWordBudget(t *testing.T) {
	for _, ch := range chapters(t) {
		text := readRoot(t, filepath.Join(ch, "README.md"))
		if !strings.Contains(text, "\n"+goingFurther+"\n") {
			t.Errorf("%s/README.md has no %q section: where do its numbers and history go?", ch, goingFurther)
		}
		if n := lessonWords(text); n > lessonBudget {
			t.Errorf("%s/README.md: %d English words before %q, the budget is %d: move hardening, history and numbers under it", ch, n, goingFurther, lessonBudget)
		} else {
			t.Logf("%s: %d words before %q", ch, n, goingFurther)
		}
	}
}

func TestTheSequentialLockRunsBeforeItsSessionRule(t *testing.T) {
	if err := runBeforeRule(readRoot(t, filepath.Join("04-sequential-lock", "README.md")), "d/6"); err != nil {
		t.Errorf("04-sequential-lock/README.md: %v", err)
	}
}

// runBeforeRule says whether the first fenced code block and the first
// block holding a `go run` come before the first mention of rule.
func runBeforeRule(text, rule string) error {
	lines := strings.Split(text, "\n")
	firstBlock, firstRun, firstRule := -1, -1, -1
	inBlock := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if !inBlock && firstBlock < 0 {
				firstBlock = i
			}
			inBlock = !inBlock
			continue
		}
		if inBlock && firstRun < 0 && strings.Contains(line, "$ go run ") {
			firstRun = i
		}
		if firstRule < 0 && strings.Contains(line, rule) {
			firstRule = i
		}
	}
	switch {
	case firstBlock < 0 || firstRun < 0:
		return fmt.Errorf("no code block with a `$ go run` transcript: the lesson should show the lock running")
	case firstRule < 0:
		return nil
	case firstBlock > firstRule:
		return fmt.Errorf("%q on line %d comes before the first code block (line %d): run the lock first, then explain its session", rule, firstRule+1, firstBlock+1)
	case firstRun > firstRule:
		return fmt.Errorf("%q on line %d comes before the `go run` transcript (line %d): the learner meets the rule before seeing the queue run", rule, firstRule+1, firstRun+1)
	}
	return nil
}

func TestTheLessonChecksCatchWhatTheyShould(t *testing.T) {
	lesson := "# 01\n\n> **中文摘要**：很多中文字。\n\nOne two three.\n\n```text\n$ go run ./x\nnot counted here\n```\n\nFour five `six`.\n\n" + goingFurther + "\n\nseven eight\n"
	if n := lessonWords(lesson); n != 6 {
		t.Errorf("lessonWords = %d, want 6 (prose before Going further, not the summary, the code block or what follows)", n)
	}
	if err := runBeforeRule(lesson, "d/6"); err != nil {
		t.Errorf("a lesson without the rule: %v", err)
	}
	for name, text := range map[string]string{
		"the rule before any code":         "# 04\n\nWait d/6.\n\n```\n/locks\n```\n\n```text\n$ go run ./04\n```\n",
		"the rule between diagram and run": "# 04\n\n```\n/locks\n```\n\nWait d/6.\n\n```text\n$ go run ./04\n```\n",
		"no run at all":                    "# 04\n\n```\n/locks\n```\n",
	} {
		if err := runBeforeRule(text, "d/6"); err == nil {
			t.Errorf("%s: the order check passed", name)
		}
	}
}
