package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The Curator row runs Apache Curator's InterProcessMutex (Java) under the
// bench's workloads. bench/curator/CuratorBench.java is compiled with javac
// into a temporary directory when the bench starts, run once in a JVM for
// the whole bench, and driven one step at a time over its stdin/stdout (the
// protocol is at the top of the Java file). Its sessions go through a
// countingProxy, so its requests and notifications are counted at the wire
// exactly like the Go locks'.

//go:embed curator/CuratorBench.java
var curatorSource []byte

// defaultCuratorClasspath is Debian's Curator (apt-get install
// libcurator-recipes-java): the recipes jar's manifest names the client,
// framework, ZooKeeper, Guava and SLF4J jars it needs.
const defaultCuratorClasspath = "/usr/share/java/curator-recipes.jar"

// What to install when Java or the jars are missing (Debian's names).
const (
	installJDK     = "apt-get install -y default-jdk-headless, or set JAVA_HOME"
	installCurator = "apt-get install -y libcurator-recipes-java, or give -curator-classpath"
)

// curator is the JVM that runs CuratorBench; one per bench run.
type curator struct {
	version string // Curator's, as the runner reports it
	wire    *wire  // counts everything that passes the proxies
	connect string // the proxies' addresses: Curator's connect string
	session time.Duration

	proxies []*countingProxy
	dir     string // javac's output
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string // the runner's stdout, line by line; closed at exit
	stderr  *tailBuffer
	exited  chan struct{} // closed when the JVM has exited; nil until it started
}

// javaTools finds java and javac ($JAVA_HOME/bin first, then PATH).
func javaTools() (java, javac string, err error) {
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
		return "", "", fmt.Errorf("no java in PATH (%s)", installJDK)
	}
	if javac, err = find("javac"); err != nil {
		return "", "", fmt.Errorf("no javac in PATH (%s)", installJDK)
	}
	return java, javac, nil
}

// curatorClasspath checks that every entry of classpath exists, and adds
// SLF4J's no-op binding when it sits next to the jars (it keeps SLF4J's
// "no binding" warning off stderr).
func curatorClasspath(classpath string) (string, error) {
	entries := filepath.SplitList(classpath)
	if len(entries) == 0 {
		return "", fmt.Errorf("no Curator jars: -curator-classpath is empty (%s)", installCurator)
	}
	for _, e := range entries {
		if _, err := os.Stat(e); err != nil {
			return "", fmt.Errorf("no Curator jars at %s (%s)", e, installCurator)
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

// curatorMissing is why the Curator row cannot run here, or "" if it can.
func curatorMissing(classpath string) string {
	if _, _, err := javaTools(); err != nil {
		return err.Error()
	}
	if _, err := curatorClasspath(classpath); err != nil {
		return err.Error()
	}
	return ""
}

// compileCurator compiles the runner into a new temporary directory, which
// the caller removes. It needs no server, so the bench does it while the
// server starts.
func compileCurator(ctx context.Context, classpath string) (dir, cp string, err error) {
	_, javac, err := javaTools()
	if err != nil {
		return "", "", err
	}
	if cp, err = curatorClasspath(classpath); err != nil {
		return "", "", err
	}
	dir, err = os.MkdirTemp("", "lockstep-bench-curator-")
	if err != nil {
		return "", "", err
	}
	src := filepath.Join(dir, "CuratorBench.java")
	if err := os.WriteFile(src, curatorSource, 0o644); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	out, err := exec.CommandContext(ctx, javac, "-nowarn", "-d", dir, "-cp", cp, src).CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("javac CuratorBench.java: %w\n%s", err, bytes.TrimSpace(out))
	}
	return dir, cp, nil
}

// startCurator starts the compiled runner in a JVM, behind one counting
// proxy per server. The runner's Close removes dir, and so does a failure.
func startCurator(dir, cp string, servers []string, session time.Duration) (*curator, error) {
	java, _, err := javaTools()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &curator{wire: newWire(), dir: dir, session: session, lines: make(chan string, 16),
		stderr: &tailBuffer{max: 4 << 10}}
	var addrs []string
	for _, s := range servers {
		p, err := newCountingProxy(s, c.wire)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.proxies = append(c.proxies, p)
		addrs = append(addrs, p.Addr())
	}
	c.connect = strings.Join(addrs, ",")
	c.cmd = exec.Command(java, "-cp", dir+string(filepath.ListSeparator)+cp, "CuratorBench")
	c.cmd.Stderr = c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		c.Close()
		return nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		c.Close()
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		c.Close()
		return nil, fmt.Errorf("start the Curator runner: %w", err)
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
	hello, err := c.expect(context.Background(), "curator", time.Minute)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.version = hello
	return c, nil
}

// step sends one command and waits, at most limit, for the answer that
// starts with want; it returns the rest of that line.
func (c *curator) step(ctx context.Context, cmd, want string, limit time.Duration) (string, error) {
	if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
		return "", fmt.Errorf("curator runner: send %q: %w%s", strings.Fields(cmd)[0], err, c.stderr.tail())
	}
	return c.expect(ctx, want, limit)
}

func (c *curator) expect(ctx context.Context, want string, limit time.Duration) (string, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", fmt.Errorf("curator runner exited%s", c.stderr.tail())
		}
		if rest, found := strings.CutPrefix(line, want); found {
			return strings.TrimSpace(rest), nil
		}
		if msg, found := strings.CutPrefix(line, "error "); found {
			return "", fmt.Errorf("curator: %s", msg)
		}
		return "", fmt.Errorf("curator runner: want %q, got %q", want, line)
	case <-timer.C:
		c.kill()
		return "", fmt.Errorf("curator runner: no %q within %v%s", want, limit, c.stderr.tail())
	case <-ctx.Done():
		c.kill()
		return "", ctx.Err()
	}
}

