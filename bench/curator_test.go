package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestCountingProxy(t *testing.T) {
	t.Run("a client behind the Curator rows' proxy is counted as the wire wrapper counts it", func(t *testing.T) {
		conn, p := zktest.ConnectViaProxy(t, 400*time.Millisecond)
		checkOneOfEach(t, conn, func() wireCount { return proxied(p) })
	})
}

// checkOneOfEach sends a create, a GetW and a delete on conn, waits for
// the watch and a few pings, and checks that count says exactly those
// three requests and the one notification.
func checkOneOfEach(t *testing.T, conn *zk.Conn, count func() wireCount) {
	t.Helper()
	root := zktest.Root(t)
	before := count()

	node, err := conn.Create(root+"/n", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	_, _, watch, err := conn.GetW(node)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Delete(node, -1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watch:
	case <-time.After(30 * time.Second):
		t.Fatal("the watch on the deleted node never fired")
	}
	time.Sleep(time.Second) // a few pings go by

	got := count().sub(before)
	if ops := got.byName(); len(ops) != 3 || ops["create"] != 1 || ops["get"] != 1 || ops["delete"] != 1 {
		t.Fatalf("requests %v, want create, get and delete once each", ops)
	}
	if got.notifications != 1 {
		t.Fatalf("notifications %d, want 1", got.notifications)
	}
}

func TestCuratorRowWithoutJars(t *testing.T) {
	t.Run("without Java the reason says what to install", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		t.Setenv("JAVA_HOME", "")
		got := curatorMissing(defaultCuratorClasspath)
		if !strings.HasPrefix(got, "no java in PATH") || !strings.Contains(got, "default-jdk-headless") || strings.Contains(got, "\n") {
			t.Fatalf("reason %q, want one line naming java and the package", got)
		}
	})
	t.Run("without Curator's jars the curator rows say why, and the run still succeeds", func(t *testing.T) {
		rows, stderr := runJSON(t, "-locks", "04,curator,seed", "-contenders", "2", "-rounds", "2",
			"-seed-goroutines", "3", "-curator-classpath", "/nonexistent/curator-recipes.jar")
		want := []string{"04/2", "curator/2", "04/3", "curator/3"}
		if len(rows) != len(want) {
			t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
		}
		for i, r := range rows {
			if got := r.Lock + "/" + strconv.Itoa(r.Contenders); got != want[i] {
				t.Fatalf("row %d is %s, want %s", i, got, want[i])
			}
			if r.Lock == "curator" {
				if !strings.Contains(r.Skipped, "/nonexistent/curator-recipes.jar") || r.Acquires != 0 || r.Partial || r.Error != "" {
					t.Fatalf("curator row: skipped %q, %d acquired, partial %v, error %q", r.Skipped, r.Acquires, r.Partial, r.Error)
				}
			} else if r.Skipped != "" || r.Acquires != r.Planned {
				t.Fatalf("row %s: skipped %q, acquired %d of %d", want[i], r.Skipped, r.Acquires, r.Planned)
			}
		}
		if !strings.Contains(stderr, "curator rows skipped: no Curator jars at /nonexistent/curator-recipes.jar") {
			t.Fatalf("no one-line reason on stderr:\n%s", stderr)
		}
	})
}

func TestCuratorRow(t *testing.T) {
	if reason := curatorMissing(defaultCuratorClasspath); reason != "" {
		t.Skip("curator row: " + reason)
	}
	t.Run("a tiny run of InterProcessMutex, own sessions and one shared session, is counted at the wire", func(t *testing.T) {
		rows, stderr := runJSON(t, "-locks", "curator,seed", "-contenders", "3", "-rounds", "4", "-seed-goroutines", "20")
		if !strings.Contains(stderr, ", Curator 5.") {
			t.Fatalf("the header does not name Curator's version:\n%s", stderr)
		}
		want := []string{"curator/3", "curator/20"}
		if len(rows) != len(want) {
			t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
		}
		for i, r := range rows {
			if got := r.Lock + "/" + strconv.Itoa(r.Contenders); got != want[i] {
				t.Fatalf("row %d is %s, want %s", i, got, want[i])
			}
			if r.Skipped != "" || r.Error != "" || r.Partial || r.Acquires != r.Planned || r.Releases != r.Acquires {
				t.Fatalf("row %s: skipped %q, acquired %d of %d, released %d, error %q", want[i], r.Skipped,
					r.Acquires, r.Planned, r.Releases, r.Error)
			}
			if r.SharedSession != (r.Workload == "seed") || r.Repeats != 1 || len(r.Targets) != 0 {
				t.Fatalf("row %s: shared %v, workload %s, %d samples, targets %v", want[i], r.SharedSession, r.Workload,
					r.Repeats, r.Targets)
			}
			if r.AcquiresPerS <= 0 || r.P50ms <= 0 || r.P99ms < r.P50ms || r.ElapsedMs <= 0 {
				t.Fatalf("row %s: %.1f acq/s, p50 %.2f ms, p99 %.2f ms, %.1f ms", want[i], r.AcquiresPerS, r.P50ms, r.P99ms, r.ElapsedMs)
			}
			// Every acquisition creates its node and deletes it, once: the
			// proxy saw Curator's own requests, nothing else.
			if r.Ops["create"] != 1 || r.Ops["delete"] != 1 || r.Ops["children"] < 1 {
				t.Fatalf("row %s: requests per acquisition %v", want[i], r.Ops)
			}
			for op := range r.Ops {
				if strings.HasPrefix(op, "op") {
					t.Fatalf("row %s: an unnamed request %s: %v", want[i], op, r.Ops)
				}
			}
			// One session or many, a deleted node notifies each session
			// that watches it once, and only the next in line watches it.
			if r.NotificationsPerRelease > 1 {
				t.Fatalf("row %s: %.2f notifications per release", want[i], r.NotificationsPerRelease)
			}
			// (The server counts them too when it answers mntr: a stock
			// server allows only srvr.)
			if zktest.Allowed(t, "mntr") && r.ServerPacketsPerAcquire < r.RequestsPerAcquire {
				t.Fatalf("row %s: server saw %.2f packets per acquisition, the proxy %.2f requests",
					want[i], r.ServerPacketsPerAcquire, r.RequestsPerAcquire)
			}
		}
	})
}

// runJSON runs the bench with -json and args on the test server and
// returns its rows and its stderr. It fails the test on a non-zero exit
// and when the run leaves a znode behind.
func runJSON(t *testing.T, args ...string) ([]Row, string) {
	t.Helper()
	args = append([]string{"-json", "-servers", strings.Join(zktest.Servers(t), ","), "-repeat", "1", "-warmup", "0",
		"-budget", "60s"}, args...)
	cfg, err := parseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), cfg, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	var rows []Row
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var r Row
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	top, _, err := zktest.Connect(t).Children("/")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range top {
		if strings.HasPrefix(c, "lockstep-bench-") {
			t.Fatalf("left /%s behind", c)
		}
	}
	return rows, stderr.String()
}

// BenchmarkFloorThroughProxy is BenchmarkFloor with the session going
// through the proxy the Curator rows use: the difference is what the
// proxy's extra loopback hop costs a pair of requests.
func BenchmarkFloorThroughProxy(b *testing.B) {
	s, p := zktest.DialSessionViaProxy(b, seqlock.NewSession)
	benchmarkOn(b, s, func() wireCount { return proxied(p) }, func(s *seqlock.Session, dir string) locker {
		return &floorLock{conn: s.Conn(), dir: dir}
	})
}
