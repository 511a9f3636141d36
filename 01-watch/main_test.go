package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// TestDemoPrintsTheREADMETranscript runs the demo and compares what it
// prints with the transcripts in README.md (an excerpt in "Run it", the whole
// run under "Going further"), so the lesson never shows output the code no
// longer produces. A line "…" in a transcript stands for lines left out.
// What may differ from run to run is checked for its meaning instead: where
// ZooKeeper runs, the run's own root, the session timeout the server
// granted, and the list of states the expiring client went through.
func TestDemoPrintsTheREADMETranscript(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	args := []string{"-servers", strings.Join(zktest.Servers(t), ","), "-session", "1s"}
	if err := demo.Execute(ctx, program, args, &out); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "01-watch: this run works under /lockstep/01-watch/run-") {
		t.Errorf("the first line does not say where this run works:\n%s", out.String())
	}
	got := strings.Split(normalize(t, out.String()), "\n")
	blocks := transcripts(t, string(readme))
	for i, block := range blocks {
		want := strings.Split(normalize(t, block), "\n")
		if !matches(got, want) {
			t.Errorf("the demo's output differs from README.md's transcript %d of %d.\n--- demo printed:\n%s\n--- README.md shows (… = lines left out):\n%s",
				i+1, len(blocks), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// elided is the line that stands for lines left out of a transcript.
const elided = "…"

// matches reports whether got, line by line, is want with each "…" line
// standing for any number of lines (none included).
func matches(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == elided {
		for i := 0; i <= len(got); i++ {
			if matches(got[i:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && got[0] == want[0] && matches(got[1:], want[1:])
}

// transcripts are the text blocks of README.md that start with the command.
func transcripts(t *testing.T, readme string) []string {
	t.Helper()
	const start = "```text\n$ go run ./01-watch\n"
	var out []string
	for rest := readme; ; {
		i := strings.Index(rest, start)
		if i < 0 {
			break
		}
		rest = rest[i+len(start):]
		j := strings.Index(rest, "```")
		if j < 0 {
			t.Fatal("README.md: transcript block not closed")
		}
		out = append(out, rest[:j])
		rest = rest[j:]
	}
	if len(out) == 0 {
		t.Fatalf("README.md has no block starting with %q", start)
	}
	return out
}

var (
	runRoot = regexp.MustCompile(`/lockstep/01-watch/run-[0-9a-f]{6}`)
	granted = regexp.MustCompile(`granted [0-9.]+m?s\)`)
)

func normalize(t *testing.T, s string) string {
	t.Helper()
	s = runRoot.ReplaceAllString(s, "/lockstep/01-watch/run-…")
	s = granted.ReplaceAllString(s, "granted …)")
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		switch {
		case strings.HasPrefix(line, "ZooKeeper at "):
			continue // the port, and whether -servers was given
		case strings.HasPrefix(line, "   then: "):
			if !strings.Contains(line, "StateExpired") || !strings.HasSuffix(line, "StateHasSession") {
				t.Errorf("the expiring client's states %q: want StateExpired, ending with StateHasSession", line)
			}
			line = "   then: (states)"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func TestTheTranscriptMatcherHonoursElisions(t *testing.T) {
	got := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "b", "c", "d"}, true},
		{[]string{"a", elided, "d"}, true},
		{[]string{elided, "b", "c", elided}, true},
		{[]string{elided}, true},
		{[]string{"a", "c", "d"}, false},    // a line left out without "…"
		{[]string{"a", "b", "c"}, false},    // the end left out without "…"
		{[]string{elided, "c", "b"}, false}, // out of order
		{[]string{"a", elided, "x"}, false}, // a line the demo never printed
	} {
		if matches(got, c.want) != c.ok {
			t.Errorf("matches(%q, %q) = %v, want %v", got, c.want, !c.ok, c.ok)
		}
	}
}
