package zkserver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// needLocal skips when this machine cannot run the local path (the tests
// below are about child processes).
func needLocal(t *testing.T) Install {
	t.Helper()
	inst, err := FindInstall()
	if err != nil {
		t.Skipf("no local ZooKeeper install: %v", err)
	}
	return inst
}

func TestLocalServer(t *testing.T) {
	inst := needLocal(t)
	ctx := context.Background()
	start := time.Now()
	srv, err := startLocal(ctx, inst)
	t.Cleanup(srv.Close)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local server ready in %v at %s (%s)", time.Since(start).Round(time.Millisecond), srv.ConnectString(), srv.Detail)

	t.Run("it serves as a standalone server", func(t *testing.T) {
		mode, err := Mode(ctx, srv.Servers[0])
		if err != nil || mode != "standalone" {
			t.Fatalf("mode = %q, err = %v", mode, err)
		}
	})
	t.Run("mntr reports the server's counters", func(t *testing.T) {
		m, err := Mntr(ctx, srv.Servers[0])
		if err != nil || m["zk_server_state"] != "standalone" {
			t.Fatalf("mntr = %v, err = %v", m, err)
		}
	})
	t.Run("Close kills the JVM and removes its directory", func(t *testing.T) {
		dir := srv.dir
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("the server's directory %q does not exist while it runs: %v", dir, err)
		}
		srv.Close()
		if _, err := Mode(ctx, srv.Servers[0]); err == nil {
			t.Fatal("server still answers after Close")
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("%s still exists (err = %v)", dir, err)
		}
		srv.Close() // twice is fine
	})
}

