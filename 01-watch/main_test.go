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
// prints with the transcript in README.md, so the lesson never shows output
// the code no longer produces. What may differ from run to run is checked
// for its meaning instead: where ZooKeeper runs, the run's own root, the
// session timeout the server granted, and the list of states the expiring
// client went through.
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
	want := normalize(t, transcript(t, string(readme)))
	got := normalize(t, out.String())
	if got != want {
		t.Fatalf("the demo's output differs from README.md's transcript.\n--- demo printed:\n%s\n--- README.md shows:\n%s", got, want)
	}
}

// transcript is the text block of README.md that starts with the command.
func transcript(t *testing.T, readme string) string {
	t.Helper()
	const start = "```text\n$ go run ./01-watch\n"
	i := strings.Index(readme, start)
	if i < 0 {
		t.Fatalf("README.md has no block starting with %q", start)
	}
	rest := readme[i+len(start):]
	j := strings.Index(rest, "```")
	if j < 0 {
		t.Fatal("README.md: transcript block not closed")
	}
	return rest[:j]
}

var (
	runRoot = regexp.MustCompile(`/lockstep/01-watch/run-[0-9a-f]{6}`)
	granted = regexp.MustCompile(`granted [0-9.]+m?s\)`)
)

func normalize(t *testing.T, s string) string {
	t.Helper()
	if !strings.HasPrefix(s, "01-watch: this run works under /lockstep/01-watch/run-") {
		t.Errorf("the first line does not say where this run works:\n%s", s)
	}
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
