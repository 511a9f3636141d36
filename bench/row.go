package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// Row is one line of the result. The first nine fields are the ones the
// issue asks for, in its order; the rest say how the row was measured.
type Row struct {
	Lock                    string  `json:"lock"`
	Contenders              int     `json:"contenders"`
	Rounds                  int     `json:"rounds"` // per contender per sample, as planned; see Acquires
	SharedSession           bool    `json:"shared_session"`
	AcquiresPerS            float64 `json:"acquires_per_s"`
	P50ms                   float64 `json:"p50_ms"`
	P99ms                   float64 `json:"p99_ms"`
	RequestsPerAcquire      float64 `json:"requests_per_acquire"`
	NotificationsPerRelease float64 `json:"notifications_per_release"`

	Workload string `json:"workload"` // contention, floor or seed
	Repeats  int    `json:"repeats"`  // samples summed into the row, taken in turn with the other rows
	Acquires int    `json:"acquires"` // acquisitions completed
	Planned  int    `json:"planned"`  // contenders × rounds × repeats
	Partial  bool   `json:"partial"`  // the time budget ran out first
	Releases int    `json:"releases"`
	// ElapsedMs is the wall time from the start signal to the last Unlock,
	// per sample (the mean, when there are several).
	ElapsedMs     float64 `json:"elapsed_ms"`
	Requests      int64   `json:"requests"`      // counted at the wire
	Notifications int64   `json:"notifications"` // counted at the wire
	// ServerPacketsPerAcquire is the server's own zk_packets_received
	// (mntr) over the same window, per acquisition; -1 if mntr failed.
	ServerPacketsPerAcquire float64 `json:"server_packets_per_acquire"`
	// ClientCPUPerAcquireUs is the CPU time (user + system) the bench's
	// process used over the window, per acquisition, in µs: the clients'
	// cost, the wire counting included (getrusage RUSAGE_SELF; the server
	// is another process). -1 where it is not measured (Curator, whose
	// client is the JVM; systems without getrusage).
	ClientCPUPerAcquireUs float64 `json:"client_cpu_us_per_acquire"`
	// Ops is the requests by operation, per acquisition.
	Ops   map[string]float64 `json:"ops"`
	Error string             `json:"error,omitempty"`
	// Skipped says why a row was not measured (Curator without Java or
	// its jars); its numbers are then all zero.
	Skipped string `json:"skipped,omitempty"`
	// SampleAcquiresPerS is acquires_per_s of each sample, in the order
	// they were taken (pass by pass): how much the load moved it.
	SampleAcquiresPerS []float64 `json:"sample_acquires_per_s,omitempty"`
	// Targets are chapter 04's targets measured on this row (report.go).
	Targets []Target `json:"targets,omitempty"`
}

// spec is what to measure in one row.
type spec struct {
	workload   string   // contention, floor, seed
	kind       lockKind // not for floor
	contenders int
	rounds     int
	shared     bool
	samples    int // 0: -repeat; fewer for a row whose one sample takes long
}

// sampleCount is how many samples s takes when -repeat is repeat.
func (s spec) sampleCount(repeat int) int {
	if s.samples > 0 {
		return min(s.samples, repeat)
	}
	return repeat
}

// bench holds what every sample shares.
type bench struct {
	servers []string
	admin   *zk.Conn // creates and removes each row's znodes; never counted
	base    string   // every row works below it
	session time.Duration
	hold    time.Duration

	curator     *curator // the JVM that runs the Curator rows; nil when they cannot run
	curatorSkip string   // why the Curator rows are skipped (no Java, no jars)
	curatorErr  error    // why the Curator runner failed to start
}

// sample is one measurement of a spec: a row is the sum of its samples.
type sample struct {
	acquires, releases int
	waits              []time.Duration
	elapsed            time.Duration
	wire               wireCount
	packets            int64         // zk_packets_received delta; -1 if mntr failed
	cpu                time.Duration // the process's CPU over the window
	cpuOK              bool          // cpu was measured
	err                error
	skipped            string // why nothing was measured
}

