package zkserver

import (
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
// reaches (clientPortAddress), so that no relay stands between a learner
// and a server. It runs from a local install; the Docker helper does not
// start one (yet).

// Kept is where a kept ensemble lives and how it is reached.
type Kept struct {
	// Dir holds each member's zoo.cfg, data/ (snapshots, logs, myid) and
	// server.log, in zk1, zk2, …; Close stops the servers and keeps it.
	Dir string
	// Addr is the IP address the client ports bind (clientPortAddress),
	// and the host of Ensemble.Servers. The members talk to each other on
	// 127.0.0.1.
	Addr string
	// Ports are the client ports, one per member (an odd number, at least
	// 3); 0 picks a free one.
	Ports []int
}

// ErrKeptNeedsLocal: a kept ensemble runs from a local install only.
var ErrKeptNeedsLocal = errors.New(`zkserver: a kept ensemble (data in a directory of yours, fixed ports) runs from a local ZooKeeper install, and none was found: install ZooKeeper and Java ("sudo apt-get install zookeeper", "brew install zookeeper", or ZOOKEEPER_HOME), or run your own servers and set ZK_SERVERS`)

// StartKeptEnsemble starts the ensemble k describes, with the data already
// in k.Dir if there is some, and waits until every member serves. Bad
// input is an error before anything starts; if it fails to start, a
// directory it created is removed (data that was there is never touched).
func StartKeptEnsemble(ctx context.Context, k Kept) (*Ensemble, error) {
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
	ports, err := claimPorts(ctx, k.Addr, k.Ports)
	if err != nil {
		return nil, err
	}
	inst, err := FindInstall()
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrKeptNeedsLocal, err)
	}
	_, statErr := os.Stat(k.Dir)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(k.Dir, 0o700); err != nil {
		return nil, err
	}
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
		if created {
			os.RemoveAll(k.Dir)
		}
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

// writeKeptConfig is writeConfig for a kept member: the Fast
// configuration, with the client port on the member's address, the data
// synced to disk (it is kept), and old snapshots purged hourly.
func (m *member) writeKeptConfig(peers []string) error {
	data := filepath.Join(m.dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	var cfg []string
	for _, line := range fastConfig(data, m.clientPort) {
		if strings.HasPrefix(line, "clientPortAddress=") || strings.HasPrefix(line, "forceSync=") {
			continue
		}
		cfg = append(cfg, line)
	}
	cfg = append(cfg, "clientPortAddress="+m.host, "autopurge.snapRetainCount=3", "autopurge.purgeInterval=1")
	cfg = append(cfg, peers...)
	if err := os.WriteFile(filepath.Join(m.dir, "zoo.cfg"), []byte(strings.Join(cfg, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(m.id)+"\n"), 0o600)
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
