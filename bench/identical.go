package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// The identical loop (issue 19, "as fast as zk.Lock"): chapter 04's mutex
// and go-zookeeper's zk.Lock run the same loop — 10 sessions × 50 rounds of
// Lock, increment a counter in memory, Unlock — in one process, in turn, a
// few passes each, with nothing between the client and the server (no wire
// counting: the conns are dialled as a user would dial them). What is
// compared is throughput and the client's CPU per acquisition, beside
// three counts that explain it and that the machine's load does not blur:
// goroutines started, heap allocations, read and write system calls.

// identicalKind is one side of the comparison.
type identicalKind struct {
	name  string
	about string
	// open opens n sessions and returns a lock on dir for each, and how
	// to close them all.
	open func(ctx context.Context, servers []string, timeout time.Duration, dir string, n int) ([]locker, func(), error)
	// background: each Lock and Unlock gets context.Background() instead
	// of a context with a deadline. 04 honours a context that can end (the
	// usual case) by running each request on a worker goroutine that is
	// kept for the next (internal/zkcall), and a context that cannot end in
	// the caller's goroutine; zk.Lock takes no context.
	background bool
}

var identicalKinds = []identicalKind{
	{name: "04", about: "seqlock.Mutex on seqlock.NewSession sessions; Lock(ctx) with a deadline", open: openSeqlock},
	{name: "04 bg", about: "the same, Lock(context.Background()): no goroutine of its own", open: openSeqlock, background: true},
	{name: "gozk", about: "zk.NewLock on plain zk.Connect conns", open: openGozk},
}

func openSeqlock(ctx context.Context, servers []string, timeout time.Duration, dir string, n int) ([]locker, func(), error) {
	var ss []*seqlock.Session
	closeAll := func() { closeSessions(ss) }
	var ls []locker
	for i := range n {
		s, err := seqlock.NewSession(ctx, servers, seqlock.WithSessionTimeout(timeout))
		if err != nil {
			return nil, closeAll, fmt.Errorf("open session %d of %d: %w", i+1, n, err)
		}
		ss = append(ss, s)
		m, err := seqlock.New(s, dir)
		if err != nil {
			return nil, closeAll, fmt.Errorf("seqlock.New(%s): %w", dir, err)
		}
		ls = append(ls, m)
	}
	return ls, closeAll, nil
}

func openGozk(ctx context.Context, servers []string, timeout time.Duration, dir string, n int) ([]locker, func(), error) {
	var conns []*zk.Conn
	closeAll := func() {
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Go(c.Close)
		}
		wg.Wait()
	}
	var ls []locker
	quiet := zk.WithLogger(log.New(io.Discard, "", 0))
	for i := range n {
		conn, events, err := zk.Connect(servers, timeout, quiet)
		if err != nil {
			return nil, closeAll, fmt.Errorf("connect %d of %d: %w", i+1, n, err)
		}
		conns = append(conns, conn)
		if err := awaitSession(ctx, events); err != nil {
			return nil, closeAll, fmt.Errorf("connect %d of %d: %w", i+1, n, err)
		}
		go zksession.Drain(events)
		ls = append(ls, gozkLock{zk.NewLock(conn, dir, zk.WorldACL(zk.PermAll))})
	}
	return ls, closeAll, nil
}

