package docs

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The course is also written in Chinese, for the readers of the five
// articles it follows. Two things drift when nobody checks them: the words
// (监听 in one page, 监视 in the next) and the lessons themselves (an English
// transcript re-recorded, a test renamed, while the Chinese page keeps the
// old one). These tests keep both in step. They need no ZooKeeper.

// A rejected variant is a word the course does not use, with what it uses
// instead. The glossary in README.zh-CN.md is the list of terms; it may name
// a variant only inside its own brackets （…）, so that a reader who knows
// the other word finds ours.
type variant struct {
	bad     *regexp.Regexp
	instead string
}

var rejectedVariants = []variant{
	{regexp.MustCompile(`监视`), "监听（watch 的译名）"},
	{regexp.MustCompile(`(?:^|[^时])有序节点|(?:^|[^:])临时有序节点`), "临时顺序节点 / 顺序节点"}, // article ②'s own heading, 「思路二:临时有序节点」, is quoted as it is
	{regexp.MustCompile(`羊群效应`), "惊群效应（羊群效应）on first use, then 惊群效应"},
	{regexp.MustCompile(`栅栏令牌`), "防护令牌（fencing token）"},
	{regexp.MustCompile(`主节点`), "领导者（leader）for the application's, ZooKeeper 集群的 Leader 服务器 for ZooKeeper's own"},
	// A bare English verb for a ZooKeeper concept in a Chinese sentence:
	// "watch 前驱节点". The English word stays only as the bracketed
	// original, 监听（watch）, or as code.
	{regexp.MustCompile(`(?i)(^|[^（(A-Za-z])watch(es|ed|ing)?\s*\p{Han}`), "监听 (the English word only in brackets: 监听（watch）)"},
	// Resign is 让位; the d/6 step-down (a leader that learns it is cut
	// off and stops) is 主动下台: two different things, two words.
	{regexp.MustCompile(`辞职|辞任`), "让位（Resign）"},
	{regexp.MustCompile(`主动让位`), "主动下台 for the d/6 step-down; 让位 is Resign"},
	// Our election is 选主; ZooKeeper's own election of its Leader server
	// is said as such, never "ZooKeeper 选举".
	{regexp.MustCompile(`领导者?选举`), "选主（领导者选举）on first use, then 选主"},
	{regexp.MustCompile(`选举中的惊群`), "选主中的惊群效应"},
	{regexp.MustCompile(`ZooKeeper\s*(的)?选举`), "选主 for ours, ZooKeeper 集群的 Leader 选举 for ZooKeeper's own"},
	// The five articles are numbered as docs/sources.zh-CN.md numbers
	// them: 文章①–⑤.
	{regexp.MustCompile(`第\s*[一二三四五1-5]\s*篇`), "文章①–⑤"},
	{regexp.MustCompile(`文章\s*([二三四五]|一([^步些样般切个]|$)|[1-5]([^0-9]|$))`), "文章①–⑤"},
	{regexp.MustCompile(`GC\s*暂停`), "GC 停顿"},
	// Article ①'s name for chapter 02's lock, written one way: While 版.
	{regexp.MustCompile(`(?i:while)\s*循环(版|锁)|while\s*版|(?:^|[^)])While版`), "While 版（文章①的叫法）"}, // the article's own title, "(一)While版", is quoted as it is
	// A paused holder's late write, refused by the fence: one word.
	{regexp.MustCompile(`过期的?写入|迟到的写入|(^|[^陈])旧的?写入`), "陈旧写入（stale write）"},
	// The workshop's words, as the runner and the guide show them.
	{regexp.MustCompile(`运行器`), "runner"},
	{regexp.MustCompile(`主持人`), "讲师"},
	{regexp.MustCompile(`课程层`), "本课测试 (the lesson tier, as the runner says it)"},
	// A table test is what the Go community calls 表驱动测试.
	{regexp.MustCompile(`表格测试`), "表驱动测试（table test）"},
	// The arena refuses a write; it does not "catch" anyone.
	{regexp.MustCompile(`被抓到|抓到的记录`), "写入被拒 (the runner's words for a refused arena write)"},
	// ZooKeeper's recipes are 官方方案 on every page, never a cookbook's dish.
	{regexp.MustCompile(`菜谱`), "官方方案（ZooKeeper 的 recipe）"},
	// An ACL scheme is 权限模式; 方案 is a recipe.
	{regexp.MustCompile(`(world|auth|digest|ip|x509)` + "`?" + `\s*方案`), "权限模式（ACL scheme）"},
	// Go's channel keeps its name, as Chinese Go writing mostly does: `Lost()` returns a channel.
	{regexp.MustCompile(`通道`), "channel（Go 的 channel 不译）"},
	// getChildren as a verb is 获取子节点列表 (or the request's name), never
	// a bare 列: 「再列一次子节点」 reads as the English "lists again".
	{regexp.MustCompile(`列子节点|(再|重新)列(一次|一遍)|列一次|列了一遍`), "获取子节点列表（getChildren）"},
	// A semaphore's leases are handed out, 发放, as the course says of
	// them everywhere; 「已发出的租约」 is the English "issued".
	{regexp.MustCompile(`发出[^。；，、]{0,6}租约|租约[^。；，、]{0,4}发出`), "发放（租约）"},
	// The session timeout a server grants is the one ZooKeeper's own log
	// calls negotiated: 协商后的会话超时, not 「服务器批准的」.
	{regexp.MustCompile(`批准`), "协商后的会话超时（negotiated session timeout）"},
	// internal/locktest is the conformance suite, 一致性测试套件, on every
	// page: in chapter 05 「共享测试套件」 reads as a suite of the shared
	// (read) lock.
	{regexp.MustCompile(`共享(的)?(一致性)?测试(套件|集)`), "一致性测试套件（the conformance suite, internal/locktest）"},
	// What an API or ZooKeeper promises is what it 保证; 「承诺」 is the
	// English "promise" carried over, read as a vow.
	{regexp.MustCompile(`承诺`), "保证（what an API or ZooKeeper guarantees）"},
	// arena play's stand-in learners are 模拟学员; 「彩排学员」 is "rehearsal
	// learner" word for word.
	{regexp.MustCompile(`彩排学员`), "模拟学员（arena play's stand-in learner）"},
	// The course's mutex is 互斥锁; 「排他锁」 is another book's word.
	{regexp.MustCompile(`排他锁`), "互斥锁（mutex）"},
	// The host's arena out is 移出竞技场; 「请出去」 is a polite "show out".
	{regexp.MustCompile(`请出`), "移出竞技场（arena out）"},
	// A space between two 汉字 is a slip of the keyboard: 「忽略 监听事件」.
	{regexp.MustCompile(`\p{Han} +\p{Han}`), noSpace},
}