// kill ends a runner that stopped answering; every later step fails.
func (c *curator) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
}

// warmUp runs acquire+release on one Curator session for d, so the JVM
// has compiled Curator's lock path before the first sample.
func (c *curator) warmUp(ctx context.Context, dir string, d time.Duration) error {
	_, err := c.step(ctx, fmt.Sprintf("warmup %s %d %s %d", c.connect, c.session.Milliseconds(), dir, d.Milliseconds()),
		"warm", d+time.Minute)
	return err
}

// curatorResult is the runner's answer to "go".
type curatorResult struct {
	Acquires  int     `json:"acquires"`
	Releases  int     `json:"releases"`
	ElapsedNs int64   `json:"elapsed_ns"`
	WaitsNs   []int64 `json:"waits_ns"`
	Error     string  `json:"error"`
}

// measure takes one sample of s on dir, as bench.measure does for the Go
// locks: sessions and locks made first, counters read at the start signal
// and after the last release, sessions closed after.
func (c *curator) measure(ctx context.Context, b *bench, s spec, dir string, budget time.Duration) (x sample) {
	x.packets = -1
	shared := 0
	if s.shared {
		shared = 1
	}
	// Opening many sessions is slow in a JVM that shares two cores; the
	// limits only stop a runner that hangs.
	prepare := fmt.Sprintf("prepare %s %d %s %d %d %d %d %d", c.connect, c.session.Milliseconds(), dir,
		s.contenders, s.rounds, shared, b.hold.Microseconds(), budget.Milliseconds())
	if _, err := c.step(ctx, prepare, "ready", 2*time.Minute+time.Duration(s.contenders)*time.Second); err != nil {
		x.err = fmt.Errorf("prepare %d Curator contenders: %w", s.contenders, err)
		return x
	}
	packetsBefore, mntrErr := b.packets(ctx)
	wireBefore := c.wire.snapshot()
	line, err := c.step(ctx, "go", "result", budget+time.Minute)
	x.wire = c.wire.snapshot().sub(wireBefore)
	packetsAfter, err2 := b.packets(ctx)
	if mntrErr == nil && err2 == nil {
		x.packets = packetsAfter - packetsBefore - int64(len(b.servers))
	}
	if err != nil {
		x.err = err
		return x
	}
	if _, err := c.step(ctx, "close", "closed", time.Minute); err != nil {
		x.err = fmt.Errorf("close Curator sessions: %w", err)
	}
	var r curatorResult
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		x.err = errors.Join(x.err, fmt.Errorf("curator result %q: %w", line, err))
		return x
	}
	x.acquires, x.releases, x.elapsed = r.Acquires, r.Releases, time.Duration(r.ElapsedNs)
	for _, w := range r.WaitsNs {
		x.waits = append(x.waits, time.Duration(w))
	}
	if r.Error != "" {
		x.err = errors.Join(x.err, errors.New(r.Error))
	}
	return x
}

// Close stops the JVM and the proxies and removes the compiled runner.
func (c *curator) Close() {
	if c.stdin != nil {
		c.stdin.Close() // the runner exits at the end of its input
	}
	if c.exited != nil {
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			c.kill()
			<-c.exited
		}
	}
	for _, p := range c.proxies {
		p.Close()
	}
	os.RemoveAll(c.dir)
}

// tailBuffer keeps the last max bytes written to it: the runner's stderr,
// shown when it fails.
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

// tail is ": <the last lines of stderr>", or "" when there were none.
func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return ":\n" + s
}
