package docs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The course is read on GitHub and in an editor, and it links a lot: chapter
// to chapter, README to code, docs to chapters. A renamed file or a reworded
// heading silently breaks those links, so this test follows every relative
// link of every Markdown file in the repository. It needs no ZooKeeper.

func TestEveryRelativeLinkInTheRepositoryResolves(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	report, err := checkTree(root)
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}

	t.Run("every Markdown file of the course is read", func(t *testing.T) {
		// A walker that finds nothing would pass everything: make sure it saw
		// the pages the course is made of.
		for _, want := range []string{
			"README.md", "01-watch/README.md", "04-sequential-lock/README.md",
			"07-leader/README.md", "bench/README.md", "visualizer/README.md",
			"docs/README.md", "docs/concepts.md", "docs/comparison.md", "docs/troubleshooting.md",
		} {
			if !slices.Contains(report.files, want) {
				t.Errorf("%s was not checked", want)
			}
		}
		if t.Failed() {
			t.Logf("checked: %v", report.files)
		}
		t.Logf("%d Markdown files, %d relative links, %d with an anchor", len(report.files), report.links, report.anchors)
	})

	t.Run("every relative link points to a file, a directory or a heading that exists", func(t *testing.T) {
		for _, b := range report.broken {
			t.Errorf("%s", b)
		}
		if n := len(report.broken); n > 0 {
			t.Logf("%d broken links; fix the link or the file it points to", n)
		}
	})
}

func TestTheLinkCheckerCatchesWhatIsBroken(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ch/README.md", "# 04 · The sequential lock: queue up\n\n## What `Lost()` means\n\n## Run it\n\n## Run it\n\nSetext heading\n---\n")
	write("ch/code.go", "package ch\n")
	write("README.md", strings.Join([]string{
		"# Top",
		"[ok file](ch/README.md) [ok dir](ch/) [ok code](ch/code.go) ![ok image](ch/code.go \"title\")",
		"[ok anchor](ch/README.md#04--the-sequential-lock-queue-up) [ok code span](ch/README.md#what-lost-means)",
		"[ok duplicate](ch/README.md#run-it-1) [ok setext](ch/README.md#setext-heading) [ok self](#top)",
		"[ok external](https://example.com/nothing) [ok mail](mailto:a@b.c) [ok escaped](ch/READ%4DE.md)",
		"[broken file](ch/missing.md) [broken anchor](ch/README.md#no-such-heading) [broken self](#nowhere)",
		"[broken outside](../../etc/passwd)",
		"[ref]: ch/gone.go",
		"Inline code is not a link: `[x](nope.md)`.",
		"```",
		"[in a code block](nope.md)",
		"```",
		"~~~md",
		"[in a tilde block](nope.md)",
		"~~~",
	}, "\n")+"\n")

	report, err := checkTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range report.broken {
		got = append(got, b.target)
	}
	want := []string{"ch/missing.md", "ch/README.md#no-such-heading", "#nowhere", "../../etc/passwd", "ch/gone.go"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("broken links found: %q\nwant exactly: %q", got, want)
	}
	if report.links != 15 {
		t.Errorf("relative links checked: %d, want 15 (code spans and code blocks skipped, external links not counted)", report.links)
	}
	for _, b := range report.broken {
		if s := b.String(); !strings.HasPrefix(s, "README.md:") {
			t.Errorf("a broken link should say where it is: %q", s)
		}
	}

	t.Run("headings get GitHub's anchors", func(t *testing.T) {
		for heading, want := range map[string]string{
			"04 · The sequential lock: queue up, watch only your predecessor": "04--the-sequential-lock-queue-up-watch-only-your-predecessor",
			"From a chapter: `tui.Run`":                                       "from-a-chapter-tuirun",
			"Who is \"the owner\"? Go has no thread identity":                 "who-is-the-owner-go-has-no-thread-identity",
			"Decision: a re-entry after the session expired says `ErrLost`":   "decision-a-re-entry-after-the-session-expired-says-errlost",
			"01 — Watches: how a ZooKeeper client waits":                      "01--watches-how-a-zookeeper-client-waits",
			"**Bold** and [a link](x.md) and snake_case":                      "bold-and-a-link-and-snake_case",
		} {
			if got := slug(heading); got != want {
				t.Errorf("slug(%q) = %q, want %q", heading, got, want)
			}
		}
	})
}

// brokenLink is one link that does not resolve.
type brokenLink struct {
	file   string // Markdown file, relative to the root, with slashes
	line   int
	target string // the link as written
	why    string
}

func (b brokenLink) String() string {
	return fmt.Sprintf("%s:%d: (%s): %s", b.file, b.line, b.target, b.why)
}

type linkReport struct {
	files   []string // Markdown files read, relative to the root
	links   int      // relative links checked
	anchors int      // of which with a #fragment
	broken  []brokenLink
}