// vocabularyErrors returns the rejected variants a Chinese text uses, one
// message per line that has one. Code (fenced blocks and `spans`) is not
// prose and is skipped; inGlossary says a line is the glossary's own, where
// a variant may stand inside （…）.
func vocabularyErrors(name, text string, inGlossary func(n int) bool) []string {
	var out []string
	forEachProseLine(text, func(n int, line string) {
		line = strings.ReplaceAll(stripCodeSpans(line), "惊群效应（羊群效应）", "惊群效应")
		line = firstUseOfElection.ReplaceAllString(line, "选主")
		if inGlossary(n) {
			line = bracketed.ReplaceAllString(line, "（）")
		}
		for _, v := range rejectedVariants {
			if m := v.bad.FindString(line); m != "" {
				out = append(out, fmt.Sprintf("%s:%d: %q: use %s", name, n, strings.TrimSpace(m), v.instead))
			}
		}
	})
	return out
}

var bracketed = regexp.MustCompile(`（[^（）]*）`)

// 选主（领导者选举）, bold or not, is the first use that names the common word.
var firstUseOfElection = regexp.MustCompile(`选主(\*\*)?（领导者选举）`)

// Pages whose words are checked and logged but not yet held: a page being
// rewritten, with the reason. Empty since issue 32 finished 02 and 08.
var vocabularyNotYetHeld = map[string]string{}

// glossaryLines returns a test for "line n is in README.zh-CN.md's glossary".
func glossaryLines(text string) func(n int) bool {
	start, end := 0, 0
	for i, line := range strings.Split(text, "\n") {
		switch {
		case line == "## 术语表":
			start = i + 1
		case start > 0 && end == 0 && strings.HasPrefix(line, "## "):
			end = i + 1
		}
	}
	if start > 0 && end == 0 {
		end = len(strings.Split(text, "\n")) + 1
	}
	return func(n int) bool { return n > start && n < end }
}

