package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

const tiny = `package p

func first(xs []int, ours int) (bool, int) {
	if ours == 0 {
		return true, -1
	}
	for i := ours - 1; i >= 0; i-- {
		if xs[i] > 0 {
			return false, i
		}
	}
	return true, -1
}
`

func TestEveryKindOfMistakeIsMade(t *testing.T) {
	ms, err := Generate("tiny.go", []byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range ms {
		if ids[m.ID] {
			t.Errorf("two mutants share the ID %q", m.ID)
		}
		ids[m.ID] = true
		if string(m.Src) == tiny {
			t.Errorf("%s: the mutant is the file itself", m.ID)
		}
	}
	for _, want := range []string{
		"L4 negate if ours == 0",
		"L4 == → != in ours == 0",
		"L4 constant 0 → 1",
		"L5 true → false",
		"L7 drop -1 in ours - 1",
		"L7 >= → > in i >= 0",
		"L8 drop if xs[i] > 0 {",
		"L8 > → >= in xs[i] > 0",
	} {
		if !ids[want] {
			t.Errorf("no mutant %q; got:\n%s", want, strings.Join(keys(ids), "\n"))
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestEveryReportIsAboutTheLessonFileAsItIsAndNoMutantSurvives keeps the
// committed reports honest: a report judged the lesson file with the hash it
// records, so a lesson file changed since needs the mutants run again; and
// none may list a surviving mutant.
func TestEveryReportIsAboutTheLessonFileAsItIsAndNoMutantSurvives(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	sumLine := regexp.MustCompile(`<!-- lesson-file-sha256: ([0-9a-f]+) -->`)
	counts := regexp.MustCompile(`surviving: (\d+)`)
	for _, ex := range all {
		t.Run(ex.Chapter, func(t *testing.T) {
			report, err := os.ReadFile(filepath.Join(root, "workshop", "mutants", ex.Chapter+".md"))
			if os.IsNotExist(err) {
				t.Skipf("no report yet: go run ./internal/cmd/mutate -chapter %s", ex.Chapter)
			}
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(filepath.Join(root, course.Reference(ex.Files[0])))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(src)
			m := sumLine.FindSubmatch(report)
			if m == nil || string(m[1]) != hex.EncodeToString(sum[:]) {
				t.Fatalf("workshop/mutants/%s.md judged another version of %s: run go run ./internal/cmd/mutate -chapter %s again", ex.Chapter, course.Reference(ex.Files[0]), ex.Chapter)
			}
			c := counts.FindSubmatch(report)
			if c == nil || string(c[1]) != "0" {
				t.Fatalf("workshop/mutants/%s.md lists surviving mutants: make a test kill each, or list it as equivalent with the reason", ex.Chapter)
			}
		})
	}
}

// TestEveryEquivalentMutantIsOneTheLessonFileStillHasAndSaysWhy keeps the
// equivalence list reviewed: an entry names a mutant the generator still
// makes of the lesson file as it is, and gives a reason; a stale entry would
// hide a survivor of the next version.
func TestEveryEquivalentMutantIsOneTheLessonFileStillHasAndSaysWhy(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	equivs, err := loadEquivalents(root)
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{}
	for _, e := range equivs {
		src, err := os.ReadFile(filepath.Join(root, e.File))
		if err != nil {
			t.Fatalf("equivalent %q: %v", e.ID, err)
		}
		ms, err := Generate(e.File, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			made[key(e.Chapter, e.File, m.ID)] = true
		}
	}
	for k, e := range equivs {
		if !made[k] {
			t.Errorf("equivalent.json lists %s %q, which %s no longer yields: remove it, or run the chapter's mutants again", e.Chapter, e.ID, e.File)
		}
		if len(strings.Fields(e.Why)) < 8 {
			t.Errorf("equivalent.json: %s %q gives no real reason: %q", e.Chapter, e.ID, e.Why)
		}
	}
}