// row sums the samples of s into its Row. Sums, not averages of rates:
// acquisitions per second is all acquisitions over all the time measured.
func (s spec) row(samples []sample) Row {
	name := s.kind.name
	if s.workload == "floor" {
		name = "floor"
	}
	row := Row{Lock: name, Contenders: s.contenders, Rounds: s.rounds, SharedSession: s.shared,
		Workload: s.workload, Repeats: len(samples), Planned: s.contenders * s.rounds * len(samples), ServerPacketsPerAcquire: -1,
		ClientCPUPerAcquireUs: -1}
	var (
		elapsed time.Duration
		waits   []time.Duration
		wire    = wireCount{ops: map[int32]int64{}}
		packets int64
		cpu     time.Duration
		cpuOK   = len(samples) > 0
		errs    []error
	)
	for _, x := range samples {
		if x.acquires > 0 && x.elapsed > 0 {
			row.SampleAcquiresPerS = append(row.SampleAcquiresPerS, roundTo(float64(x.acquires)/x.elapsed.Seconds(), 1))
		}
		row.Acquires += x.acquires
		row.Releases += x.releases
		waits = append(waits, x.waits...)
		elapsed += x.elapsed
		for op, n := range x.wire.ops {
			wire.ops[op] += n
		}
		wire.notifications += x.wire.notifications
		if packets >= 0 && x.packets >= 0 {
			packets += x.packets
		} else {
			packets = -1
		}
		cpu += x.cpu
		cpuOK = cpuOK && x.cpuOK
		if x.err != nil {
			errs = append(errs, x.err)
		}
		if x.skipped != "" {
			row.Skipped = x.skipped
		}
	}
	if err := errors.Join(errs...); err != nil {
		row.Error = err.Error()
	}
	row.ElapsedMs = ms(elapsed) / float64(max(len(samples), 1))
	row.Requests = wire.requests()
	row.Notifications = wire.notifications
	row.Partial = row.Acquires < row.Planned && row.Skipped == ""
	if row.Acquires > 0 && elapsed > 0 {
		row.AcquiresPerS = float64(row.Acquires) / elapsed.Seconds()
		row.RequestsPerAcquire = float64(row.Requests) / float64(row.Acquires)
		row.Ops = map[string]float64{}
		for name, n := range wire.byName() {
			row.Ops[name] = float64(n) / float64(row.Acquires)
		}
		if packets >= 0 {
			row.ServerPacketsPerAcquire = float64(packets) / float64(row.Acquires)
		}
		if cpuOK {
			row.ClientCPUPerAcquireUs = float64(cpu.Microseconds()) / float64(row.Acquires)
		}
	}
	if row.Releases > 0 {
		row.NotificationsPerRelease = float64(row.Notifications) / float64(row.Releases)
	}
	row.P50ms, row.P99ms = percentile(waits, 0.50), percentile(waits, 0.99)
	row.round()
	return row
}

// round keeps the JSON readable: no number carries more digits than the
// measurement can justify.
func (r *Row) round() {
	r.AcquiresPerS = roundTo(r.AcquiresPerS, 1)
	r.P50ms, r.P99ms, r.ElapsedMs = roundTo(r.P50ms, 3), roundTo(r.P99ms, 3), roundTo(r.ElapsedMs, 1)
	r.RequestsPerAcquire = roundTo(r.RequestsPerAcquire, 3)
	r.NotificationsPerRelease = roundTo(r.NotificationsPerRelease, 3)
	if r.ServerPacketsPerAcquire >= 0 {
		r.ServerPacketsPerAcquire = roundTo(r.ServerPacketsPerAcquire, 3)
	}
	if r.ClientCPUPerAcquireUs >= 0 {
		r.ClientCPUPerAcquireUs = roundTo(r.ClientCPUPerAcquireUs, 1)
	}
	for op, v := range r.Ops {
		r.Ops[op] = roundTo(v, 3)
	}
}

