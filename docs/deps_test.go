package docs

import (
	"os/exec"
	"strings"
	"testing"
)

// A chapter's program and its lock are what a learner reads, builds first
// and copies into a service, so they link the ZooKeeper client and the
// standard library, and nothing a test or a container needs: those belong
// to the tests, reliability/, the visualizer and the Docker helper
// (internal/cmd/zkdocker, which internal/zkserver runs as a separate
// process). Packages named *test (seqlocktest) are test helpers and may.

const module = "github.com/lockstep-zk/lockstep"

// heavy are the module path prefixes no chapter package may link.
var heavy = []struct{ prefix, why string }{
	{"github.com/stretchr/testify", "a test library"},
	{"github.com/testcontainers/", "the Docker path (internal/cmd/zkdocker, a separate process)"},
	{"github.com/moby/", "a Docker client"},
	{"github.com/docker/", "a Docker client"},
}

// faultServer are the module path prefixes of a fault-injection server and
// what it brings: no binary of the module links them, and no test binary
// either (a learner's check links faster without them). Faults are
// internal/zkproxy's, a relay of our own.
var faultServer = []struct{ prefix, why string }{
	{"github.com/Shopify/toxiproxy", "a fault-injection server; internal/zkproxy is our relay"},
	{"github.com/prometheus/", "metrics, through toxiproxy"},
	{"github.com/gorilla/", "an HTTP router, through toxiproxy"},
	{"github.com/rs/zerolog", "a logger, through toxiproxy"},
	{"gopkg.in/tomb", "goroutine lifetimes, through toxiproxy"},
}

func TestNoBinaryOrTestBinaryLinksAFaultInjectionServer(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}} {{.Name}}{{range .Deps}} {{.}}{{end}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderrOf(err))
	}
	var binaries, tests int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, name, deps := f[0], f[1], f[2:]
		if name != "main" {
			continue // a library's deps show in the binaries that link it
		}
		if strings.HasSuffix(pkg, ".test") {
			tests++
		} else {
			binaries++
		}
		for _, h := range faultServer {
			for _, d := range deps {
				if strings.HasPrefix(d, h.prefix) {
					t.Errorf("%s links %s (%s); see go list -deps -test", pkg, d, h.why)
					break
				}
			}
		}
	}
	t.Logf("%d binaries and %d test binaries checked", binaries, tests)
	if binaries == 0 || tests == 0 {
		t.Fatalf("checked %d binaries and %d test binaries: go list found none", binaries, tests)
	}
}

func TestNoChapterLinksATestFaultOrContainerLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	var patterns []string
	for _, ch := range chapters(t) {
		patterns = append(patterns, "./"+ch+"/...")
	}
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Name}}{{range .Deps}} {{.}}{{end}}"}, patterns...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderrOf(err))
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, name, deps := f[0], f[1], f[2:]
		if strings.HasSuffix(name, "test") {
			continue
		}
		checked++
		thirdParty := 0
		for _, d := range deps {
			if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && !strings.HasPrefix(d, module+"/") {
				thirdParty++
			}
		}
		for _, h := range heavy {
			var found []string
			for _, d := range deps {
				if strings.HasPrefix(d, h.prefix) {
					found = append(found, d)
				}
			}
			if len(found) > 0 {
				t.Errorf("%s links %d packages of %s (%s), e.g. %s; see go list -deps %s", pkg, len(found), h.prefix, h.why, found[0], pkg)
			}
		}
		if name == "main" {
			t.Logf("%s: third-party packages: %d", pkg, thirdParty)
		}
	}
	if checked < len(patterns) {
		t.Fatalf("checked %d packages for %d chapters", checked, len(patterns))
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
