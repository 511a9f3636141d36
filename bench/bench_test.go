package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/internal/zkwire"
)

func TestMain(m *testing.M) { zktest.Main(m) }

func TestFrames(t *testing.T) {
	// Two client frames after the connect request: create (1) and a ping (11).
	var stream []byte
	frame := func(body ...int32) {
		b := make([]byte, 4+4*len(body))
		binary.BigEndian.PutUint32(b, uint32(4*len(body)))
		for i, v := range body {
			binary.BigEndian.PutUint32(b[4+4*i:], uint32(v))
		}
		stream = append(stream, b...)
	}
	frame(0, 0, 0, 0, 0)          // the connect request: not a request of any lock
	frame(1, 1, 7, 7)             // xid 1, create, and some body
	frame(-2, zkwire.OpPing)      // a ping
	frame(2, 2)                   // xid 2, delete
	frame(3, zkwire.OpSetWatches) // setWatches after a reconnect

	for _, chunk := range []int{len(stream), 1, 3, 5} {
		t.Run("frames split every "+strconv.Itoa(chunk)+" bytes are counted once each, pings and setWatches not at all", func(t *testing.T) {
			w := newWire()
			f := zkwire.Requests(w.request)
			for p := stream; len(p) > 0; p = p[min(chunk, len(p)):] {
				f.Feed(p[:min(chunk, len(p))])
			}
			got := w.snapshot().byName()
			if len(got) != 2 || got["create"] != 1 || got["delete"] != 1 {
				t.Fatalf("counted %v, want create 1 and delete 1", got)
			}
		})
	}
}

func TestWireCountsWhatTheClientSends(t *testing.T) {
	t.Run("one request per call and one notification per fired watch, the session's pings not at all", func(t *testing.T) {
		w := newWire()
		// 400 ms is the server's minimum: go-zookeeper pings every ~130 ms.
		conn := zktest.ConnectTimeout(t, 400*time.Millisecond, zksession.WithDialer(w.dialer()))
		checkOneOfEach(t, conn, w.snapshot)
	})
}

func TestRunJSON(t *testing.T) {
	t.Run("a tiny run prints one JSON row per lock with the issue's fields first and leaves no znode", func(t *testing.T) {
		cfg, err := parseFlags([]string{"-json", "-servers", strings.Join(zktest.Servers(t), ","),
			"-locks", "floor,02,03,04,gozk,seed", "-contenders", "3", "-rounds", "4", "-repeat", "1",
			"-seed-goroutines", "20", "-warmup", "0", "-budget", "60s"})
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), cfg, &stdout, &stderr); code != 0 {
			t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		mntr := zktest.Allowed(t, "mntr")
		if !mntr {
			t.Log("the server refuses mntr: the server-side packet counts are not checked")
		}
		want := []string{"floor/1", "02/3", "03/3", "04/3", "gozk/3", "04/20", "gozk/20"}
		if len(lines) != len(want) {
			t.Fatalf("%d rows, want %d:\n%s", len(lines), len(want), &stdout)
		}
		fields := []string{"lock", "contenders", "rounds", "shared_session", "acquires_per_s", "p50_ms", "p99_ms",
			"requests_per_acquire", "notifications_per_release"}
		for i, line := range lines {
			// The fields come first, in its order.
			for j, f := range fields {
				at := strings.Index(line, `"`+f+`":`)
				if at < 0 {
					t.Fatalf("row %d has no %q: %s", i, f, line)
				}
				if j > 0 && at < strings.Index(line, `"`+fields[j-1]+`":`) {
					t.Fatalf("row %d: %q comes before %q: %s", i, f, fields[j-1], line)
				}
			}
			var r Row
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if got := r.Lock + "/" + strconv.Itoa(r.Contenders); got != want[i] {
				t.Fatalf("row %d is %s, want %s", i, got, want[i])
			}
			if r.Error != "" || r.Partial || r.Acquires != r.Planned || r.Releases != r.Acquires {
				t.Fatalf("row %s: acquired %d of %d, released %d, error %q", want[i], r.Acquires, r.Planned, r.Releases, r.Error)
			}
			if r.AcquiresPerS <= 0 || r.P99ms < r.P50ms {
				t.Fatalf("row %s: %.1f acq/s, p50 %.2f ms, p99 %.2f ms", want[i], r.AcquiresPerS, r.P50ms, r.P99ms)
			}
			// Every acquisition at least creates and deletes a node.
			if r.RequestsPerAcquire < 2 || r.Ops["create"] < 1 || r.Ops["delete"] < 1 {
				t.Fatalf("row %s: %.2f requests per acquisition: %v", want[i], r.RequestsPerAcquire, r.Ops)
			}
			// The server counts everything the wire counts, plus pings
			// (when it answers mntr: a stock server allows only srvr).
			if mntr && r.ServerPacketsPerAcquire < r.RequestsPerAcquire {
				t.Fatalf("row %s: server saw %.2f packets per acquisition, the wire %.2f requests",
					want[i], r.ServerPacketsPerAcquire, r.RequestsPerAcquire)
			}
			// Every Go row says what its clients cost in CPU (the unix
			// systems the course runs on have getrusage).
			if r.ClientCPUPerAcquireUs <= 0 {
				t.Fatalf("row %s: client CPU per acquisition %.1f µs, want a measurement", want[i], r.ClientCPUPerAcquireUs)
			}
			if r.Workload == "seed" && !r.SharedSession {
				t.Fatalf("row %s: the seed workload must share one session", want[i])
			}
		}
		// 3 contenders × 4 rounds is not the targets' workload: each says so.
		if got := strings.Count(stderr.String(), "  not measured\n"); got != 6 {
			t.Fatalf("%d of 6 targets not measured on stderr, want all:\n%s", got, &stderr)
		}
		conn := zktest.Connect(t)
		top, _, err := conn.Children("/")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range top {
			if strings.HasPrefix(c, "lockstep-bench-") {
				t.Fatalf("left /%s behind", c)
			}
		}
	})
}