func roundTo(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// measure takes one sample of s within budget. The znodes and sessions it
// made are gone when it returns, so samples don't disturb each other.
func (b *bench) measure(ctx context.Context, s spec, budget time.Duration) (x sample) {
	x.packets = -1
	if s.kind.jvm {
		switch {
		case b.curatorSkip != "":
			x.skipped = b.curatorSkip
			return x
		case b.curator == nil:
			x.err = fmt.Errorf("curator runner: %w", b.curatorErr)
			return x
		}
	}
	name := s.kind.name
	if s.workload == "floor" {
		name = "floor"
	}
	root := fmt.Sprintf("%s/%s-%d-%s", b.base, name, s.contenders, randhex.String(3))
	if _, err := b.admin.Create(root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		x.err = fmt.Errorf("create row root %s: %w", root, err)
		return x
	}
	defer znode.DeleteTree(b.admin, root)
	// Sequential locks and the floor get a directory made for them; the
	// naive and watch locks get a path that does not exist yet.
	path := root + "/lock"
	if s.workload == "floor" || s.kind.dir {
		if _, err := b.admin.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			x.err = fmt.Errorf("create lock directory %s: %w", path, err)
			return x
		}
	}

	if s.kind.jvm {
		return b.curator.measure(ctx, b, s, path, budget)
	}

	// Sessions: one per contender, or one for all (-shared, the seed).
	w := newWire()
	nconn := s.contenders
	if s.shared || s.workload == "floor" {
		nconn = 1
	}
	conns, err := b.openSessions(ctx, nconn, w)
	defer closeSessions(conns)
	if err != nil {
		x.err = err
		return x
	}

	// One lock object per contender, even on a shared session.
	var work []func(ctx context.Context) (acquired, released int, waits []time.Duration, err error)
	if s.workload == "floor" {
		work = append(work, func(ctx context.Context) (int, int, []time.Duration, error) {
			return floor(ctx, conns[0].Conn(), path+"/pair-", s.rounds)
		})
	} else {
		for i := range s.contenders {
			l, err := s.kind.new(conns[i%nconn], path)
			if err != nil {
				x.err = fmt.Errorf("new %s lock on %s: %w", s.kind.name, path, err)
				return x
			}
			work = append(work, func(ctx context.Context) (int, int, []time.Duration, error) {
				return runContender(ctx, l, s.rounds, b.hold)
			})
		}
	}

	// Everybody starts at once; the window is from the start signal to
	// the last Unlock, and the counters are read at both ends of it.
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		startCh = make(chan struct{})
	)
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	for _, f := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startCh
			a, r, ws, err := f(bctx)
			mu.Lock()
			defer mu.Unlock()
			x.acquires += a
			x.releases += r
			x.waits = append(x.waits, ws...)
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	packetsBefore, mntrErr := b.packets(ctx)
	wireBefore := w.snapshot()
	// The garbage of what came before is collected first: the window pays
	// for its own.
	runtime.GC()
	cpuBefore, cpuOK := processCPU()
	start := time.Now()
	close(startCh)
	wg.Wait()
	x.elapsed = time.Since(start)
	cpuAfter, cpuAfterOK := processCPU()
	x.cpu, x.cpuOK = cpuAfter-cpuBefore, cpuOK && cpuAfterOK
	x.wire = w.snapshot().sub(wireBefore)
	packetsAfter, err := b.packets(ctx)
	if mntrErr == nil && err == nil {
		// The server counts the mntr command itself as a packet received:
		// the window holds one of them per server, which no lock sent.
		x.packets = packetsAfter - packetsBefore - int64(len(b.servers))
	}
	x.err = errors.Join(errs...)
	return x
}