// chinesePages returns every *.zh-CN.md of the repository, by path from the
// root.
func chinesePages(t *testing.T) []string {
	t.Helper()
	return repoFiles(t, ".zh-CN.md")
}

// repoFiles returns every file of the repository whose name ends in
// suffix, by path from the root; hidden directories (.git) are skipped.
func repoFiles(t *testing.T, suffix string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ".." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			rel, err := filepath.Rel("..", p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hintTexts returns every Chinese text of workshop/hint/hints.json: the
// strings under a "zh" key, at any depth.
func hintTexts(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../workshop/hint/hints.json")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("hints.json: %v", err)
	}
	var out []string
	var walk func(v any, zh bool)
	walk = func(v any, zh bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(e, zh || k == "zh" || strings.HasSuffix(k, "_zh"))
			}
		case []any:
			for _, e := range v {
				walk(e, zh)
			}
		case string:
			if zh {
				out = append(out, v)
			}
		}
	}
	walk(v, false)
	return out
}

// goChineseStrings returns every string literal with a 汉字 in the
// repository's Go code outside tests: the runner's words and faults, the
// visualizer's texts, each chapter's scene. Comments are not read.
func goChineseStrings(t *testing.T) []struct{ where, text string } {
	t.Helper()
	var out []struct{ where, text string }
	for _, f := range repoFiles(t, ".go") {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src := readRoot(t, f)
		if !hanRune.MatchString(src) {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || !hanRune.MatchString(lit.Value) {
				return true
			}
			text, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			out = append(out, struct{ where, text string }{fset.Position(lit.Pos()).String(), text})
			return true
		})
	}
	return out
}

var hanRune = regexp.MustCompile(`\p{Han}`)

// noSpace is the advice for a space between two 汉字. In the Go code's
// strings a space can be layout (the visualizer's column headings
// " 请求 通知 无效"), so there it is not a slip.
const noSpace = "no space between two 汉字"

func TestChinesePagesUseTheGlossarysWords(t *testing.T) {
	pages := chinesePages(t)
	if !slices.Contains(pages, "README.zh-CN.md") || !slices.Contains(pages, "docs/interview.zh-CN.md") {
		t.Fatalf("found %v: the walk missed the front page or the interview page", pages)
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			text := readRoot(t, page)
			inGlossary := func(int) bool { return false }
			if page == "README.zh-CN.md" {
				inGlossary = glossaryLines(text)
			}
			errs := vocabularyErrors(page, text, inGlossary)
			if why, ok := vocabularyNotYetHeld[page]; ok {
				for _, e := range errs {
					t.Logf("not yet held (%s): %s", why, e)
				}
				return
			}
			for _, e := range errs {
				t.Error(e)
			}
		})
	}
	t.Run("the 中文摘要 of the English pages", func(t *testing.T) {
		for _, page := range repoFiles(t, ".md") {
			if strings.HasSuffix(page, ".zh-CN.md") {
				continue
			}
			for _, line := range strings.Split(readRoot(t, page), "\n") {
				if !strings.Contains(line, "中文摘要") {
					continue
				}
				for _, e := range vocabularyErrors(page, line, func(int) bool { return false }) {
					t.Error(e)
				}
			}
		}
	})
	t.Run("the Chinese strings of the Go code", func(t *testing.T) {
		texts := goChineseStrings(t)
		if len(texts) < 100 {
			t.Fatalf("found %d Chinese string literals; the walk is wrong", len(texts))
		}
		for _, s := range texts {
			for _, e := range vocabularyErrors(s.where, s.text, func(int) bool { return false }) {
				if strings.HasSuffix(e, noSpace) {
					continue
				}
				t.Errorf("%s (%q)", e, s.text)
			}
		}
	})
	t.Run("workshop/hint/hints.json", func(t *testing.T) {
		texts := hintTexts(t)
		if len(texts) < 20 {
			t.Fatalf("found %d Chinese hint texts; the walk is wrong", len(texts))
		}
		for i, s := range texts {
			for _, e := range vocabularyErrors(fmt.Sprintf("hints.json zh text %d", i+1), s, func(int) bool { return false }) {
				t.Errorf("%s (%s)", e, s)
			}
		}
	})
}

