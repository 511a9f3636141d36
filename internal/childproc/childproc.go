// Package childproc runs a test's own binary again as a child process that
// plays one part of the test: a lock holder the test can SIGKILL, or freeze
// with SIGSTOP as a long GC pause or a closed laptop lid freezes a program.
// Only a real process can be frozen or killed that way.
//
// The two sides speak typed messages. The parent passes a config, as JSON,
// in one environment variable; the child answers with messages, one JSON
// object per line on its standard output; the parent may write lines on
// the child's standard input. The test's TestMain hands over to the child's
// part when the variable is set:
//
//	func TestMain(m *testing.M) {
//		if cfg, ok, err := childproc.Config[holderConfig](holderEnv); ok {
//			os.Exit(holderMain(cfg, err))
//		}
//		zktest.Main(m)
//	}
//
// and a test starts the child and reads what it says:
//
//	c := childproc.Start[holderMsg](t, holderEnv, holderConfig{…})
//	m := c.Next(t, patience)
package childproc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Config reads the config the parent passed in the environment variable
// env. ok is false in the parent (env is not set): the process runs its
// tests. In the child, a config that does not decode is an error naming
// the variable.
func Config[C any](env string) (cfg C, ok bool, err error) {
	s, ok := os.LookupEnv(env)
	if !ok {
		return cfg, false, nil
	}
	if err := json.Unmarshal([]byte(s), &cfg); err != nil {
		return cfg, true, fmt.Errorf("childproc: the config in %s: %w", env, err)
	}
	return cfg, true, nil
}

// Say writes m, a message of the child, as one line of JSON on its
// standard output.
func Say(m any) {
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"childproc_error": err.Error()})
	}
	os.Stdout.Write(append(b, '\n'))
}

// Child is a running child process whose messages are of type M.
type Child[M any] struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	msgs  chan M // its messages, in order; closed when its stdout ends

	mu   sync.Mutex
	said strings.Builder // every line it wrote, messages or not, for failures
}

// Start runs the test binary again, with no test selected, env set to cfg
// as JSON, and the child's standard error on the test's. It stops the
// child (SIGKILL, harmless if it has exited) and waits for it when the
// test ends. A line of the child's standard output that is not a JSON
// object (a library's log line) is kept for failure messages only.
func Start[M any](t testing.TB, env string, cfg any) *Child[M] {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatalf("childproc: the child's config: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("childproc: start %s: %v", os.Args[0], err)
	}
	c := &Child[M]{cmd: cmd, stdin: stdin, msgs: make(chan M, 64)}
	go c.read(stdout)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		stdin.Close()
		for range c.msgs {
		}
		cmd.Wait()
	})
	return c
}

func (c *Child[M]) read(stdout io.Reader) {
	defer close(c.msgs)
	s := bufio.NewScanner(stdout)
	for s.Scan() {
		c.mu.Lock()
		c.said.WriteString(s.Text() + "\n")
		c.mu.Unlock()
		var m M
		if !strings.HasPrefix(s.Text(), "{") || json.Unmarshal(s.Bytes(), &m) != nil {
			continue
		}
		c.msgs <- m
	}
}

// Next returns the child's next message. It fails the test if the child
// exits first or says nothing within patience, quoting all it said.
func (c *Child[M]) Next(t testing.TB, patience time.Duration) M {
	t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			t.Fatalf("the child exited before its next message; it said:\n%s", c.transcript())
		}
		return m
	case <-time.After(patience):
		t.Fatalf("the child said nothing more for %v; it said:\n%s", patience, c.transcript())
	}
	var none M
	return none
}

// Send writes line, and a newline, on the child's standard input.
func (c *Child[M]) Send(line string) error {
	_, err := io.WriteString(c.stdin, line+"\n")
	return err
}

// Signal sends sig to the child: SIGKILL, SIGSTOP, SIGCONT.
func (c *Child[M]) Signal(sig os.Signal) error {
	return c.cmd.Process.Signal(sig)
}

func (c *Child[M]) transcript() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.said.String()
}
