// Package jvm runs a small Java program beside Go code: it finds java and
// javac, checks a class path (Debian's Apache Curator by default),
// compiles one source file into a temporary directory and runs it in a
// JVM, talking over its stdin and stdout one line at a time.
//
// The bench (its Curator row) and the interop tests (a real Curator
// contending with lockstep's locks) both use it, so Java is found, and its
// absence explained, in one place.
package jvm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// CuratorClasspath is Debian's Curator (apt-get install
// libcurator-recipes-java): the recipes jar's manifest names the client,
// framework, ZooKeeper, Guava and SLF4J jars it needs.
const CuratorClasspath = "/usr/share/java/curator-recipes.jar"

// What to install when Java or the jars are missing (Debian's names).
const (
	InstallJDK     = "apt-get install -y default-jdk-headless, or set JAVA_HOME"
	InstallCurator = "apt-get install -y libcurator-recipes-java"
)

// Tools finds java and javac ($JAVA_HOME/bin first, then PATH).
func Tools() (java, javac string, err error) {
	find := func(name string) (string, error) {
		if home := os.Getenv("JAVA_HOME"); home != "" {
			p := filepath.Join(home, "bin", name)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return exec.LookPath(name)
	}
	if java, err = find("java"); err != nil {
		return "", "", fmt.Errorf("no java in PATH (%s)", InstallJDK)
	}
	if javac, err = find("javac"); err != nil {
		return "", "", fmt.Errorf("no javac in PATH (%s)", InstallJDK)
	}
	return java, javac, nil
}

// Classpath checks that every entry of classpath exists, and adds SLF4J's
// no-op binding when it sits next to the first jar (it keeps SLF4J's "no
// binding" warning off stderr).
func Classpath(classpath string) (string, error) {
	entries := filepath.SplitList(classpath)
	if len(entries) == 0 {
		return "", fmt.Errorf("no Curator jars: the class path is empty (%s)", InstallCurator)
	}
	for _, e := range entries {
		if _, err := os.Stat(e); err != nil {
			return "", fmt.Errorf("no Curator jars at %s (%s)", e, InstallCurator)
		}
	}
	if nop := filepath.Join(filepath.Dir(entries[0]), "slf4j-nop.jar"); fileExists(nop) {
		entries = append(entries, nop)
	}
	return strings.Join(entries, string(filepath.ListSeparator)), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Missing is why a program on classpath cannot run here (one line that
// names what to install), or "" if it can.
func Missing(classpath string) string {
	if _, _, err := Tools(); err != nil {
		return err.Error()
	}
	if _, err := Classpath(classpath); err != nil {
		return err.Error()
	}
	return ""
}

// Program is a compiled Java program: its classes in a temporary
// directory, which Remove deletes.
type Program struct {
	Main      string // the class with main
	dir       string // javac's output
	classpath string // dir and the checked class path
}

// Compile compiles source, the file <main>.java, against classpath into a
// new temporary directory. It needs no server, so callers can run it while
// one starts.
func Compile(ctx context.Context, classpath, main string, source []byte) (*Program, error) {
	_, javac, err := Tools()
	if err != nil {
		return nil, err
	}
	cp, err := Classpath(classpath)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lockstep-jvm-"+strings.ToLower(main)+"-")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, main+".java")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := exec.CommandContext(ctx, javac, "-nowarn", "-d", dir, "-cp", cp, src).CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("javac %s.java: %w\n%s", main, err, bytes.TrimSpace(out))
	}
	return &Program{Main: main, dir: dir, classpath: dir + string(filepath.ListSeparator) + cp}, nil
}

// Remove deletes the compiled classes.
func (p *Program) Remove() { os.RemoveAll(p.dir) }

// Process is a running Program. Its stdout arrives line by line on
// Lines; Expect and Step read it as a dialogue (one command, one answer).
type Process struct {
	name   string // for messages: "curator runner"
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout, line by line; closed at exit
	stderr *tailBuffer
	exited chan struct{} // closed when the JVM has exited
	mu     sync.Mutex    // one writer of stdin at a time
}

// Start runs the program in a JVM with args; name is how messages call it.
func (p *Program) Start(name string, args ...string) (*Process, error) {
	java, _, err := Tools()
	if err != nil {
		return nil, err
	}
	c := &Process{name: name, lines: make(chan string, 64), stderr: &tailBuffer{max: 4 << 10}}
	c.cmd = exec.Command(java, append([]string{"-cp", p.classpath, p.Main}, args...)...)
	c.cmd.Stderr = c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the %s: %w", name, err)
	}
	c.exited = make(chan struct{})
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				c.lines <- line
			}
			if err != nil {
				break
			}
		}
		close(c.lines)
		c.cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// Lines is the program's stdout, one line at a time; it is closed when
// the program exits.
func (c *Process) Lines() <-chan string { return c.lines }

// Send writes one line to the program's stdin.
func (c *Process) Send(line string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		return fmt.Errorf("%s: send %q: %w%s", c.name, strings.Fields(line)[0], err, c.Stderr())
	}
	return nil
}

// Step sends one command and waits, at most limit, for the answer that
// starts with want; it returns the rest of that line.
func (c *Process) Step(ctx context.Context, cmd, want string, limit time.Duration) (string, error) {
	if err := c.Send(cmd); err != nil {
		return "", err
	}
	return c.Expect(ctx, want, limit)
}

// Expect waits, at most limit, for the next line, which must start with
// want; it returns the rest of it. A line "error <message>" is returned as
// an error. A program that does not answer in time is killed.
func (c *Process) Expect(ctx context.Context, want string, limit time.Duration) (string, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", fmt.Errorf("%s exited%s", c.name, c.Stderr())
		}
		if rest, found := strings.CutPrefix(line, want); found {
			return strings.TrimSpace(rest), nil
		}
		if msg, found := strings.CutPrefix(line, "error "); found {
			return "", fmt.Errorf("%s: %s", c.name, msg)
		}
		return "", fmt.Errorf("%s: want %q, got %q", c.name, want, line)
	case <-timer.C:
		c.Kill()
		return "", fmt.Errorf("%s: no %q within %v%s", c.name, want, limit, c.Stderr())
	case <-ctx.Done():
		c.Kill()
		return "", ctx.Err()
	}
}

// Kill ends a program that stopped answering; every later step fails.
func (c *Process) Kill() {
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
}

// Close ends the program's input (it should exit at the end of it), waits
// up to 10 s for it to exit, and kills it after that.
func (c *Process) Close() {
	c.stdin.Close()
	go func() { // nobody reads any more: let the reader reach the exit
		for range c.lines {
		}
	}()
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.Kill()
		<-c.exited
	}
}

// Stderr is ":\n<the last lines of stderr>", or "" when there were none:
// a suffix for error messages.
func (c *Process) Stderr() string { return c.stderr.tail() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return ":\n" + s
}
