package zkserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A kept ensemble is the classroom's (workshop/class serve): its data lives
// in a directory the caller keeps, so that an ensemble started again from
// it is the same ZooKeeper — ZooKeeper's own snapshots and transaction
// logs, not a copy of ours —; its client ports are fixed (the join line
// the learners pasted names them) and bound on the address the room
// reaches, so that no relay stands between a learner and a server.
//
// It starts as the other ensembles do (StartEnsemble): in Docker when an
// engine answers — the helper bind-mounts each member's data directory as
// the container's dataDir, publishes the client ports on the address, and
// runs the containers as the caller's uid:gid so that the caller can
// remove what ZooKeeper wrote —, else (or when the helper fails) from a
// local install, whose servers bind the address themselves
// (clientPortAddress). LOCKSTEP_ZK=docker|local forces one; ZK_SERVERS is
// not used. The directory's layout is the same on both paths (the
// transaction logs next to the snapshots, dataLogDir = dataDir), so a
// class kept on one serves again on the other.

// Kept is where a kept ensemble lives and how it is reached.
type Kept struct {
	// Dir holds each member's data/ (snapshots, logs, myid), in zk1, zk2,
	// …, and from a local install its zoo.cfg and server.log; Close stops
	// the servers and keeps it.
	Dir string
	// Addr is the IP address the client ports bind, and the host of
	// Ensemble.Servers. The members talk to each other on 127.0.0.1, or
	// on their own Docker network.
	Addr string
	// Ports are the client ports, one per member (an odd number, at least
	// 3); 0 picks a free one.
	Ports []int
}

// StartKeptEnsemble starts the ensemble k describes, with the data already
// in k.Dir if there is some, and waits until every member serves. Bad
// input is an error before anything starts; if it fails to start, a
// directory it created is removed (data that was there is never touched).
func StartKeptEnsemble(ctx context.Context, k Kept) (*Ensemble, error) {
	return startKeptEnsemble(ctx, ownProbes(), k)
}

func startKeptEnsemble(ctx context.Context, pr probes, k Kept) (*Ensemble, error) {
	n := len(k.Ports)
	if n < 3 || n%2 == 0 {
		return nil, fmt.Errorf("zkserver: kept ensemble with %d ports: want an odd number ≥ 3, one per member", n)
	}
	ip := net.ParseIP(k.Addr)
	if ip == nil || ip.IsUnspecified() {
		return nil, fmt.Errorf("zkserver: kept ensemble: address %q: want the IP address clients reach (not a name, not 0.0.0.0)", k.Addr)
	}
	if k.Dir == "" {
		return nil, errors.New("zkserver: kept ensemble: no directory for its data")
	}
	dir, err := filepath.Abs(k.Dir) // a bind mount wants an absolute path
	if err != nil {
		return nil, err
	}
	k.Dir = dir
	ports, err := claimPorts(ctx, k.Addr, k.Ports)
	if err != nil {
		return nil, err
	}
	p, err := choose(ctx, pr)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(k.Dir)
	created := errors.Is(statErr, os.ErrNotExist)
	fail := func(err error) (*Ensemble, error) {
		if created {
			os.RemoveAll(k.Dir)
		}
		return nil, err
	}
	if err := os.MkdirAll(k.Dir, 0o700); err != nil {
		return fail(err)
	}
	if p.source == FromDocker {
		e, err := startKeptDocker(ctx, pr.helper, k, ports)
		if err == nil {
			return e, nil
		}
		if p.install, err = fallBack(pr, err); err != nil {
			return fail(err)
		}
	}
	e, err := startKeptLocal(ctx, p.install, k, ports)
	if err != nil {
		return fail(err)
	}
	return e, nil
}

// startKeptLocal runs the members from a local install.
func startKeptLocal(ctx context.Context, inst Install, k Kept, ports []int) (*Ensemble, error) {
	n := len(ports)
	peerPorts, err := freePorts(2 * n) // quorum, election per member: on loopback, chosen afresh each start
	if err != nil {
		return nil, err
	}
	var peers []string
	for i := range n {
		peers = append(peers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, peerPorts[2*i], peerPorts[2*i+1]))
	}
	e := &Ensemble{Source: FromLocal, Config: Fast}
	progress("starting a %d-server ZooKeeper %s ensemble from the %s, data kept in %s, clients on %s; this takes 5–20 s…",
		n, orUnknown(inst.Version()), inst.Where, k.Dir, k.Addr)
	var locals []*member
	e.closeFn = func() {
		for _, m := range locals {
			m.stop()
		}
	}
	fail := func(err error) (*Ensemble, error) {
		e.Close()
		return nil, err
	}
	for i := range n {
		m := &member{install: inst, dir: filepath.Join(k.Dir, fmt.Sprintf("zk%d", i+1)), id: i + 1, clientPort: ports[i],
			config: Fast, host: k.Addr, keep: true}
		locals = append(locals, m)
		if err := m.writeKeptConfig(peers); err != nil {
			return fail(err)
		}
		if err := m.start(ctx, false); err != nil {
			return fail(err)
		}
		e.members = append(e.members, localMember{m})
		e.Servers = append(e.Servers, m.addr())
	}
	for _, m := range locals {
		if err := m.waitServing(ctx); err != nil {
			return fail(err)
		}
	}
	return e, nil
}

