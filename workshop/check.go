package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

// check is the non-interactive check (scripts/exercise NN, make exercise
// CH=NN): the lesson's tests, then the full suite if they pass, and one
// final line that says what the learner should do next. It returns the
// exit status. In a class (c not nil) the tests run on the class's
// ZooKeeper, in the learner's subtree, and the verdict on the learner's own
// files is reported to the class.
func check(ctx context.Context, w io.Writer, root, ch, from string, solution bool, args []string, lang string, c *class) int {
	table := hint.MustLoad()
	all, ex, err := findExercise(root, ch)
	if err != nil {
		fmt.Fprintln(w, "exercise:", err)
		return 2
	}
	if from != "" {
		if from, err = filepath.Abs(from); err != nil {
			fmt.Fprintln(w, "exercise:", err)
			return 2
		}
	}
	opts := course.Options{From: from, Solution: solution, Args: args, Out: w}
	t := runner.Words(lang)
	if c != nil {
		opts.Env, opts.SkipExamples = c.Env(), true
		fmt.Fprintf(w, t.ClassHead+"\n", strings.Join(c.servers, ","), c.name, c.Workspace())
	}
	whose := fmt.Sprintf(t.HeadYours, names(ex.Files))
	switch {
	case solution:
		whose = t.HeadReference
	case from != "":
		whose = fmt.Sprintf(t.HeadCopy, from, names(ex.Files))
	}
	var r course.Result
	var times []string
	if len(args) > 0 {
		fmt.Fprintf(w, t.HeadCustom+"\n", ex.Dir, strings.Join(args, " "), whose)
		r = course.Run(ctx, root, all, ex, course.Custom, table, opts)
	} else {
		if rule := table.Rule(ex.Chapter); rule != "" {
			fmt.Fprintf(w, t.HeadRule+"\n", ex.Dir, rule, table.Lesson(ex.Chapter), whose)
		} else {
			fmt.Fprintf(w, t.HeadLesson+"\n", ex.Dir, table.Lesson(ex.Chapter), whose)
		}
		r = course.Run(ctx, root, all, ex, course.Lesson, table, opts)
		if r.Tier == course.Rule {
			times = append(times, t.Tiers[course.Rule]+" "+r.Elapsed.Round(100*time.Millisecond).String())
		} else {
			times = append(times, fmt.Sprintf(t.TimeLesson, r.Elapsed.Round(100*time.Millisecond)))
		}
		if r.Kind == course.Pass {
			fmt.Fprintf(w, t.HeadFull+"\n", ex.Dir, r.Elapsed.Round(100*time.Millisecond))
			r = course.Run(ctx, root, all, ex, course.Full, table, opts)
			times = append(times, fmt.Sprintf(t.TimeFull, r.Elapsed.Round(100*time.Millisecond)))
		}
	}
	own := from == "" && !solution && len(args) == 0
	if own {
		// Progress is the learner's own files': a scratch copy's or the
		// reference's run leaves it alone.
		if st, err := course.LoadState(root); err == nil {
			cs := st.Record(ex.Chapter, r)
			_ = st.Save(root)
			if c != nil {
				untouched := newEnv(root, table, all).isSkeleton(ex)
				if err := c.Report(ctx, ex.Chapter, *cs, untouched); err != nil {
					fmt.Fprintf(w, t.ClassNotSent+"\n", err)
				}
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, Verdict(ex, r, lang, strings.Join(times, t.TimesSep), own))
	if r.Kind == course.Pass && r.Hash != "" {
		return 0
	}
	return 1
}

// Verdict is the check's final line, in lang. After a check of the learner's
// own files (own) it points at --hint and VISUAL=1, which read the saved
// progress and those files; after any other check (a scratch copy, the
// reference, the learner's own go test flags) a named mistake brings its
// first hint along instead, and no pointer leads to the learner's files.
func Verdict(ex course.Exercise, r course.Result, lang, times string, own bool) string {
	t := runner.Words(lang)
	ch := ex.Chapter
	if times != "" {
		times = fmt.Sprintf(t.Times, times)
	}
	if r.Hash == "" && r.Kind != course.Failing {
		return fmt.Sprintf(t.VerdictNone, ch, names(ex.Files))
	}
	switch r.Kind {
	case course.Pass:
		if r.Tier == course.Custom {
			return fmt.Sprintf(t.VerdictPassCustom, ch, ch) // the tests the flags chose: not the chapter
		}
		return fmt.Sprintf(t.VerdictPass, ch, times)
	case course.Todo:
		goal := strings.TrimPrefix(r.Todo, "TODO(workshop): ")
		if s := hint.MustLoad().StepOf(ch, r.Todo); s != nil {
			goal = s.GoalIn(lang)
		}
		return fmt.Sprintf(t.VerdictTodo, ch, course.StubName(r.Todo), goal)
	case course.NoBuild:
		return fmt.Sprintf(t.VerdictNoBuild, ch, indent(r.First))
	case course.Mistake:
		line := fmt.Sprintf(t.VerdictMistake, ch, r.Mistake.Name.In(lang), first(r.Failed), times)
		if own {
			return line + fmt.Sprintf(t.MistakeTip, ch) + said(t, r)
		}
		h := r.Mistake.Hints
		return line + said(t, r) + "\n" + indent("  "+fmt.Sprintf(t.Hint, 1, h.Stages(), h.Hint(0, lang)))
	default:
		line := fmt.Sprintf(t.VerdictFailing, ch, first(r.Failed), times)
		if own {
			line += fmt.Sprintf(t.FailingTip, ch)
		}
		if l := hint.MustLoad().TestLine(ch, first(r.Failed)); l != nil {
			line += "\n" + indent(fmt.Sprintf(t.Checks, l.In(lang)))
		}
		return line + said(t, r)
	}
}

// said is the failing test's own message, under the verdict.
func said(t *runner.Texts, r course.Result) string {
	if r.First == "" {
		return ""
	}
	return "\n" + indent(fmt.Sprintf(t.Says, r.First))
}

// indent puts two spaces before each line of s but the first, which the
// caller places.
func indent(s string) string {
	return strings.ReplaceAll(s, "\n", "\n    ")
}

// nextHint prints the next hint for chapter ch's last verdict and counts it
// (stage > 0: hint number stage instead, and the count goes on from there).
func nextHint(w io.Writer, root, ch string, stage int, lang string) int {
	table := hint.MustLoad()
	if len(ch) == 1 {
		ch = "0" + ch
	}
	st, err := course.LoadState(root)
	if err != nil {
		fmt.Fprintln(w, "exercise:", err)
		return 2
	}
	_, ex, err := findExercise(root, ch)
	if err != nil {
		fmt.Fprintln(w, "exercise:", err)
		return 2
	}
	cs := st.Chapters[ch]
	t := runner.Words(lang)
	switch {
	case cs == nil:
		fmt.Fprintf(w, t.HintNoRun+"\n", ch, ch)
		return 1
	case !cs.Holds(course.Hash(root, ex)):
		fmt.Fprintf(w, t.HintChanged+"\n", ch, names(ex.Files), ch)
		return 1
	case cs.Kind == course.Pass:
		fmt.Fprintf(w, t.HintPasses+"\n", ch, t.Tiers[cs.Tier])
		return 0
	case cs.Kind == course.Todo:
		s := table.StepOf(ch, cs.Todo)
		if s == nil {
			fmt.Fprintf(w, t.HintNoStep+"\n", ch, course.StubName(cs.Todo), cs.Todo)
			return 0
		}
		stub := course.StubName(cs.Todo)
		title := fmt.Sprintf(t.HintStep, stub, withoutName(s.GoalIn(lang), stub)) + "\n" + fmt.Sprintf(t.Holds, s.Holds.In(lang))
		return showHint(w, root, ch, title, s.Hints, stage, lang, st)
	case cs.Mistake == "":
		fmt.Fprintf(w, t.HintNoMatch, ch, t.Tiers[cs.Tier])
		if cs.Test != "" {
			fmt.Fprintf(w, ", %s", cs.Test)
		}
		if cs.Message != "" {
			fmt.Fprintf(w, ": %s", cs.Message)
		}
		fmt.Fprintln(w)
		return 0
	}
	m := table.Find(ch, cs.Mistake)
	if m == nil {
		fmt.Fprintf(w, t.HintGone+"\n", ch, cs.Mistake)
		return 1
	}
	return showHint(w, root, ch, m.Name.In(lang), m.Hints, stage, lang, st)
}

// showHint prints title and the hint --hint has come to (or number stage),
// and counts it in the saved state, its own count, not the runner's.
func showHint(w io.Writer, root, ch, title string, h hint.Hints, stage int, lang string, st *course.State) int {
	cs := st.Chapters[ch]
	i := min(cs.HintsCLI, h.Stages()-1)
	if stage > 0 {
		i = min(stage, h.Stages()) - 1
	}
	t := runner.Words(lang)
	fmt.Fprintf(w, "%s\n"+t.Hint+"\n", title, i+1, h.Stages(), h.Hint(i, lang))
	if i+1 < h.Stages() {
		fmt.Fprintf(w, t.HintNext+"\n", ch, ch)
	} else {
		fmt.Fprintf(w, t.HintLast+"\n", ch)
	}
	cs.HintsCLI = i + 1
	if err := st.Save(root); err != nil {
		fmt.Fprintln(w, "exercise:", err)
	}
	return 0
}

func names(files []string) string {
	var n []string
	for _, f := range files {
		n = append(n, f)
	}
	return strings.Join(n, ", ")
}

func first(s []string) string {
	if len(s) == 0 {
		return "a test"
	}
	return s[0]
}

// language picks the language: the flag, else $LOCKSTEP_LANG (the runner
// sets it for what it starts; a facilitator may set it for a room), else the
// one the learner chose in the runner (l, saved), else LANG/LC_ALL, else
// English.
func language(flagValue, saved string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := os.Getenv(runner.LangEnv); v == "zh" || v == "en" {
		return v
	}
	if saved != "" {
		return saved
	}
	for _, v := range []string{os.Getenv("LC_ALL"), os.Getenv("LANG")} {
		if strings.HasPrefix(v, "zh") {
			return "zh"
		}
	}
	return "en"
}

// findExercise is every exercise under root and chapter ch's among them.
func findExercise(root, ch string) ([]course.Exercise, course.Exercise, error) {
	all, err := course.Discover(root)
	if err != nil {
		return nil, course.Exercise{}, err
	}
	ex, err := course.Find(all, ch)
	return all, ex, err
}

// withoutName drops the stub's name from the front of its goal ("First — …",
// "First：…"), which the hint's title has just said.
func withoutName(goal, stub string) string {
	for _, sep := range []string{" — ", "：", ": "} {
		if rest, ok := strings.CutPrefix(goal, stub+sep); ok {
			return rest
		}
	}
	return goal
}