// A Chinese reader should know before following a link that the page
// behind it is English.
func TestChinesePagesSayWhenALinkGoesToAnEnglishPage(t *testing.T) {
	for _, page := range chinesePages(t) {
		t.Run(page, func(t *testing.T) {
			for _, e := range unmarkedEnglishLinks(readRoot(t, page)) {
				t.Errorf("%s: %s", page, e)
			}
		})
	}
}

// Every test a Chinese page names is one a reader can run.
func TestChinesePagesNameTestsThatExist(t *testing.T) {
	tests := testNamesInTheRepository(t)
	for _, page := range chinesePages(t) {
		t.Run(page, func(t *testing.T) {
			en, _ := os.ReadFile(filepath.Join("..", strings.TrimSuffix(page, ".zh-CN.md")+".md"))
			for _, name := range namesOfNoTest(readRoot(t, page), string(en), tests) {
				t.Errorf("%s names %s, which is no test of the repository", page, name)
			}
		})
	}
}

func TestTheVocabularyCheckCatchesEachVariant(t *testing.T) {
	none := func(int) bool { return false }
	for _, bad := range []string{
		"等待者监视前驱节点。",
		"每个客户端创建一个临时有序节点。",
		"这就是羊群效应。",
		"它要 watch 前驱节点。",
		"主节点被冻结了。",
		"资源方检查栅栏令牌。",
		"领导者辞职时，下一个候选者当选。",
		"一次辞任只唤醒下一个跟随者。",
		"断线太久，领导者主动让位。",
		"领导选举怎么做？",
		"领导者选举用同一个队列。",
		"每个候选者都监听领导者（选举中的惊群效应）。",
		"ZooKeeper 选举能完全避免双主吗？",
		"第二篇文章提醒过这个竞态。",
		"第 5 篇文章的读者。",
		"文章四用 1000 个线程。",
		"文章 2 的代码注释。",
		"长时间 GC 暂停会怎样？",
		"这就是文章里的“while 循环版”。",
		"第 02 章就是 While 循环版。",
		"文章的 while 版。",
		"文章①叫它 While版。",
		"回顾上一篇的 while 循环锁。",
		"令牌拦住了过期写入。",
		"资源会拒绝这次迟到的写入。",
		"令牌存储拒绝旧写入。",
		"像运行器检查学员代码那样。",
		"这是主持人的命令。",
		"先跑课程层的测试。",
		"等待时忽略 监听事件的错误。",
		"每个被唤醒的线程都再列一次子节点。",
		"持有者列子节点时发现自己排第一。",
		"闸门的持有者发现已发出 2/2 个租约。",
		"n 个租约都已发出时就等待。",
		"锁按服务器批准的会话超时算丢锁的期限。",
		"对写锁跑共享测试套件。",
		"Acquire 承诺什么？",
		"场上有三位彩排学员。",
		"讲师把 ada 请出去四次。",
		"二、排他锁：惊群效应。",
	} {
		if errs := vocabularyErrors("page", bad, none); len(errs) != 1 {
			t.Errorf("%q: got %v, want one rejected variant", bad, errs)
		}
	}
	for _, good := range []string{
		"等待者监听（watch）前驱节点，这样就没有惊群效应（羊群效应）。",
		"每个客户端创建一个临时顺序节点，然后 `watch` 它。",
		"ZooKeeper 集群的 Leader 服务器；应用选出的领导者（leader）。",
		"```\nwatch 前驱节点 主节点\n```",
		"see the watch, then",
		"`Resign` 让位；断线太久就主动下台。",
		"选主（领导者选举）：最小的当选；**选主**（领导者选举）也行；选主中的惊群效应。",
		"ZooKeeper 集群的 Leader 选举；文章①和文章⑤；文章的 1000 个线程。",
		"照着五篇文章一步步搭起来；GC 停顿；令牌拦住了陈旧写入。",
		"讲师在 runner 里先跑本课测试；终端 A、第 04 章。",
		"这就是文章里的“While 版”：在 while 循环里不断重试。",
		"文章②的小节“思路二:临时有序节点”。",
		"每个被唤醒的线程都重新获取一次子节点列表；runner 列出有练习的章节。",
		"同一时刻最多发放 n 个租约；create 请求发出后连接断了。",
		"锁按协商后的会话超时算丢锁的期限。",
		"对写锁跑一致性测试套件；读锁是共享的。",
		"Acquire 保证什么？场上有三位模拟学员。讲师把 ada 移出竞技场。",
	} {
		if errs := vocabularyErrors("page", good, none); len(errs) != 0 {
			t.Errorf("%q: got %v, want none", good, errs)
		}
	}
	glossary := "# x\n\n## 术语表\n\n| 监听（监视） | watch |\n\n## 下一节\n\n监视\n"
	errs := vocabularyErrors("README.zh-CN.md", glossary, glossaryLines(glossary))
	if len(errs) != 1 || !strings.Contains(errs[0], ":9:") {
		t.Errorf("a variant in the glossary's brackets is allowed, one after it is not: got %v", errs)
	}
}

