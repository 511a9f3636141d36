package course

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Hash is the content hash of ex's exercise files as they are on disk: a
// verdict is about the version it judged, and "passing" holds only while
// the files still hash the same.
func Hash(root string, ex Exercise) string {
	h := sha256.New()
	for _, f := range ex.Files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			fmt.Fprintf(h, "%s: unreadable\x00", f)
			continue
		}
		fmt.Fprintf(h, "%s %d\x00", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// runMark is put in the environment of every go test a run starts; every
// process it starts inherits it, even one that leaves the process group (a
// ZooKeeper under its watchdog does, internal/zkserver), so a cancelled run
// can find what is left of it.
const runMark = "LOCKSTEP_WORKSHOP_RUN"

// A run's go test is the leader of its own process group, so that one
// signal reaches go, the compiler, the test binary and whatever the test
// started in the group. A cancelled run ends that way, not by a kill of
// go alone, which would leave the test binary running on.
func startGroup(cmd *exec.Cmd, mark string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(cmd.Env, runMark+"="+mark)
	// An interrupt first, as Ctrl-C in a terminal would send it: go
	// removes its build directory and the test binary dies; whatever
	// still runs a few seconds later is killed (endRun).
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		if err == syscall.ESRCH {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = 5 * time.Second
}

// endRun makes sure nothing a run started outlives it: the process group is
// killed (a no-op when go test ended by itself, having waited for its
// children), then every process still carrying the run's mark is given
// grace to end by itself — a ZooKeeper's watchdog kills the JVM and removes
// the server's directory when the test binary's pipe closes — and killed
// after that.
func endRun(cmd *exec.Cmd, mark string, grace time.Duration) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(grace)
	for {
		left := marked(mark)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			deadline = time.Now().Add(grace)
		}
		// These processes are not our children: nothing to wait on but
		// their entries in /proc.
		time.Sleep(20 * time.Millisecond)
	}
}

// marked lists the live processes whose environment holds mark (none where
// there is no /proc: there, the process group and ZooKeeper's watchdog are
// all the cleaning there is). Zombies count as gone: they hold nothing.
func marked(mark string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(runMark + "=" + mark + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}
