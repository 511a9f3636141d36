package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The pages show the visualizer's frames as code blocks, and scripts/pictures
// writes the same frames to pictures/*.txt and copies them into the pages.
// This test keeps the two from drifting apart: a page edited by hand, or a
// picture regenerated without its page, fails here.

var pictureMarker = regexp.MustCompile(`^<!-- picture: (\S+) -->$`)

func TestPicturesInThePagesAreTheFilesScriptsPicturesWrote(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	// The repository's README shows one too; its marker paths start at the root.
	pages = append(pages, filepath.Join("..", "README.md"))
	shown := map[string]bool{}
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for name, block := range embeddedPictures(string(text)) {
			if filepath.Dir(page) == ".." {
				name = strings.TrimPrefix(name, "docs/")
			}
			shown[name] = true
			want, err := os.ReadFile(filepath.FromSlash(name))
			if err != nil {
				t.Errorf("%s shows %s, which cannot be read: %v", page, name, err)
				continue
			}
			if block != strings.TrimRight(string(want), "\n") {
				t.Errorf("%s: the block under %q differs from the file; run scripts/pictures", page, name)
			}
		}
	}

	files, err := filepath.Glob("pictures/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Errorf("pictures/ holds %v; want the herd (03), the hand-off (04) and the killed holder (04)", files)
	}
	for _, f := range files {
		f = filepath.ToSlash(f)
		if !shown[f] {
			t.Errorf("%s is shown on no page", f)
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// A picture is real visualizer output: the command, then frames.
		first, _, _ := strings.Cut(string(text), "\n")
		if !strings.HasPrefix(first, "$ go run ./visualizer ") || !strings.Contains(string(text), "── frame ") {
			t.Errorf("%s does not look like scripts/pictures output (first line %q)", f, first)
		}
	}
	if t.Failed() {
		names := make([]string, 0, len(shown))
		for n := range shown {
			names = append(names, n)
		}
		slices.Sort(names)
		t.Logf("pictures shown on pages: %v", names)
	}
}

// embeddedPictures returns, for each marker line in a page, the content of
// the fenced block right after it.
func embeddedPictures(text string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := pictureMarker.FindStringSubmatch(lines[i])
		if m == nil || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			continue
		}
		end := i + 2
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		out[m[1]] = strings.Join(lines[i+2:end], "\n")
		i = end
	}
	return out
}
