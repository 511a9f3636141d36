// Package standin builds, for the workshop's tests, a tiny module with one
// exercise whose test never ends and leaves behind what a chapter's test
// leaves behind when it is killed: a child in its process group, and a
// child in a group of its own that ends when the test's pipe closes (as
// ZooKeeper's watchdog does, internal/zkserver). A test of the runner runs
// it, waits until it has started them, cancels it, and checks nothing is
// left.
package standin

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// FifoEnv names the FIFO the stand-in test writes its processes' ids to,
// once they all run.
const FifoEnv = "STANDIN_FIFO"

const testFile = `package x

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestHangs(t *testing.T) {
	inGroup := exec.Command("sleep", "600")
	if err := inGroup.Start(); err != nil {
		t.Fatal(err)
	}
	server := exec.Command("sh", "-c", "read _")
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if _, err := server.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(os.Getenv("` + FifoEnv + `"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%d %d %d\n", os.Getpid(), inGroup.Process.Pid, server.Process.Pid)
	f.Close()
	select {}
}
`

// Module writes the stand-in module under a new temporary directory and
// returns its root and its one exercise, chapter "01".
func Module(t testing.TB) (string, []course.Exercise) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                  "module standin\n\ngo 1.22\n",
		"01-hang/x/x.go":          "//go:build !workshop\n\npackage x\n",
		"01-hang/x/x_workshop.go": "//go:build workshop\n\npackage x\n",
		"01-hang/x/x_test.go":     testFile,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := course.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, all
}

// Started makes the FIFO, points the stand-in test at it, and returns a
// channel that delivers the ids of the test binary and its two children
// once the test has started them (nothing, if ctx ends first).
func Started(ctx context.Context, t *testing.T) <-chan []int {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(FifoEnv, fifo)
	out := make(chan []int, 1)
	go func() {
		// Opening a FIFO to read blocks until the writer opens it; a
		// run that never gets there is ended by ctx: then open it
		// ourselves for writing, to unblock the read.
		go func() {
			<-ctx.Done()
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}()
		f, err := os.Open(fifo)
		if err != nil {
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		var pids []int
		for _, w := range strings.Fields(line) {
			if pid, err := strconv.Atoi(w); err == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) == 3 {
			out <- pids
		}
	}()
	return out
}

// Alive says whether pid is a live process (a zombie is not: it holds
// nothing and waits only to be reaped).
func Alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