// awaitSession waits for a plain conn's session.
func awaitSession(ctx context.Context, events <-chan zk.Event) error {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return errors.New("conn closed before it had a session")
			}
			if ev.State == zk.StateHasSession {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// identicalSample is one pass of one kind.
type identicalSample struct {
	acquires int
	elapsed  time.Duration
	cpu      time.Duration
	cpuOK    bool
	// What the Go runtime counted over the window: goroutines started and
	// heap allocations. Unlike CPU time, they do not depend on the load of
	// the machine, so they show what a change saved even where the CPU
	// column is lost in the noise.
	goroutines, allocs uint64
	// Read and write system calls over the window (sysio_linux.go).
	syscalls   uint64
	syscallsOK bool
}

// runtimeCounts reads the runtime's counts of goroutines created and of
// heap allocations (tiny allocations included in the latter only as the
// runtime batches them: compare like with like).
func runtimeCounts() (goroutines, allocs uint64) {
	m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}, {Name: "/gc/heap/allocs:objects"}}
	metrics.Read(m)
	if m[0].Value.Kind() == metrics.KindUint64 {
		goroutines = m[0].Value.Uint64()
	}
	if m[1].Value.Kind() == metrics.KindUint64 {
		allocs = m[1].Value.Uint64()
	}
	return goroutines, allocs
}