// checkTree reads every *.md under root (skipping .git) and checks its links.
func checkTree(root string) (linkReport, error) {
	var r linkReport
	headings := map[string]map[string]bool{} // file → anchors, read once
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := headings[file]; ok {
			return a, nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		a := anchors(string(b))
		headings[file] = a
		return a, nil
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		r.files = append(r.files, rel)
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, l := range links(string(text)) {
			if isExternal(l.target) {
				continue
			}
			r.links++
			bad := func(why string) {
				r.broken = append(r.broken, brokenLink{file: rel, line: l.line, target: l.target, why: why})
			}
			target, fragment, _ := strings.Cut(l.target, "#")
			if fragment != "" {
				r.anchors++
			}
			target = strings.Trim(target, "<>")
			if t, err := url.PathUnescape(target); err == nil {
				target = t
			}
			// Where the link points, with slashes, relative to the root.
			dest := rel
			switch {
			case target == "": // #anchor in the same file
			case strings.HasPrefix(target, "/"): // GitHub: relative to the repository
				dest = path.Clean(strings.TrimPrefix(target, "/"))
			default:
				dest = path.Join(path.Dir(rel), target)
			}
			if dest == ".." || strings.HasPrefix(dest, "../") {
				bad("points outside the repository")
				continue
			}
			full := filepath.Join(root, filepath.FromSlash(dest))
			info, err := os.Stat(full)
			if err != nil {
				bad("no such file or directory: " + dest)
				continue
			}
			// Anchors are checked in Markdown files only: GitHub's #L10 line
			// anchors into code are not headings.
			if fragment == "" || info.IsDir() || !strings.HasSuffix(dest, ".md") {
				continue
			}
			a, err := anchorsOf(full)
			if err != nil {
				return err
			}
			if frag, err := url.PathUnescape(fragment); err == nil && !a[strings.ToLower(frag)] {
				bad("no heading #" + fragment + " in " + dest)
			}
		}
		return nil
	})
	return r, err
}

// link is a link target found in a Markdown file.
type link struct {
	line   int
	target string
}

var (
	// inlineLink matches the "(target)" or "(target "title")" after "]" of a
	// link or image; the text before "]" may have started on an earlier line.
	inlineLink = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`)
	// referenceDef matches "[label]: target" at the start of a line.
	referenceDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	// htmlLink matches href="…" and src="…" in inline HTML.
	htmlLink = regexp.MustCompile(`(?:href|src)="([^"]+)"`)
	// scheme matches "https:", "mailto:" and friends.
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

func isExternal(target string) bool {
	return scheme.MatchString(target) || strings.HasPrefix(target, "//")
}

// links returns the link targets of a Markdown text, outside code.
func links(text string) []link {
	var out []link
	forEachProseLine(text, func(n int, line string) {
		line = stripCodeSpans(line)
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{n, m[1]})
		}
		if m := referenceDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{n, m[1]})
		}
		for _, m := range htmlLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{n, m[1]})
		}
	})
	return out
}

// forEachProseLine calls f with every line (numbered from 1) that is not
// inside a fenced code block, fences included in "code".
func forEachProseLine(text string, f func(n int, line string)) {
	fence := "" // the opening fence while inside a code block
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			run := trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, trimmed[:1]))]
			switch {
			case fence == "":
				fence = run
			case run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(trimmed[len(run):]) == "":
				fence = ""
			}
			continue
		}
		if fence == "" {
			f(i+1, line)
		}
	}
}

// stripCodeSpans removes `code` from a line: a link inside it is an example.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		start := strings.Index(line, "`")
		if start < 0 {
			b.WriteString(line)
			return b.String()
		}
		n := len(line[start:]) - len(strings.TrimLeft(line[start:], "`"))
		ticks := line[start : start+n]
		end := strings.Index(line[start+n:], ticks)
		if end < 0 { // unmatched: the backticks are text
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:start])
		b.WriteString(" code ")
		line = line[start+n+end+n:]
	}
}

var (
	atxHeading   = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	setextMarker = regexp.MustCompile(`^ {0,3}(=+|-+)\s*$`)
	htmlAnchor   = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// anchors returns the #fragments a Markdown text offers, as GitHub makes
// them: one per heading (a repeated heading gets -1, -2, …), plus explicit
// <a name="…"> anchors.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	add := func(heading string) {
		s := slug(heading)
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	prev := ""
	forEachProseLine(text, func(_ int, line string) {
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			add(m[1])
		} else if setextMarker.MatchString(line) && strings.TrimSpace(prev) != "" &&
			!strings.HasPrefix(strings.TrimSpace(prev), "|") && atxHeading.FindStringSubmatch(prev) == nil {
			add(strings.TrimSpace(prev))
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[strings.ToLower(m[1])] = true
		}
		prev = line
	})
	return out
}

var markdownLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: the rendered text, lower case,
// without punctuation except '-' and '_', spaces turned into '-'.
func slug(heading string) string {
	text := markdownLink.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "**", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-', unicode.IsLetter(r), unicode.IsNumber(r), unicode.IsMark(r), unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
