package zktest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// noServerEnv is an environment in which no ZooKeeper can be started (an
// unknown LOCKSTEP_ZK is refused before anything runs): a run that asked
// for one fails with zkserver's error, a run that never asked passes.
func noServerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZK_SERVERS=") && !strings.HasPrefix(kv, "LOCKSTEP_ZK=") {
			env = append(env, kv)
		}
	}
	return append(env, "LOCKSTEP_ZK=podman")
}

// runThisBinary runs this package's test binary again, on the tests run
// names, where no server can be started.
func runThisBinary(t *testing.T, run string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", run, "-test.count=1", "-test.v")
	cmd.Env = noServerEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A run of table tests only (the workshop's rule tier) starts no ZooKeeper:
// Main starts nothing, so where none can be started, the run still passes.
func TestARunOfTableTestsOnlyStartsNoServer(t *testing.T) {
	out, err := runThisBinary(t, "^TestNotificationsAreCountedOnTheWire$")
	if err != nil || !strings.Contains(out, "--- PASS: TestNotificationsAreCountedOnTheWire") {
		t.Fatalf("a table test where no server can be started: %v; want it to pass without one\n%s", err, out)
	}
}

// The first test that asks for the server starts it; when it cannot be
// started, that test fails with zkserver's own error, as Main used to
// before any test ran.
func TestAServerThatCannotStartFailsTheTestThatAsksWithWhy(t *testing.T) {
	out, err := runThisBinary(t, "^TestWatchedByFiring$")
	if err == nil {
		t.Fatalf("a test that needs a server passed where none can be started:\n%s", out)
	}
	if !strings.Contains(out, "--- FAIL: TestWatchedByFiring") || !strings.Contains(out, `LOCKSTEP_ZK="podman": want docker or local`) {
		t.Errorf("want TestWatchedByFiring to fail with zkserver's reason, got:\n%s", out)
	}
}
