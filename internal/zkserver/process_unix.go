//go:build unix

package zkserver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// watchdog runs the JVM in the background and waits on its standard input,
// a pipe whose write end only this Go process holds. When the Go process
// exits for any reason — a finished test, Ctrl-C, a panic, SIGKILL — the
// kernel closes the pipe, read returns, and the JVM is killed. That is what
// keeps an interrupted "go test" from leaving a QuorumPeerMain behind.
//
// It also removes the server's directory then ($ZK_WATCHDOG_DIR), which a
// Go process that died could not do.
const watchdog = `"$@" </dev/null & pid=$!
read _ignored
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -n "$ZK_WATCHDOG_DIR" ] && rm -rf "$ZK_WATCHDOG_DIR"`

// process is a child in its own process group: the JVM under the watchdog,
// or the Docker helper (helper.go).
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the child has exited
	err   error
}

// startProcess runs java with args under the watchdog; dir is removed by
// the watchdog if this Go process dies first.
func startProcess(java string, args []string, logPath, dir string) (*process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own copy
	cmd := exec.Command("/bin/sh", append([]string{"-c", watchdog, "zk-watchdog", java}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "ZK_WATCHDOG_DIR="+dir)
	return startGroup(cmd)
}

// startGroup starts cmd with a pipe on its standard input, whose write end
// only this Go process holds, so the child sees end-of-file when we close it
// or die. It runs in its own process group, so Ctrl-C in a terminal reaches
// only us (we then clean up) and kill(-pgid) takes the child and whatever it
// started together.
func startGroup(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// exited reports an error once the process has died.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("zkserver: server process exited: %v", p.err)
	default:
		return nil
	}
}

// kill stops the whole process group and waits for it.
func (p *process) kill() {
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.cmd.Process.Kill()
	}
	p.stdin.Close()
	<-p.done
}

// stop closes the child's standard input, its signal to clean up and exit,
// and kills the group if it has not exited within grace.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
	}
}