// A Chinese lesson is the English lesson, written for Chinese readers: the
// same sections in the same order, the same code, transcripts and diagrams
// byte for byte (01's English transcripts are the demo's output, replayed by
// 01's TestDemoPrintsTheREADMETranscript; the Chinese copies must equal
// them), the same tests, and links a reader can follow.

const (
	goingFurther   = "## Going further"
	goingFurtherZh = "## 深入一步"
	switchToZh     = "English · [中文](README.zh-CN.md)"
	switchToEn     = "[English](README.md) · 中文"
)

func TestEveryChapterHasAChineseLesson(t *testing.T) {
	for _, ch := range chapters(t) {
		if _, err := os.Stat(filepath.Join("..", ch, "README.zh-CN.md")); err != nil {
			t.Errorf("%s has no Chinese lesson: write %s/README.zh-CN.md (the English README, in Chinese, kept in step by TestChineseLessonsKeepInStepWithTheEnglish)", ch, ch)
		}
	}
}

func TestChineseLessonsKeepInStepWithTheEnglish(t *testing.T) {
	tests := testNamesInTheRepository(t)
	for _, ch := range chapters(t) {
		zhPath := ch + "/README.zh-CN.md"
		if _, err := os.Stat(filepath.Join("..", zhPath)); err != nil {
			continue // TestEveryChapterHasAChineseLesson reports it
		}
		t.Run(ch, func(t *testing.T) {
			en, zh := readRoot(t, ch+"/README.md"), readRoot(t, zhPath)
			blocks := en
			if _, notYet := shareNotYetHeld[ch]; notYet {
				// Its Going further is still a summary: hold the lesson
				// before it to the English one's blocks.
				blocks = before(en, goingFurther)
			}
			for _, e := range lessonDrift(en, zh, blocks, tests) {
				t.Errorf("%s: %s", zhPath, e)
			}
		})
	}
}

// lessonDrift returns every way a Chinese lesson differs from its English
// one in what must be the same; blocks is the part of the English page whose
// fenced blocks the Chinese page must have (all of it, once its Going
// further is written in full).
func lessonDrift(en, zh, blocks string, tests map[string]bool) []string {
	var out []string
	enLines, zhLines := strings.Split(en, "\n"), strings.Split(zh, "\n")
	if !strings.HasPrefix(zhLines[0], "# ") {
		out = append(out, "line 1 should be its title (# …)")
	}
	if len(zhLines) < 3 || (zhLines[1] != switchToZh && zhLines[2] != switchToEn) && zhLines[1] != switchToEn {
		out = append(out, fmt.Sprintf("the line under the title should be %q", switchToEn))
	}
	if len(enLines) < 3 || enLines[2] != switchToZh {
		out = append(out, fmt.Sprintf("the English README's line 3 should be %q", switchToZh))
	}

	enSections, zhSections := sections(en), sections(zh)
	if len(enSections) != len(zhSections) {
		out = append(out, fmt.Sprintf("%d ## sections, the English README has %d:\n  English: %q\n  中文:    %q", len(zhSections), len(enSections), enSections, zhSections))
	}
	if i, j := slices.Index(enSections, goingFurther), slices.Index(zhSections, goingFurtherZh); i != j {
		out = append(out, fmt.Sprintf("%q is section %d, the English %q is section %d", goingFurtherZh, j+1, goingFurther, i+1))
	}

	out = append(out, blockDrift(blocks, zh)...)

	for _, name := range namesOfNoTest(zh, en, tests) {
		out = append(out, fmt.Sprintf("names %s, which is no test of the repository", name))
	}
	out = append(out, unmarkedEnglishLinks(zh)...)
	return out
}

