package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/internal/jvm"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
)

// The Curator row runs Apache Curator's InterProcessMutex (Java) under the
// bench's workloads. bench/curator/CuratorBench.java is compiled with javac
// into a temporary directory when the bench starts, run once in a JVM for
// the whole bench, and driven one step at a time over its stdin/stdout (the
// protocol is at the top of the Java file; internal/jvm finds Java, compiles
// and runs it). Its sessions go through a
// zkproxy.Proxy per server, whose counts are read as a wire's (proxied), so
// its requests and notifications are counted at the wire exactly like the
// Go locks'.

//go:embed curator/CuratorBench.java
var curatorSource []byte

// defaultCuratorClasspath is Debian's Curator (jvm.CuratorClasspath).
const defaultCuratorClasspath = jvm.CuratorClasspath

// curator is the JVM that runs CuratorBench; one per bench run.
type curator struct {
	version string // Curator's, as the runner reports it
	connect string // the proxies' addresses: Curator's connect string
	session time.Duration

	proxies []*zkproxy.Proxy // one per server; they count what passes
	prog    *jvm.Program
	jvm     *jvm.Process
}

// curatorMissing is why the Curator row cannot run here, or "" if it can.
func curatorMissing(classpath string) string { return jvm.Missing(classpath) }

// compileCurator compiles the runner into a new temporary directory, which
// the caller removes. It needs no server, so the bench does it while the
// server starts.
func compileCurator(ctx context.Context, classpath string) (*jvm.Program, error) {
	return jvm.Compile(ctx, classpath, "CuratorBench", curatorSource)
}

// startCurator starts the compiled runner in a JVM, behind one proxy per
// server. The runner's Close removes prog, and so does a failure.
func startCurator(prog *jvm.Program, servers []string, session time.Duration) (*curator, error) {
	c := &curator{prog: prog, session: session}
	var addrs []string
	for _, s := range servers {
		p, err := zkproxy.New(s)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.proxies = append(c.proxies, p)
		addrs = append(addrs, p.Addr())
	}
	c.connect = strings.Join(addrs, ",")
	var err error
	if c.jvm, err = prog.Start("curator runner"); err != nil {
		c.Close()
		return nil, err
	}
	hello, err := c.jvm.Expect(context.Background(), "curator", time.Minute)
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
	return c.jvm.Step(ctx, cmd, want, limit)
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
	wireBefore := proxied(c.proxies...)
	line, err := c.step(ctx, "go", "result", budget+time.Minute)
	x.wire = proxied(c.proxies...).sub(wireBefore)
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
	if c.jvm != nil {
		c.jvm.Close() // the runner exits at the end of its input
	}
	for _, p := range c.proxies {
		p.Close()
	}
	c.prog.Remove()
}
