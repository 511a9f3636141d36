package docs

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// unclosedBold returns, for each line of a page, the bold spans CommonMark
// does not close: a closing ** is right-flanking only if it is not preceded
// by punctuation, or is followed by a space or punctuation. Chinese text
// trips on it — 「**加入队列。**在锁目录下」 — and GitHub shows the asterisks;
// 「**加入队列**。在锁目录下」 renders. Fenced blocks and `code` are skipped
// (forEachProseLine, stripCodeSpans).
func unclosedBold(page, text string) []string {
	var out []string
	forEachProseLine(text, func(n int, line string) {
		if !strings.Contains(line, "**") {
			return
		}
		runes := []rune(stripCodeSpans(line))
		var marks []int
		for i := 0; i+1 < len(runes); i++ {
			if runes[i] == '*' && runes[i+1] == '*' {
				marks = append(marks, i)
				i++
			}
		}
		for k := 1; k < len(marks); k += 2 {
			b := marks[k]
			if b+2 >= len(runes) || b == 0 {
				continue
			}
			before, after := runes[b-1], runes[b+2]
			if isPunct(before) && !unicode.IsSpace(after) && !isPunct(after) {
				out = append(out, page+":"+strconv.Itoa(n)+": "+string(runes[max(0, b-12):min(len(runes), b+6)])+
					": the closing ** follows punctuation and a character comes right after it, so it does not close; put the punctuation after the **")
			}
		}
	})
	return out
}

func isPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

func TestChineseBoldClosesAsGitHubRendersIt(t *testing.T) {
	pages := append(chinesePages(t), "README.md")
	for _, page := range repoFiles(t, "README.md") {
		if !strings.HasSuffix(page, ".zh-CN.md") {
			pages = append(pages, page) // the English pages' 中文摘要
		}
	}
	for _, page := range pages {
		for _, e := range unclosedBold(page, readRoot(t, page)) {
			t.Error(e)
		}
	}
}

func TestTheBoldCheckCatchesPunctuationBeforeTheClosingMarks(t *testing.T) {
	if got := unclosedBold("p", "1. **加入队列。**在锁目录下创建节点"); len(got) != 1 {
		t.Errorf("「**加入队列。**在」: got %q, want one error", got)
	}
	for _, ok := range []string{"1. **加入队列**。在锁目录下", "**答：** 两个属性", "**临时**：节点", "`**x。**y` 是代码"} {
		if got := unclosedBold("p", ok); len(got) != 0 {
			t.Errorf("%q renders, got %q", ok, got)
		}
	}
}
