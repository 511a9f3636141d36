package zkserver

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// needKept skips when no path can start a kept ensemble here (no Docker
// engine, no local install, or not the one LOCKSTEP_ZK forces).
func needKept(t *testing.T) {
	t.Helper()
	if _, err := choose(context.Background(), ownProbes()); err != nil {
		t.Skipf("no way to start a kept ensemble here: %v", err)
	}
}

// A kept ensemble's data is ZooKeeper's own, in a directory the caller
// keeps: a znode written before Close is read back from the ensemble
// started again from the same directory, on the same ports, bound on the
// address asked for (a second loopback address: no test reaches a LAN).
// On Docker (make test-docker) the same holds through bind mounts, and
// what the containers wrote belongs to this process's user.
func TestAKeptEnsembleKeepsItsDataAcrossARestart(t *testing.T) {
	needKept(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "zookeeper")
	k := Kept{Dir: dir, Addr: "127.0.0.2", Ports: []int{0, 0, 0}}
	start := time.Now()
	e, err := StartKeptEnsemble(ctx, k)
	t.Cleanup(e.Close)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kept ensemble serving in %v at %s", time.Since(start).Round(time.Millisecond), e.ConnectString())
	for _, s := range e.Servers {
		if !strings.HasPrefix(s, "127.0.0.2:") {
			t.Fatalf("servers %v: want them on 127.0.0.2", e.Servers)
		}
	}
	if _, err := Mode(ctx, strings.Replace(e.Servers[0], "127.0.0.2", "127.0.0.1", 1)); err == nil {
		t.Errorf("member 1 answers on 127.0.0.1: its client port is not bound to 127.0.0.2 alone")
	}
	write := func(servers []string) {
		c, events, err := zksession.Connect(ctx, servers, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		go zksession.Drain(events)
		defer c.Close()
		if _, err := c.Create("/kept", []byte("progress"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	write(e.Servers)
	servers := e.Servers
	e.Close()
	if _, err := os.Stat(filepath.Join(dir, "zk1", "data", "version-2")); err != nil {
		t.Fatalf("Close left no ZooKeeper data in %s: %v", dir, err)
	}

	var ports []int
	for _, s := range servers {
		_, p, _ := net.SplitHostPort(s)
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, n)
	}
	again, err := StartKeptEnsemble(ctx, Kept{Dir: dir, Addr: "127.0.0.2", Ports: ports})
	t.Cleanup(again.Close)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(again.Servers, ",") != strings.Join(servers, ",") {
		t.Fatalf("started again on %v, was %v", again.Servers, servers)
	}
	c, events, err := zksession.Connect(ctx, again.Servers, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	go zksession.Drain(events)
	defer c.Close()
	data, _, err := c.Get("/kept")
	if err != nil || string(data) != "progress" {
		t.Fatalf("/kept after the restart: %q, %v; want what was written before", data, err)
	}
}

// Bad input is one clear error, and leaves no directory behind.
func TestAKeptEnsembleRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	taken, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().(*net.TCPAddr).Port
	for _, c := range []struct {
		k    Kept
		want string
	}{
		{Kept{Addr: "127.0.0.2", Ports: []int{0, 0}}, "want an odd number ≥ 3"},
		{Kept{Addr: "0.0.0.0", Ports: []int{0, 0, 0}}, "not 0.0.0.0"},
		{Kept{Addr: "class.local", Ports: []int{0, 0, 0}}, "not a name"},
		{Kept{Addr: "127.0.0.2", Ports: []int{busy, 0, 0}}, "address already in use"},
	} {
		dir := filepath.Join(t.TempDir(), "zookeeper")
		c.k.Dir = dir
		e, err := StartKeptEnsemble(ctx, c.k)
		if err == nil {
			e.Close()
			t.Errorf("%+v started", c.k)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want it to say %q", c.k, err, c.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%+v left %s (%v)", c.k, dir, err)
		}
	}
}

// On Docker, StartKeptEnsemble asks the helper for the kept ensemble with
// one typed request (-kept): the address, this process's uid:gid, and
// each member's port and data directory, made here with its myid. A
// helper that fails leaves no directory that was not there before.
func TestAKeptEnsembleOnDockerAsksTheHelper(t *testing.T) {
	quiet(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ports []int
	var servers []string
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		servers = append(servers, l.Addr().String())
		l.Close()
	}
	docker := func(helper helperCommand) probes {
		return probes{
			getenv:    func(k string) string { return map[string]string{"LOCKSTEP_ZK": "docker"}[k] },
			dockerUp:  func(context.Context) error { return nil },
			findLocal: func() (Install, error) { return Install{}, errNoInstall },
			helper:    helper,
		}
	}

	t.Run("the request names the address, the user, each port and data directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "zookeeper")
		mark := filepath.Join(t.TempDir(), "args")
		e, err := startKeptEnsemble(ctx, docker(script(`printf '%s\n' "$@" > "`+mark+`"; echo `+ready(servers...)+`; read _`)),
			Kept{Dir: dir, Addr: "127.0.0.2", Ports: ports})
		t.Cleanup(e.Close)
		if err != nil {
			t.Fatal(err)
		}
		if e.Source != FromDocker || e.ConnectString() != strings.Join(servers, ",") {
			t.Fatalf("ensemble %v at %s, want docker at %s", e.Source, e.ConnectString(), strings.Join(servers, ","))
		}
		b, err := os.ReadFile(mark)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(args) != 2 || args[0] != "-kept" {
			t.Fatalf("helper arguments %q, want -kept and a request", args)
		}
		req, err := ReadHelperMessage[HelperRequest]([]byte(args[1]))
		if err != nil {
			t.Fatal(err)
		}
		if req.Op != HelperKeep || req.Kept.Addr != "127.0.0.2" || req.Kept.User != hostUser() || len(req.Kept.Members) != 3 {
			t.Fatalf("request %+v", req.Kept)
		}
		for i, m := range req.Kept.Members {
			data := filepath.Join(dir, "zk"+strconv.Itoa(i+1), "data")
			myid, _ := os.ReadFile(filepath.Join(data, "myid"))
			if m.Port != ports[i] || m.Data != data || strings.TrimSpace(string(myid)) != strconv.Itoa(i+1) {
				t.Errorf("member %d: %+v, myid %q; want port %d, data %s, myid %d", i, m, myid, ports[i], data, i+1)
			}
		}
	})
	t.Run("a helper that fails leaves no directory behind", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "zookeeper")
		e, err := startKeptEnsemble(ctx, docker(script(`echo `+say(HelperReply{Kind: HelperError, Error: "start kept ensemble member zk2: no such image"})+`; exit 1`)),
			Kept{Dir: dir, Addr: "127.0.0.2", Ports: ports})
		if err == nil {
			e.Close()
			t.Fatal("started")
		}
		if !strings.Contains(err.Error(), "no such image") {
			t.Errorf("err = %v, want the helper's reason", err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("left %s (%v)", dir, err)
		}
	})
	t.Run("servers the request did not ask for are refused", func(t *testing.T) {
		e, err := startKeptEnsemble(ctx, docker(script(`echo `+ready("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")+`; read _`)),
			Kept{Dir: filepath.Join(t.TempDir(), "zookeeper"), Addr: "127.0.0.2", Ports: ports})
		if err == nil {
			e.Close()
			t.Fatal("started")
		}
		if !strings.Contains(err.Error(), "it reported") {
			t.Errorf("err = %v", err)
		}
	})
}