// blockDrift says which of the English page's fenced blocks (code,
// transcripts, diagrams) the Chinese page lacks, byte for byte and in order.
func blockDrift(en, zh string) []string {
	enBlocks, zhBlocks := fencedBlocks(en), fencedBlocks(zh)
	k := 0
	for i, b := range enBlocks {
		for k < len(zhBlocks) && zhBlocks[k] != b {
			k++
		}
		if k == len(zhBlocks) {
			return []string{fmt.Sprintf("the English page's code block %d of %d is not in the Chinese page, byte for byte, after the ones before it:\n%s", i+1, len(enBlocks), b)}
		}
		k++
	}
	return nil
}

// The reference pages of docs/ that have a Chinese twin: the same sections,
// the same blocks byte for byte (zkcli's transcripts are replayed by
// zkcli_test.go against the English page), the same tests, and each page
// links the other, and each says as much as a chapter page must (≥ 90%,
// zhshare_test.go). A name with a slash is a page outside docs/, from the
// repository's root (reliability/'s, bench/'s, visualizer/'s and interop/'s
// READMEs).
var docsTwins = []string{"zkcli", "concepts", "troubleshooting", "comparison", "curator", "recipes", "README", "sources", "reliability/README", "bench/README", "visualizer/README", "interop/README"}

func TestChineseReferencePagesKeepInStepWithTheEnglish(t *testing.T) {
	tests := testNamesInTheRepository(t)
	for _, page := range docsTwins {
		t.Run(page, func(t *testing.T) {
			dir, name := "docs/", page
			if i := strings.LastIndex(page, "/"); i >= 0 {
				dir, name = page[:i+1], page[i+1:]
			}
			enPath, zhPath := dir+name+".md", dir+name+".zh-CN.md"
			if _, err := os.Stat(filepath.Join("..", zhPath)); err != nil {
				t.Fatalf("%s has no Chinese twin: write %s", enPath, zhPath)
			}
			en, zh := readRoot(t, enPath), readRoot(t, zhPath)
			if !strings.Contains(en, "]("+name+".zh-CN.md)") {
				t.Errorf("%s does not link its Chinese twin %s.zh-CN.md", enPath, name)
			}
			if !strings.Contains(zh, "]("+name+".md)") {
				t.Errorf("%s does not link its English twin %s.md", zhPath, name)
			}
			// A reference page is read when a learner is stuck: a summary of
			// it is as little use as a summary of a lesson, so it is held to
			// the chapters' floor.
			share, han, words := chineseShare(en, zh)
			t.Logf("%s: %.1f%% Chinese (%d 汉字 for %d English words)", zhPath, 100*share, han, words)
			if share < chapterShareFloor {
				t.Errorf("%s says %.1f%% of %s (%d 汉字 for %d English words, at %.1f 汉字 a word): want ≥ %.0f%%", zhPath, 100*share, enPath, han, words, hanPerWord, 100*chapterShareFloor)
			}
			if a, b := len(sections(en)), len(sections(zh)); a != b {
				t.Errorf("%s: %d ## sections, the English page has %d:\n  English: %q\n  中文:    %q", zhPath, b, a, sections(en), sections(zh))
			}
			for _, e := range blockDrift(en, zh) {
				t.Errorf("%s: %s", zhPath, e)
			}
			for _, n := range namesOfNoTest(zh, en, tests) {
				t.Errorf("%s names %s, which is no test of the repository", zhPath, n)
			}
			for _, e := range unmarkedEnglishLinks(zh) {
				t.Errorf("%s: %s", zhPath, e)
			}
		})
	}
}

// sections returns the ## headings of a Markdown text, outside code.
func sections(text string) []string {
	var out []string
	forEachProseLine(text, func(_ int, line string) {
		if strings.HasPrefix(line, "## ") {
			out = append(out, strings.TrimSpace(line))
		}
	})
	return out
}