// runIdentical is one pass of k: the sessions are opened before and closed
// after the window, which runs from the start signal to the last Unlock.
// The garbage of what came before is collected first, so the window pays
// for its own.
//
// With profile set, the window is CPU-profiled into that file.
func (b *bench) runIdentical(ctx context.Context, k identicalKind, n, rounds int, profile string) (identicalSample, error) {
	var x identicalSample
	dir := fmt.Sprintf("%s/identical-%s", b.base, randhex.String(3))
	if _, err := b.admin.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		return x, fmt.Errorf("create %s: %w", dir, err)
	}
	defer znode.DeleteTree(b.admin, dir)
	ls, closeAll, err := k.open(ctx, b.servers, b.session, dir, n)
	defer closeAll()
	if err != nil {
		return x, err
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if k.background {
		lctx = context.Background()
	}
	var (
		counter int // guarded by the lock under test
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		start   = make(chan struct{})
	)
	for _, l := range ls {
		wg.Go(func() {
			<-start
			for range rounds {
				if err := l.Lock(lctx); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				counter++
				if err := l.Unlock(lctx); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	runtime.GC()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return x, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return x, err
		}
		defer pprof.StopCPUProfile() // after the window; a second Stop is a no-op
	}
	g0, a0 := runtimeCounts()
	io0, iok0 := processIO()
	cpu0, ok0 := processCPU()
	t0 := time.Now()
	close(start)
	wg.Wait()
	x.elapsed = time.Since(t0)
	cpu1, ok1 := processCPU()
	io1, iok1 := processIO()
	g1, a1 := runtimeCounts()
	pprof.StopCPUProfile()
	x.cpu, x.cpuOK = cpu1-cpu0, ok0 && ok1
	x.goroutines, x.allocs = g1-g0, a1-a0
	x.syscalls, x.syscallsOK = io1-io0, iok0 && iok1
	x.acquires = counter
	if err := errors.Join(errs...); err != nil {
		return x, err
	}
	if counter != n*rounds {
		return x, fmt.Errorf("%s: counter %d, want %d: two holders at once", k.name, counter, n*rounds)
	}
	return x, nil
}

// identical runs the identical loop passes times for every kind, in turn
// (the order rotates from pass to pass), after one pass of each that is
// not measured (warm-up), and prints what each pass and the sum measured.
//
// With profiles set, each measured window is CPU-profiled into
// profiles.<lock>.<pass>.prof (go tool pprof -top merges several).
func (b *bench) identical(ctx context.Context, passes int, profiles string, out, progress io.Writer) error {
	n, rounds := targetContenders, targetRounds
	fmt.Fprintf(out, "identical loop: %d sessions × %d rounds of Lock → counter++ → Unlock, %d passes in turn (+1 warm-up), no wire counting\n", n, rounds, passes)
	for _, k := range identicalKinds {
		fmt.Fprintf(out, "  %-6s %s\n", k.name, k.about)
	}
	sums := make([]identicalSample, len(identicalKinds))
	// The ratios of each pass, whose samples were taken side by side: their
	// median shrugs off a burst of load that spoiled one pass.
	thrByPass := make([][]float64, len(identicalKinds))
	cpuByPass := make([][]float64, len(identicalKinds))
	ratio := func(k int, x []identicalSample) (thr, cpu float64) {
		g := x[len(x)-1] // gozk is last
		thr = (float64(x[k].acquires) / x[k].elapsed.Seconds()) / (float64(g.acquires) / g.elapsed.Seconds())
		cpu = (float64(x[k].cpu) / float64(x[k].acquires)) / (float64(g.cpu) / float64(g.acquires))
		return
	}
	fmt.Fprintf(out, "%-5s %-6s %8s %10s %8s %12s %7s %7s %6s  %s\n", "pass", "lock", "acq", "acq/s", "cpu ms", "cpu µs/acq", "gor/acq", "alc/acq", "rw/acq", "vs gozk")
	for pass := range passes + 1 {
		fmt.Fprintf(progress, "bench: identical pass %d of %d\n", pass, passes)
		this := make([]identicalSample, len(identicalKinds))
		for j := range identicalKinds {
			i := (j + pass) % len(identicalKinds)
			profile := ""
			if profiles != "" && pass > 0 {
				profile = fmt.Sprintf("%s.%s.%d.prof", profiles, strings.ReplaceAll(identicalKinds[i].name, " ", "-"), pass)
			}
			x, err := b.runIdentical(ctx, identicalKinds[i], n, rounds, profile)
			if err != nil {
				return fmt.Errorf("pass %d, %s: %w", pass, identicalKinds[i].name, err)
			}
			this[i] = x
		}
		if pass == 0 {
			continue // warm-up
		}
		for i, k := range identicalKinds {
			x := this[i]
			sums[i].acquires += x.acquires
			sums[i].elapsed += x.elapsed
			sums[i].cpu += x.cpu
			sums[i].cpuOK = x.cpuOK
			sums[i].goroutines += x.goroutines
			sums[i].allocs += x.allocs
			sums[i].syscalls += x.syscalls
			sums[i].syscallsOK = x.syscallsOK
			thr, cpu := ratio(i, this)
			thrByPass[i] = append(thrByPass[i], thr)
			cpuByPass[i] = append(cpuByPass[i], cpu)
			fmt.Fprintf(out, "%-5d %-6s %8d %10.0f %8.1f %12.0f %7.1f %7.0f %6s  %4.2f× %4.2f×cpu\n", pass, k.name, x.acquires,
				float64(x.acquires)/x.elapsed.Seconds(), ms(x.cpu), float64(x.cpu.Microseconds())/float64(x.acquires),
				per(x.goroutines, x.acquires), per(x.allocs, x.acquires), syscallsPer(x), thr, cpu)
		}
	}
	fmt.Fprintln(out, "all passes (sums; then the median of the pass-by-pass ratios):")
	for i, k := range identicalKinds {
		x := sums[i]
		thr, cpu := ratio(i, sums)
		cpuPer := "-"
		if x.cpuOK {
			cpuPer = fmt.Sprintf("%.0f", float64(x.cpu.Microseconds())/float64(x.acquires))
		}
		fmt.Fprintf(out, "      %-6s %8d %10.0f %8.1f %12s %7.1f %7.0f %6s  %4.2f× %4.2f×cpu   median %4.2f× %4.2f×cpu\n", k.name, x.acquires,
			float64(x.acquires)/x.elapsed.Seconds(), ms(x.cpu), cpuPer, per(x.goroutines, x.acquires), per(x.allocs, x.acquires), syscallsPer(x),
			thr, cpu, median(thrByPass[i]), median(cpuByPass[i]))
	}
	return nil
}

// syscallsPer is x's read and write system calls per acquisition, "-" if
// they were not counted.
func syscallsPer(x identicalSample) string {
	if !x.syscallsOK {
		return "-"
	}
	return fmt.Sprintf("%.1f", per(x.syscalls, x.acquires))
}

// per is n per acquisition.
func per(n uint64, acquires int) float64 {
	if acquires == 0 {
		return 0
	}
	return float64(n) / float64(acquires)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
