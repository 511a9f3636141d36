package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The course has two front pages, README.md and README.zh-CN.md, and each
// chapter's README opens with a paragraph in Chinese. A chapter added,
// renamed or re-tested without touching them would leave a Chinese reader
// with a map of a course that no longer exists. This test keeps the maps in
// step with the chapter directories and the tests they name. It needs no
// ZooKeeper.

// zhSummary starts the Chinese paragraph under each chapter's title.
const zhSummary = "> **中文摘要**："

// languageLine links an English chapter README to its Chinese lesson.
const languageLine = "English · [中文](README.zh-CN.md)"

var chapterDir = regexp.MustCompile(`^[0-9]{2}-[a-z0-9-]+$`)

// chapters returns the NN-name directories at the root, in order.
func chapters(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && chapterDir.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	if len(out) < 8 {
		t.Fatalf("found %d chapter directories (%v); the course has at least 01-watch … 08-fencing", len(out), out)
	}
	return out
}

func TestBothFrontPagesMapEveryChapter(t *testing.T) {
	all := chapters(t)
	for _, page := range []string{"README.md", "README.zh-CN.md"} {
		t.Run(page, func(t *testing.T) {
			text := readRoot(t, page)
			mapped := mappedChapters(text)
			for _, ch := range all {
				if !slices.Contains(mapped, ch) {
					t.Errorf("%s: chapter %s has no row in the course map (a table row linking %s/README.md)", page, ch, ch)
				}
			}
			if !slices.IsSorted(mapped) {
				t.Errorf("%s: the map lists chapters out of order: %v", page, mapped)
			}
		})
	}
}

func TestTheFrontPagesLinkEachOther(t *testing.T) {
	for page, other := range map[string]string{"README.md": "README.zh-CN.md", "README.zh-CN.md": "README.md"} {
		if !strings.Contains(readRoot(t, page), "]("+other+")") {
			t.Errorf("%s does not link %s", page, other)
		}
	}
}

func TestEveryChapterREADMEOpensWithAChineseSummary(t *testing.T) {
	for _, ch := range chapters(t) {
		text := readRoot(t, filepath.Join(ch, "README.md"))
		if err := checkSummary(text); err != nil {
			t.Errorf("%s/README.md: %v", ch, err)
		}
	}
}

func TestTheChineseMapNamesTestsThatExist(t *testing.T) {
	// A row's last column names the tests that prove the chapter's flaw; a
	// renamed test would leave the reader searching for nothing.
	text := readRoot(t, "README.zh-CN.md")
	named := 0
	for _, row := range mapRows(text) {
		sources := testSources(t, row.chapter)
		for _, name := range testName.FindAllString(row.last, -1) {
			named++
			if !strings.Contains(sources, "func "+name+"(") {
				t.Errorf("README.zh-CN.md: the row of %s names %s, which is not a test in %s/", row.chapter, name, row.chapter)
			}
		}
	}
	if named < 8 {
		t.Errorf("found %d test names in README.zh-CN.md's map; want at least one per chapter", named)
	}
}

func TestTheChecksCatchWhatIsMissing(t *testing.T) {
	page := strings.Join([]string{
		"| chapter | what | flaw | test |",
		"|---|---|---|---|",
		"| [01-watch](01-watch/README.md) | a | b | `TestAWatchFiresOnce` |",
		"| [03-watch-lock](03-watch-lock/README.md) | a | b | `TestWatchAllWakesEveryWaiter` |",
		"| 09-semaphore (soon) | a | — | — |",
		"See [02-naive-lock](02-naive-lock/README.md) in prose.",
	}, "\n")
	if got, want := mappedChapters(page), []string{"01-watch", "03-watch-lock"}; !slices.Equal(got, want) {
		t.Errorf("mapped chapters: %v, want %v (a link outside a table row, or a row without a link, is not a map entry)", got, want)
	}
	for text, wantErr := range map[string]bool{
		"# 01 — Watches\n\n" + zhSummary + "本章讲监听：监听只触发一次，通知里不带数据，想继续监听就要重新注册。\n\nEnglish.": false,
		"# 01 — Watches\n\nEnglish first.\n\n" + zhSummary + "本章讲监听。":                       true, // not at the top
		"# 01 — Watches\n\n" + zhSummary + "watches.\n":                                     true, // not Chinese
		"# 01 — Watches\n\nEnglish.": true,
	} {
		if err := checkSummary(text); (err != nil) != wantErr {
			t.Errorf("checkSummary(%q) = %v, want an error: %v", text, err, wantErr)
		}
	}
}

func readRoot(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type mapRow struct {
	chapter string
	last    string // the last column
}

var rowChapterLink = regexp.MustCompile(`^\|\s*\[([0-9]{2}-[a-z0-9-]+)\]\(([0-9]{2}-[a-z0-9-]+)/(?:README\.md)?\)`)

// mapRows are the table rows whose first cell links a chapter.
func mapRows(text string) []mapRow {
	var out []mapRow
	forEachProseLine(text, func(_ int, line string) {
		m := rowChapterLink.FindStringSubmatch(line)
		if m == nil || m[1] != m[2] {
			return
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		out = append(out, mapRow{chapter: m[1], last: cells[len(cells)-1]})
	})
	return out
}

func mappedChapters(text string) []string {
	var out []string
	for _, r := range mapRows(text) {
		out = append(out, r.chapter)
	}
	return out
}

var testName = regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9_]*`)

// testSources is every _test.go of a chapter, concatenated.
func testSources(t *testing.T, chapter string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(filepath.Join("..", chapter), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkSummary checks that the first paragraph after a README's title is
// the Chinese summary.
func checkSummary(text string) error {
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# ") {
		return fmt.Errorf("does not start with its title (# …)")
	}
	i := 1
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	// A chapter with a Chinese lesson links it on the line under the title.
	if i < len(lines) && lines[i] == languageLine {
		i++
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
	}
	if i == len(lines) || !strings.HasPrefix(lines[i], zhSummary) {
		return fmt.Errorf("the first paragraph under the title should be the Chinese summary, starting %q (one paragraph: what the chapter teaches, its flaw and the test that proves it)", zhSummary)
	}
	han := 0
	for _, r := range strings.TrimPrefix(lines[i], zhSummary) {
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	if han < 20 {
		return fmt.Errorf("the summary has %d Chinese characters; it should be a paragraph in Chinese", han)
	}
	return nil
}