// startKeptDocker asks the Docker helper for the members: their data
// directories, made here (by the caller's user) with each member's myid,
// are bind-mounted into containers that run as the caller's uid:gid.
func startKeptDocker(ctx context.Context, command helperCommand, k Kept, ports []int) (*Ensemble, error) {
	spec := HelperKept{Addr: k.Addr, User: hostUser()}
	for i, port := range ports {
		data := filepath.Join(k.Dir, fmt.Sprintf("zk%d", i+1), "data")
		if err := os.MkdirAll(data, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(i+1)+"\n"), 0o600); err != nil {
			return nil, err
		}
		spec.Members = append(spec.Members, HelperKeptMember{Port: port, Data: data})
	}
	var req bytes.Buffer
	if err := WriteHelperMessage(&req, HelperRequest{Op: HelperKeep, Kept: &spec}); err != nil {
		return nil, err
	}
	progress("starting a %d-server ZooKeeper ensemble in Docker (%s), data kept in %s, clients on %s; %s, then 10–30 s…",
		len(ports), Image(), k.Dir, k.Addr, firstUse())
	h, err := startHelper(ctx, command, "-kept", strings.TrimSpace(req.String()))
	if err != nil {
		return nil, err
	}
	var want []string
	for _, p := range ports {
		want = append(want, net.JoinHostPort(k.Addr, strconv.Itoa(p)))
	}
	if strings.Join(h.addrs, ",") != strings.Join(want, ",") {
		h.close()
		return nil, fmt.Errorf("zkserver: Docker: asked the helper for a kept ensemble on %v, it reported %v", want, h.addrs)
	}
	e := &Ensemble{Servers: h.addrs, Source: FromDocker, Config: Fast, closeFn: h.close}
	for i := range ports {
		e.members = append(e.members, &helperMember{h: h, i: i, up: true})
	}
	return e, nil
}

// hostUser is this process's uid:gid, the kept containers' user; "" where
// there are none (Windows).
func hostUser() string {
	if os.Getuid() < 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
}

// writeKeptConfig writes a kept member's zoo.cfg (KeptConfig) and myid.
func (m *member) writeKeptConfig(peers []string) error {
	data := filepath.Join(m.dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	cfg := KeptConfig(data, m.host, m.clientPort, peers)
	if err := os.WriteFile(filepath.Join(m.dir, "zoo.cfg"), []byte(strings.Join(cfg, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(m.id)+"\n"), 0o600)
}

// KeptConfig is the zoo.cfg of a kept member, from a local install or in a
// container (the Docker helper writes it there): the Fast configuration,
// with the data synced to disk (it is kept), the transaction logs in data
// (no dataLogDir: one layout on both paths), old snapshots purged hourly,
// and the client port on clientAddr ("" binds every address, as in a
// container). peers are the "server.N=host:quorum:election" lines.
func KeptConfig(data, clientAddr string, clientPort int, peers []string) []string {
	var cfg []string
	for _, line := range fastConfig(data, clientPort) {
		if strings.HasPrefix(line, "clientPortAddress=") || strings.HasPrefix(line, "forceSync=") {
			continue
		}
		cfg = append(cfg, line)
	}
	if clientAddr != "" {
		cfg = append(cfg, "clientPortAddress="+clientAddr)
	}
	cfg = append(cfg, "autopurge.snapRetainCount=3", "autopurge.purgeInterval=1")
	return append(cfg, peers...)
}

// claimPorts checks that each port is free on addr (0: picks one) and
// returns them. They are released before the servers bind them. A port in
// use is asked again for a few seconds: the servers of a kept ensemble
// just closed (serve started again at once) may still hold theirs while
// the kernel tears their processes down.
func claimPorts(ctx context.Context, addr string, want []int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for _, p := range want {
		if p < 0 || p > 65535 {
			return nil, fmt.Errorf("zkserver: kept ensemble: port %d", p)
		}
		l, err := listenPatiently(ctx, net.JoinHostPort(addr, strconv.Itoa(p)), portPatience)
		if err != nil {
			return nil, fmt.Errorf("zkserver: kept ensemble: client port %d on %s: %w", p, addr, err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// portPatience is how long claimPorts waits for a port in use.
const portPatience = 5 * time.Second

func listenPatiently(ctx context.Context, addr string, patience time.Duration) (net.Listener, error) {
	deadline := time.Now().Add(patience)
	for {
		l, err := net.Listen("tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return l, err
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return nil, err
		}
	}
}