// openSessions opens n sessions counted by w, a few at a time: one by one,
// 64 sessions take seconds of a default run on a busy machine. The
// sessions opened so far are returned with an error too, to be closed.
func (b *bench) openSessions(ctx context.Context, n int, w *wire) ([]*seqlock.Session, error) {
	opts := []seqlock.SessionOption{seqlock.WithSessionTimeout(b.session), seqlock.WithDialer(w.dialer())}
	auth, err := zkconn.AuthFromEnv()
	if err != nil {
		return nil, err
	}
	if auth != nil {
		opts = append(opts, seqlock.WithDigest(auth.User, auth.Password))
	}
	conns := make([]*seqlock.Session, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := seqlock.NewSession(ctx, b.servers, opts...)
			if err != nil {
				errs[i] = fmt.Errorf("open session %d of %d: %w", i+1, n, err)
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	opened := slices.DeleteFunc(conns, func(c *seqlock.Session) bool { return c == nil })
	return opened, errors.Join(errs...)
}

// closeSessions closes conns all at once: each Close waits for the
// server's answer.
func closeSessions(conns []*seqlock.Session) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(c.Close)
	}
	wg.Wait()
}

// runContender is one contender: rounds times Lock, hold, Unlock, in the
// loop the demos and the conformance suite run too (internal/contend). It
// stops early, without an error, when the row's time budget runs out; a
// lock taken just before is still released (the loop's Unlock runs on a
// deadline of its own) and counted.
func runContender(budget context.Context, l locker, rounds int, hold time.Duration) (acquired, released int, waits []time.Duration, err error) {
	s, err := contend.Loop(budget, l, rounds, contend.Hold(hold))
	if err != nil && budget.Err() != nil && errors.Is(err, budget.Err()) && s.Released == s.Acquired {
		err = nil // out of time: a partial row, not a failure
	}
	return s.Acquired, s.Released, s.Waits, err
}

// floor is the best any ZooKeeper lock can do on one session: it must at
// least create its node and delete it again, one round trip each, so
// sequential create+delete pairs per second bound every lock's
// acquisitions per second. The "wait" of a pair is its create.
func floor(budget context.Context, conn *zk.Conn, prefix string, rounds int) (pairs, deletes int, waits []time.Duration, err error) {
	for range rounds {
		if budget.Err() != nil {
			return
		}
		t0 := time.Now()
		node, err := conn.Create(prefix, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return pairs, deletes, waits, fmt.Errorf("floor: create under %s: %w", prefix, err)
		}
		waits = append(waits, time.Since(t0))
		pairs++
		if err := conn.Delete(node, -1); err != nil {
			return pairs, deletes, waits, fmt.Errorf("floor: delete %s: %w", node, err)
		}
		deletes++
	}
	return
}

// packets is the sum of zk_packets_received over the servers: the
// server's own count of what clients sent it (pings included).
func (b *bench) packets(ctx context.Context) (int64, error) {
	var sum int64
	for _, addr := range b.servers {
		m, err := zkserver.Mntr(ctx, addr)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(m["zk_packets_received"], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("mntr on %s: zk_packets_received %q: %w", addr, m["zk_packets_received"], err)
		}
		sum += n
	}
	return sum, nil
}

// warmUp runs create+delete pairs for d on the admin session, so the
// server's JIT has compiled the request path before the first row, and at
// the same time Curator's acquire+release on a session of its own, so the
// JVM's has compiled Curator's lock path.
func (b *bench) warmUp(ctx context.Context, d time.Duration) error {
	dir := b.base + "/warm-up"
	if _, err := b.admin.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		return fmt.Errorf("warm-up: create %s: %w", dir, err)
	}
	defer znode.DeleteTree(b.admin, dir)
	var curatorErr error
	var wg sync.WaitGroup
	if b.curator != nil {
		cdir := b.base + "/warm-up-curator"
		if _, err := b.admin.Create(cdir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			return fmt.Errorf("warm-up: create %s: %w", cdir, err)
		}
		defer znode.DeleteTree(b.admin, cdir)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.curator.warmUp(ctx, cdir, d); err != nil {
				curatorErr = fmt.Errorf("warm-up: curator: %w", err)
			}
		}()
	}
	fctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, _, _, err := floor(fctx, b.admin, dir+"/pair-", math.MaxInt)
	wg.Wait()
	return errors.Join(err, curatorErr)
}

// percentile is the nearest-rank percentile of ds in milliseconds.
func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return ms(s[max(i, 0)])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