// before returns text up to the line that is heading, or all of it.
func before(text, heading string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if line == heading {
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// fencedBlocks returns the fenced code blocks of a text, fences included.
func fencedBlocks(text string) []string {
	var out []string
	var cur []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		isFence := len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"))
		switch {
		case fence == "" && isFence:
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, trimmed[:1]))]
			cur = []string{line}
		case fence != "" && isFence && trimmed[0] == fence[0] && strings.TrimSpace(strings.TrimLeft(trimmed, trimmed[:1])) == "":
			cur = append(cur, line)
			out = append(out, strings.Join(cur, "\n"))
			fence = ""
		case fence != "":
			cur = append(cur, line)
		}
	}
	return out
}

var zhLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)

// chapterDirLink is a link to a chapter's directory, which a browser opens at
// its README.md, the English page.
var chapterDirLink = regexp.MustCompile(`^(\.\./)*0[1-9]-[a-z-]+/?$`)

// unmarkedEnglishLinks returns the links of a Chinese page to an English
// page that do not say （英文） in or right after the link: a Chinese
// reader should know before following it. The language switch
// [English](…) says it by its name.
func unmarkedEnglishLinks(text string) []string {
	var out []string
	forEachProseLine(text, func(n int, line string) {
		line = stripCodeSpans(line)
		for _, m := range zhLink.FindAllStringSubmatchIndex(line, -1) {
			label, target := line[m[2]:m[3]], line[m[4]:m[5]]
			file, _, _ := strings.Cut(target, "#")
			if isExternal(target) || label == "English" {
				continue
			}
			if chapterDirLink.MatchString(file) {
				out = append(out, fmt.Sprintf("line %d: the link %s opens the chapter's English README: link its README.zh-CN.md", n, line[m[0]:m[1]]))
				continue
			}
			if !strings.HasSuffix(file, ".md") || strings.HasSuffix(file, ".zh-CN.md") {
				continue
			}
			if strings.Contains(label, "（英文）") || strings.HasPrefix(line[m[1]:], "（英文）") {
				continue
			}
			out = append(out, fmt.Sprintf("line %d: the link %s goes to an English page: say （英文） in it or right after it", n, line[m[0]:m[1]]))
		}
	})
	return out
}

// namesOfNoTest returns the TestXxx names a Chinese page shows that are no
// test of the repository. A name its English twin shows too is the English
// page's to keep: a -run prefix such as TestCutOffLeader, troubleshooting's
// /t-<TestName>-… directories.
func namesOfNoTest(zh, en string, tests map[string]bool) []string {
	var out []string
	for _, name := range testName.FindAllString(zh, -1) {
		if !tests[name] && !strings.Contains(en, name) {
			out = append(out, name)
		}
	}
	return out
}