// TestKilledParentLeavesNoJVM runs a child test process that starts a server
// and is then SIGKILLed, as an interrupted "go test" or demo would be; the
// watchdog must take the JVM down with it, and remove its directory.
func TestKilledParentLeavesNoJVM(t *testing.T) {
	if os.Getenv("ZKSERVER_CHILD") == "1" {
		srv, err := startLocal(context.Background(), needLocal(t))
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("READY " + srv.Servers[0] + " " + srv.dir + "\n")
		time.Sleep(time.Minute) // killed long before this
		return
	}
	needLocal(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledParentLeavesNoJVM$", "-test.v")
	cmd.Env = append(os.Environ(), "ZKSERVER_CHILD=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var got string
	deadline := time.Now().Add(StartTimeout)
	for !strings.Contains(got, "READY ") && time.Now().Before(deadline) {
		n, err := out.Read(buf)
		got += string(buf[:n])
		if err != nil {
			break
		}
	}
	_, addr, ok := strings.Cut(got, "READY ")
	if !ok {
		cmd.Process.Kill()
		t.Fatalf("child did not start a server:\n%s", got)
	}
	addr, dir, _ := strings.Cut(strings.TrimSpace(strings.SplitN(addr, "\n", 2)[0]), " ")
	if _, err := os.Stat(dir); err != nil {
		cmd.Process.Kill()
		t.Fatalf("the child's server directory %q: %v", dir, err)
	}
	if _, err := Mode(context.Background(), addr); err != nil {
		cmd.Process.Kill()
		t.Fatalf("the child's server at %s does not serve before the kill: %v", addr, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	gone := func() bool {
		_, serr := os.Stat(dir)
		_, merr := Mode(context.Background(), addr)
		return merr != nil && os.IsNotExist(serr)
	}
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(50 * time.Millisecond) {
		if gone() {
			return
		}
	}
	t.Fatalf("10 s after its parent was killed, the server at %s still answers or %s still exists", addr, dir)
}

func TestEnsemble(t *testing.T) {
	needLocal(t)
	if testing.Short() {
		t.Skip("starts three JVMs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Setenv("LOCKSTEP_ZK", "local")
	e, err := StartEnsemble(ctx, 3)
	t.Cleanup(e.Close)
	if err != nil {
		t.Fatal(err)
	}
	leader, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("exactly one member leads", func(t *testing.T) {
		leaders := 0
		for _, a := range e.Servers {
			if m, _ := Mode(ctx, a); m == "leader" {
				leaders++
			}
		}
		if leaders != 1 {
			t.Fatalf("%d leaders", leaders)
		}
	})
	t.Run("stopping the leader elects another", func(t *testing.T) {
		if err := e.Stop(ctx, leader); err != nil {
			t.Fatal(err)
		}
		next, err := e.WaitLeader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if next == leader {
			t.Fatalf("the stopped member %d still leads", leader)
		}
	})
	t.Run("a restarted member rejoins as a follower", func(t *testing.T) {
		if err := e.Restart(ctx, leader); err != nil {
			t.Fatal(err)
		}
		if m, err := Mode(ctx, e.Servers[leader]); err != nil || m != "follower" {
			t.Fatalf("mode = %q, err = %v", m, err)
		}
	})
	t.Run("bad member indexes are errors", func(t *testing.T) {
		if err := e.Stop(ctx, 7); err == nil {
			t.Fatal("Stop(7) succeeded")
		}
		if err := e.Restart(ctx, (leader+1)%3); err == nil {
			t.Fatal("Restart of a running member succeeded")
		}
	})
}

func TestZKServersIsCheckedBeforeUse(t *testing.T) {
	t.Run("an unreachable ZK_SERVERS is one clear error, not a wall of timeouts", func(t *testing.T) {
		t.Setenv("ZK_SERVERS", "127.0.0.1:1")
		srv, err := Start(context.Background())
		t.Cleanup(srv.Close)
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Fatalf("err = %v, want ErrUnreachable naming the address", err)
		}
	})
	t.Run("a reachable ZK_SERVERS is used as is and nothing is started", func(t *testing.T) {
		inst := needLocal(t)
		local, err := startLocal(context.Background(), inst)
		t.Cleanup(local.Close)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("ZK_SERVERS", local.ConnectString())
		srv, err := Start(context.Background())
		t.Cleanup(srv.Close)
		if err != nil || srv.Source != FromEnv || srv.ConnectString() != local.ConnectString() {
			t.Fatalf("srv = %+v, err = %v", srv, err)
		}
	})
}

// TestStockServer starts ZooKeeper as installed (the install's sample
// zoo.cfg, no JVM options) and checks what a learner's own server is like:
// it clamps a 1 s session to 2×tickTime and answers only srvr.
func TestStockServer(t *testing.T) {
	inst := needLocal(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := startLocalConfig(ctx, inst, Stock)
	t.Cleanup(srv.Close)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := stockConfig(inst)
	if err != nil {
		t.Fatal(err)
	}
	tick := 2 * time.Second // zoo_sample.cfg's, unless the install's says otherwise
	for _, line := range cfg {
		if v, ok := strings.CutPrefix(line, "tickTime="); ok {
			ms, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("stock %s", line)
			}
			tick = time.Duration(ms) * time.Millisecond
		}
	}
	t.Logf("stock ZooKeeper %s (%s), tickTime %v", srv.Version, inst.StockConfig, tick)
	if srv.Config != Stock || srv.Version == "" || srv.Version != inst.Version() {
		t.Fatalf("config %v, version %q (install says %q)", srv.Config, srv.Version, inst.Version())
	}

	t.Run("a 1 s session is granted 2×tickTime, and zksession reads it", func(t *testing.T) {
		d, err := zksession.ConnectGranted(ctx, srv.Servers, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Conn.Close()
		want := max(time.Second, 2*tick)
		if got := d.Timeout(); got != want {
			t.Fatalf("asked 1s from a server with tickTime %v: granted %v, want %v", tick, got, want)
		}
	})
	t.Run("it answers srvr and refuses wchp", func(t *testing.T) {
		if mode, err := Mode(ctx, srv.Servers[0]); err != nil || mode != "standalone" {
			t.Fatalf("srvr: mode %q, err %v", mode, err)
		}
		out, err := FourLetter(ctx, srv.Servers[0], "wchp")
		if err != nil || !strings.Contains(out, "not in the whitelist") {
			t.Fatalf("wchp answered %q (err %v), want a refusal", out, err)
		}
	})
	t.Run("no JVM option was given", func(t *testing.T) {
		args := jvmArgs(t, inst.Java, srv.dir)
		for _, arg := range args {
			if strings.HasPrefix(arg, "-D") || strings.HasPrefix(arg, "-X") {
				t.Fatalf("the stock server's JVM got %s: %q", arg, args)
			}
		}
	})
}

// jvmArgs finds the JVM serving from dir in /proc and returns its arguments.
func jvmArgs(t *testing.T, java, dir string) []string {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if args[0] == java && strings.Contains(string(b), filepath.Join(dir, "zoo.cfg")) {
			return args[1:]
		}
	}
	t.Skip("cannot find the JVM's command line in /proc")
	return nil
}
