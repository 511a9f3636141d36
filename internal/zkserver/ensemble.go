package zkserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Ensemble is a multi-server ZooKeeper whose members can be stopped and
// restarted one at a time, for failover tests and the leader chapter.
type Ensemble struct {
	// Servers lists every member's client address, in member order.
	Servers []string
	Source  Source
	Config  Config // Fast or Stock

	mu      sync.Mutex
	members []ensembleMember
	closeFn func()
	once    sync.Once
}

// ensembleMember is one server of an ensemble, a process or a container.
type ensembleMember interface {
	stop(ctx context.Context) error
	start(ctx context.Context) error
	running() bool
}

// StartEnsemble starts n servers (n odd, at least 3) on this machine:
// containers when Docker answers, local processes otherwise (also when the
// Docker helper fails, unless LOCKSTEP_ZK=docker). ZK_SERVERS is
// not used: a test that stops members must own them.
func StartEnsemble(ctx context.Context, n int) (*Ensemble, error) {
	if n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("zkserver: ensemble of %d servers: want an odd number ≥ 3", n)
	}
	return startEnsemble(ctx, ownProbes(), n)
}

// ownProbes are systemProbes without ZK_SERVERS: an ensemble of ours.
func ownProbes() probes {
	pr := systemProbes()
	pr.getenv = func(k string) string {
		if k == "ZK_SERVERS" {
			return ""
		}
		return os.Getenv(k)
	}
	return pr
}

func startEnsemble(ctx context.Context, pr probes, n int) (*Ensemble, error) {
	p, err := choose(ctx, pr)
	if err != nil {
		return nil, err
	}
	if p.source == FromDocker {
		e, err := startDockerEnsemble(ctx, pr.helper, n)
		if err == nil {
			return e, nil
		}
		if p.install, err = fallBack(pr, err); err != nil {
			return nil, err
		}
	}
	return startLocalEnsemble(ctx, p.install, n, Fast)
}

// ConnectString is Servers joined by commas.
func (e *Ensemble) ConnectString() string { return strings.Join(e.Servers, ",") }

// Stop kills member i (0-based) as abruptly as a crash.
func (e *Ensemble) Stop(ctx context.Context, i int) error {
	m, err := e.member(i)
	if err != nil {
		return err
	}
	return m.stop(ctx)
}

// Restart starts member i again with its old data and waits until it serves.
func (e *Ensemble) Restart(ctx context.Context, i int) error {
	m, err := e.member(i)
	if err != nil {
		return err
	}
	if m.running() {
		return fmt.Errorf("zkserver: member %d is already running", i)
	}
	if err := m.start(ctx); err != nil {
		return err
	}
	return waitServing(ctx, e.Servers[i], nil)
}

// Leader returns the index of the member that leads the ensemble now.
func (e *Ensemble) Leader(ctx context.Context) (int, error) {
	for i, addr := range e.Servers {
		if mode, err := Mode(ctx, addr); err == nil && mode == "leader" {
			return i, nil
		}
	}
	return -1, errors.New("zkserver: no member reports Mode: leader")
}

// WaitLeader polls until some member leads (after a stop, an election runs).
func (e *Ensemble) WaitLeader(ctx context.Context) (int, error) {
	for {
		i, err := e.Leader(ctx)
		if err == nil {
			return i, nil
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("%w: %w", err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close stops every member and removes what was created. Safe on nil.
func (e *Ensemble) Close() {
	if e == nil {
		return
	}
	e.once.Do(e.closeFn)
}

func (e *Ensemble) member(i int) (ensembleMember, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if i < 0 || i >= len(e.members) {
		return nil, fmt.Errorf("zkserver: no member %d in an ensemble of %d", i, len(e.members))
	}
	return e.members[i], nil
}

// localMember adapts member (a child process) to ensembleMember.
type localMember struct{ *member }

func (m localMember) stop(context.Context) error { m.member.stop(); return nil }
func (m localMember) start(ctx context.Context) error {
	return m.member.start(ctx, false)
}
func (m localMember) running() bool { return m.proc != nil }

func startLocalEnsemble(ctx context.Context, inst Install, n int, config Config) (*Ensemble, error) {
	dir, err := os.MkdirTemp("", "lockstep-ensemble-")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3 * n) // client, quorum, election per member
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var peers []string
	for i := range n {
		peers = append(peers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[3*i+1], ports[3*i+2]))
	}
	e := &Ensemble{Source: FromLocal, Config: config}
	progress("starting a %d-server ZooKeeper %s ensemble (%s configuration) from the %s; this takes 5–20 s…",
		n, orUnknown(inst.Version()), config, inst.Where)
	var locals []*member
	e.closeFn = func() {
		for _, m := range locals {
			m.stop()
		}
		os.RemoveAll(dir)
	}
	for i := range n {
		m := &member{install: inst, dir: fmt.Sprintf("%s/zk%d", dir, i+1), cleanDir: dir, id: i + 1, clientPort: ports[3*i], config: config}
		locals = append(locals, m)
		if err := m.writeConfig(peers); err != nil {
			e.Close()
			return nil, err
		}
		// Start all before waiting: a member serves only once a quorum is up.
		if err := m.start(ctx, false); err != nil {
			e.Close()
			return nil, err
		}
		e.members = append(e.members, localMember{m})
		e.Servers = append(e.Servers, m.addr())
	}
	for _, m := range locals {
		if err := m.waitServing(ctx); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// helperMember is one ensemble member running in Docker, stopped and
// started through the Docker helper.
type helperMember struct {
	h  *dockerHelper
	i  int
	up bool
}

func (m *helperMember) stop(ctx context.Context) error {
	if err := m.h.call(ctx, HelperRequest{Op: HelperStop, Member: m.i}); err != nil {
		return err
	}
	m.up = false
	return nil
}

func (m *helperMember) start(ctx context.Context) error {
	if err := m.h.call(ctx, HelperRequest{Op: HelperStart, Member: m.i}); err != nil {
		return err
	}
	m.up = true
	return nil
}

func (m *helperMember) running() bool { return m.up }

// startDockerEnsemble runs n containers through the Docker helper.
func startDockerEnsemble(ctx context.Context, command helperCommand, n int) (*Ensemble, error) {
	progress("starting a %d-server ZooKeeper ensemble in Docker (%s); %s, then 10–30 s…", n, Image(), firstUse())
	h, err := startHelper(ctx, command, "-n", fmt.Sprint(n))
	if err != nil {
		return nil, err
	}
	if len(h.addrs) != n {
		h.close()
		return nil, fmt.Errorf("zkserver: Docker: asked the helper for %d servers, it reported %d (%v)", n, len(h.addrs), h.addrs)
	}
	e := &Ensemble{Servers: h.addrs, Source: FromDocker, Config: Fast, closeFn: h.close}
	for i := range n {
		e.members = append(e.members, &helperMember{h: h, i: i, up: true})
	}
	return e, nil
}