// testNamesInTheRepository returns the name of every func TestXxx in the
// repository's _test.go files.
func testNamesInTheRepository(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Z][A-Za-z0-9_]*)\(`)
	names := map[string]bool{}
	for _, f := range repoFiles(t, "_test.go") {
		for _, m := range decl.FindAllStringSubmatch(readRoot(t, f), -1) {
			names[m[1]] = true
		}
	}
	if !names["TestFirst"] || !names["TestWatchAllWakesEveryWaiter"] {
		t.Fatalf("found %d tests, not TestFirst or TestWatchAllWakesEveryWaiter: the walk is wrong", len(names))
	}
	return names
}

func TestTheChineseLessonCheckCatchesDrift(t *testing.T) {
	tests := map[string]bool{"TestFirst": true}
	en := "# Lock\n\n" + switchToZh + "\n\n## The problem\n\n```text\nrun 1\n```\n\n```go\ncode\n```\n\n## Going further\n\n```text\nlater\n```\n"
	good := "# 锁\n" + switchToEn + "\n\n## 问题\n\n`TestFirst`\n\n```text\nrun 1\n```\n\n说明。\n\n```go\ncode\n```\n\n## 深入一步\n\n[细节（英文）](README.md#going-further)\n\n```text\nlater\n```\n"
	if errs := lessonDrift(en, good, en, tests); len(errs) != 0 {
		t.Fatalf("a lesson in step: got %v", errs)
	}
	for name, bad := range map[string]string{
		"a transcript that changed":          strings.Replace(good, "run 1", "run 2", 1),
		"Going further's transcript missing": strings.Replace(good, "```text\nlater\n```", "", 1),
		"blocks out of order":                strings.Replace(strings.Replace(good, "```text\nrun 1\n```", "X", 1), "```go\ncode\n```", "```go\ncode\n```\n\n```text\nrun 1\n```", 1),
		"a section missing":                  strings.Replace(good, "## 问题", "问题", 1),
		"a test that does not exist":         strings.Replace(good, "TestFirst", "TestSecond", 1),
		"an unmarked English link":           strings.Replace(good, "细节（英文）", "细节", 1),
		"no language switch":                 strings.Replace(good, switchToEn, "", 1),
	} {
		if errs := lessonDrift(en, bad, en, tests); len(errs) == 0 {
			t.Errorf("%s: no drift reported", name)
		}
	}
}

// docs/workshop.zh-CN.md lists each chapter's common mistakes for the
// 讲师; a 讲师 who reads one there and then sees another wording on a
// learner's screen cannot match them. So the page's table names each one
// exactly as the runner shows it: the "zh" name of workshop/hint/hints.json.
func TestTheWorkshopGuideNamesMistakesAsTheRunnerShowsThem(t *testing.T) {
	raw, err := os.ReadFile("../workshop/hint/hints.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Mistakes []struct {
			Chapter string
			Name    struct{ Zh string }
		}
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("hints.json: %v", err)
	}
	want := map[string][]string{}
	for _, m := range table.Mistakes {
		want[m.Chapter] = append(want[m.Chapter], m.Name.Zh)
	}
	if len(want) < 7 {
		t.Fatalf("hints.json names mistakes of %d chapters; the table is not what this test reads", len(want))
	}
	got := quotedMistakes(readRoot(t, "docs/workshop.zh-CN.md"))
	for ch, names := range want {
		for _, n := range names {
			if !slices.Contains(got[ch], n) {
				t.Errorf("docs/workshop.zh-CN.md: the table has no row of chapter %s named as the runner's 「%s」", ch, n)
			}
		}
		for _, n := range got[ch] {
			if !slices.Contains(names, n) {
				t.Errorf("docs/workshop.zh-CN.md: the table's chapter %s row 「%s」 is no mistake the runner shows (hints.json)", ch, n)
			}
		}
	}
	for ch := range got {
		if _, ok := want[ch]; !ok {
			t.Errorf("docs/workshop.zh-CN.md lists mistakes of chapter %s, which hints.json has none of", ch)
		}
	}
}

var mistakeRow = regexp.MustCompile(`^\| ([0-9]{2}) \| ([^|]*) \|`)

// quotedMistakes returns, per chapter, the names in the page's table rows
// "| NN | name | what the tests say |" (the table go run ./workshop
// -mistakes-table -lang zh prints; go test ./workshop/hint holds the rest
// of each row).
func quotedMistakes(text string) map[string][]string {
	out := map[string][]string{}
	forEachProseLine(text, func(_ int, line string) {
		if m := mistakeRow.FindStringSubmatch(line); m != nil {
			out[m[1]] = append(out[m[1]], m[2])
		}
	})
	return out
}

func TestTheMistakeCheckCatchesAWordingThatDrifted(t *testing.T) {
	page := "| 章节 | 错误 | 测试怎么说 |\n|---|---|---|\n| 04 | 惊群效应：每个等待者都监听最小的节点 | `TestFirst` |\n| 04 | 没有重新列出队列 | 注 |\n| 07 | 每个候选者都监听领导者（选主中的惊群效应） | `TestSuccession` |\n"
	got := quotedMistakes(page)
	if !slices.Equal(got["04"], []string{"惊群效应：每个等待者都监听最小的节点", "没有重新列出队列"}) || len(got["07"]) != 1 {
		t.Errorf("quotedMistakes: %q", got)
	}
	if slices.Contains(quotedMistakes(strings.Replace(page, "选主中的", "选举中的", 1))["07"], "每个候选者都监听领导者（选主中的惊群效应）") {
		t.Error("a name reworded on the page still matched the runner's")
	}
}
