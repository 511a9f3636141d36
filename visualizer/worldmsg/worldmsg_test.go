package worldmsg_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The world tells, the view shows: the live world and the observer speak
// this package's messages and link none of the view's code.
func TestTheWorldAndTheObserverDoNotImportTheView(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, pkg := range []string{"../world", "../observe"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, d := range deps {
			if strings.HasSuffix(d, "/visualizer/tui") {
				t.Errorf("%s imports %s: its messages live in visualizer/worldmsg, the view's interfaces are the view's", pkg, d)
			}
		}
		if len(deps) == 0 || !strings.HasSuffix(deps[len(deps)-1], strings.TrimPrefix(pkg, "..")) {
			t.Fatalf("go list -deps %s listed %d packages, the last %q", pkg, len(deps), deps[len(deps)-1])
		}
	}
}
