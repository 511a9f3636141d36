package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
	"github.com/lockstep-zk/lockstep/workshop/runner"
)

// hintRoot is a clone with only 04's exercise file, and a state whose last
// verdict of 04 is kind (a mistake: the herd) about that file.
func hintRoot(t *testing.T, kind course.Kind) string {
	t.Helper()
	root := t.TempDir()
	f := filepath.Join(root, "04-sequential-lock/seqlock/acquire_workshop.go")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("//go:build workshop\n\npackage seqlock\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	cs := &course.ChapterState{Kind: kind, Tier: course.Lesson, Hash: course.Hash(root, all[0]), Hints: 2}
	if kind == course.Mistake {
		cs.Mistake, cs.Test = "herd", "TestFirst"
	}
	st := &course.State{Chapters: map[string]*course.ChapterState{"04": cs}}
	if err := st.Save(root); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestHintCountsItsOwnStagesAndGoesBackToTheFirst(t *testing.T) {
	root := hintRoot(t, course.Mistake)
	hintOf := func(stage int) string {
		var b bytes.Buffer
		nextHint(&b, root, "04", stage, "en")
		return b.String()
	}
	// The runner has shown two hints of the herd: --hint starts at its own first.
	for i, want := range []string{"hint 1/3", "hint 2/3", "hint 3/3", "hint 3/3"} {
		if got := hintOf(0); !strings.Contains(got, want) {
			t.Fatalf("--hint number %d printed %q, want %s", i+1, got, want)
		}
	}
	if got := hintOf(1); !strings.Contains(got, "hint 1/3") {
		t.Fatalf("--hint 1 printed %q, want hint 1/3", got)
	}
	if got := hintOf(0); !strings.Contains(got, "hint 2/3") {
		t.Fatalf("--hint after --hint 1 printed %q, want hint 2/3", got)
	}
	st, _ := course.LoadState(root)
	if st.Chapters["04"].Hints != 2 {
		t.Errorf("--hint moved the runner's count: %d, want 2", st.Chapters["04"].Hints)
	}
}

func TestHintOnAPassingChapterSaysItPasses(t *testing.T) {
	var b bytes.Buffer
	nextHint(&b, hintRoot(t, course.Pass), "04", 0, "en")
	if got := b.String(); !strings.Contains(got, "it passes") || strings.Contains(got, ": :") || strings.Contains(got, ", :") {
		t.Errorf("--hint on a passing chapter printed %q", got)
	}
}

func TestHintOnAFileChangedSinceItsCheckAsksForACheck(t *testing.T) {
	root := hintRoot(t, course.Mistake)
	if err := os.WriteFile(filepath.Join(root, "04-sequential-lock/seqlock/acquire_workshop.go"), []byte("//go:build workshop\n\npackage seqlock // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	nextHint(&b, root, "04", 0, "en")
	if got := b.String(); !strings.Contains(got, "changed since its last check") {
		t.Errorf("--hint on a changed file printed %q", got)
	}
}

func TestTheLanguageChosenInTheRunnerIsHonouredAtRestart(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LANG", "en_US.UTF-8")
	for _, c := range []struct{ flag, saved, want string }{
		{"", "zh", "zh"}, // l in the runner, then a restart
		{"en", "zh", "en"},
		{"", "", "en"},
	} {
		if got := language(c.flag, c.saved); got != c.want {
			t.Errorf("language(-lang %q, saved %q) with LANG=en_US = %q, want %q", c.flag, c.saved, got, c.want)
		}
	}
	t.Setenv("LANG", "zh_CN.UTF-8")
	if got := language("", ""); got != "zh" {
		t.Errorf("with LANG=zh_CN and nothing saved: %q", got)
	}
}

// A stub still to write: --hint and the check's final line give its goal
// and what must hold afterwards in the chosen language, from the steps
// table, and the English line quotes the stub as the file says it, naming the English page only.
func TestAStepStillToWriteIsToldInTheChosenLanguage(t *testing.T) {
	const todo = "TODO(workshop): First — who holds, and which one node each waiter watches so that one release wakes one waiter (steps 3-4 of 04-sequential-lock/README.md / README.zh-CN.md 第 3-4 步)"
	root := hintRoot(t, course.Todo)
	st, _ := course.LoadState(root)
	st.Chapters["04"].Todo = todo
	if err := st.Save(root); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	nextHint(&b, root, "04", 1, "zh")
	for _, want := range []string{"First 还没写：判断谁持有锁", "要保证：同一时刻只有一个客户端持有锁", "提示 1/3："} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("--hint in Chinese: no %q in\n%s", want, b.String())
		}
	}
	ex := course.Exercise{Chapter: "04", Files: []string{"04-sequential-lock/seqlock/acquire_workshop.go"}}
	r := course.Result{Kind: course.Todo, Todo: todo, Hash: "h"}
	if got, want := Verdict(ex, r, "en", "", true), "exercise 04: First still to write → "+strings.Replace(todo, " / README.zh-CN.md 第 3-4 步", "", 1); got != want {
		t.Errorf("the English verdict:\n%s\nwant\n%s", got, want)
	}
	if got := Verdict(ex, r, "zh", "", true); !strings.HasPrefix(got, "练习 04：First 还没写 → First：判断谁持有锁") {
		t.Errorf("the Chinese verdict: %s", got)
	}
}

func TestHintSaysItsOwnLinesInChinese(t *testing.T) {
	var b bytes.Buffer
	nextHint(&b, hintRoot(t, course.Pass), "04", 0, "zh")
	if got := b.String(); !strings.Contains(got, "练习 04 已经通过（本课测试），不需要提示") {
		t.Errorf("--hint in Chinese on a passing chapter printed %q", got)
	}
}

// A check with the learner's own go test flags (-run …) that passes says
// the chosen tests pass, never that the lock passes the chapter.
func TestAPassOfChosenTestsIsNotAPassOfTheChapter(t *testing.T) {
	ex := course.Exercise{Chapter: "03", Files: []string{"03-watch-lock/watchlock/lock_workshop.go"}}
	for _, lang := range []string{"en", "zh"} {
		got := Verdict(ex, course.Result{Tier: course.Custom, Kind: course.Pass, Hash: "h"}, lang, "", false)
		if strings.Contains(got, "every test") || strings.Contains(got, "全部测试") || !strings.Contains(got, "scripts/exercise 03") {
			t.Errorf("%s: a custom run's pass: %q", lang, got)
		}
	}
}

// --hint and VISUAL=1 follow the learner's own files, so only a check of
// those points at them; a check of a scratch copy (--from), of the
// reference or with the learner's own go test flags prints the named
// mistake's first hint under its verdict instead, in the chosen language.
func TestAScratchCopysVerdictBringsItsFirstHintInsteadOfPointingAtTheLearnersFile(t *testing.T) {
	m := hint.MustLoad().Find("04", "herd")
	if m == nil {
		t.Fatal("no mistake herd in chapter 04")
	}
	ex := course.Exercise{Chapter: "04", Files: []string{"04-sequential-lock/seqlock/acquire_workshop.go"}}
	mistake := course.Result{Kind: course.Mistake, Mistake: m, Failed: []string{"TestFirst"}, Hash: "h"}
	failing := course.Result{Kind: course.Failing, Failed: []string{"TestQueue"}, Hash: "h"}
	for _, lang := range []string{"en", "zh"} {
		own := Verdict(ex, mistake, lang, "", true)
		if !strings.Contains(own, "scripts/exercise 04 --hint") || strings.Contains(own, m.Hint(0, lang)) {
			t.Errorf("%s, the learner's own file: %q", lang, own)
		}
		scratch := Verdict(ex, mistake, lang, "", false)
		if strings.Contains(scratch, "--hint") || !strings.Contains(scratch, fmt.Sprintf(runner.Words(lang).Hint, 1, m.Stages(), m.Hint(0, lang))) {
			t.Errorf("%s, a scratch copy: %q", lang, scratch)
		}
		if got := Verdict(ex, failing, lang, "", false); strings.Contains(got, "VISUAL=1") {
			t.Errorf("%s, a scratch copy's failing test points at the learner's file: %q", lang, got)
		}
		if got := Verdict(ex, failing, lang, "", true); !strings.Contains(got, "make exercise CH=04 VISUAL=1") {
			t.Errorf("%s, the learner's own failing test: %q", lang, got)
		}
	}
}