// The Go benchmarks measure one uncontended acquisition on one session,
// with requests counted at the wire: go test -bench . ./bench

func BenchmarkFloor(b *testing.B) {
	benchmarkUncontended(b, func(s *seqlock.Session, dir string) locker { return &floorLock{conn: s.Conn(), dir: dir} })
}

func BenchmarkSeqlockUncontended(b *testing.B) {
	benchmarkUncontended(b, func(s *seqlock.Session, dir string) locker {
		m, err := seqlock.New(s, dir)
		if err != nil {
			b.Fatal(err)
		}
		return m
	})
}

func BenchmarkGozkUncontended(b *testing.B) {
	benchmarkUncontended(b, func(s *seqlock.Session, dir string) locker {
		return gozkLock{zk.NewLock(s.Conn(), dir, zk.WorldACL(zk.PermAll))}
	})
}

func benchmarkUncontended(b *testing.B, newLock func(s *seqlock.Session, dir string) locker) {
	w := newWire()
	benchmarkOn(b, zktest.DialSession(b, seqlock.NewSession, zksession.DialWith(w.dialer())), w.snapshot, newLock)
}

// benchmarkOn is benchmarkUncontended on a session whose requests count
// returns.
func benchmarkOn(b *testing.B, s *seqlock.Session, count func() wireCount, newLock func(s *seqlock.Session, dir string) locker) {
	dir := zktest.Root(b)
	l := newLock(s, dir)
	conn := s.Conn()
	ctx := context.Background()
	// The first benchmark would otherwise pay for the server's JIT.
	warm := &floorLock{conn: conn, dir: dir}
	for range 500 {
		if err := warm.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := warm.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	before := count()
	for b.Loop() {
		if err := l.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	d := count().sub(before)
	b.ReportMetric(float64(d.requests())/float64(b.N), "requests/op")
}

// floorLock is the floor as a locker: Lock creates a node, Unlock deletes it.
type floorLock struct {
	conn *zk.Conn
	dir  string
	node string
}

func (f *floorLock) Lock(context.Context) error {
	node, err := f.conn.Create(f.dir+"/pair-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	f.node = node
	return err
}

func (f *floorLock) Unlock(context.Context) error { return f.conn.Delete(f.node, -1) }

func TestIdentical(t *testing.T) {
	t.Run("the identical loop runs 04 and zk.Lock in turn and reports throughput and CPU per acquisition against zk.Lock", func(t *testing.T) {
		cfg, err := parseFlags([]string{"-identical", "-passes", "1", "-servers", strings.Join(zktest.Servers(t), ","), "-warmup", "0"})
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), cfg, &stdout, &stderr); code != 0 {
			t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
		}
		out := stdout.String()
		_, total, ok := strings.Cut(out, "\nall passes")
		if !ok {
			t.Fatalf("no \"all passes\" summary:\n%s", out)
		}
		for _, k := range identicalKinds {
			line := ""
			for l := range strings.Lines(total) {
				if strings.HasPrefix(l, fmt.Sprintf("      %-6s ", k.name)) {
					line = l
				}
			}
			// 500 acquisitions, a rate, CPU µs per acquisition and the two
			// ratios against zk.Lock.
			if !strings.Contains(line, " 500 ") || !strings.Contains(line, "×cpu   median ") {
				t.Fatalf("no summary line for %s with 500 acquisitions:\n%s", k.name, out)
			}
		}
		if _, err := parseFlags([]string{"-identical", "-passes", "0"}); err == nil {
			t.Fatal("-passes 0 accepted")
		}
	})
}
