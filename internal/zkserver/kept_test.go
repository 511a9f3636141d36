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
