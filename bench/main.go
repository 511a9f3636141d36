// Command bench measures lockstep's locks against go-zookeeper's own
// zk.Lock and Apache Curator's InterProcessMutex, in one run against one
// ZooKeeper:
//
//	go run ./bench                  # a table
//	go run ./bench -json            # one JSON object per row
//	go run ./bench -locks 04,gozk -contenders 1,16 -rounds 100
//
// For each lock and contender count it reports acquisitions per second,
// the p50 and p99 wait (from the Lock call to acquired), ZooKeeper
// requests per acquisition and watch notifications per release, counted at
// the wire for every lock alike, and the server's own packet count beside
// them. Two more rows frame the numbers: the floor (create+delete pairs on
// one session, the best any ZooKeeper lock can do) and the seed workload
// (200 goroutines sharing one session, one acquisition each). Curator runs
// in a JVM, counted at the wire through a proxy, when Java and its jars are
// installed (else its rows say why they are skipped). The last lines say
// whether chapter 04 meets its targets.
//
// See bench/README.md for a run on the course's machine and what the
// columns mean.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/jvm"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// autoAcquisitions is how many acquisitions a sample aims at when -rounds
// is 0: with three samples a row, enough for a p99, few enough that the
// default run stays under two minutes on a busy 2-core machine. At 10
// contenders it gives the 10 sessions × 50 rounds that chapter 04's
// targets are measured on.
const autoAcquisitions = 500

// targetContenders, targetRounds and targetSeed are the workloads of chapter
// 04's targets (targets.go): 10 sessions × 50 rounds, and 200 goroutines on
// one session.
const (
	targetContenders = 10
	targetRounds     = 50
	targetSeed       = 200
)

type config struct {
	servers    string
	locks      []string
	contenders []int
	rounds     int
	shared     bool
	hold       time.Duration
	budget     time.Duration
	warmup     time.Duration
	session    time.Duration
	seed       int
	repeat     int
	json       bool
	classpath  string // Curator's jars
	// identical runs the identical loop (identical.go) instead of the
	// table, passes times.
	identical bool
	passes    int
	profiles  string // with -identical: CPU profiles of each window
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, cfg, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var cfg config
	var locks, contenders string
	fs.StringVar(&cfg.servers, "servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	fs.StringVar(&locks, "locks", strings.Join(allLocks(), ","), "comma list of what to measure: "+strings.Join(allLocks(), ", "))
	fs.StringVar(&contenders, "contenders", fmt.Sprintf("1,%d,64", targetContenders), "comma list of contender counts")
	fs.IntVar(&cfg.rounds, "rounds", 0, fmt.Sprintf("acquisitions per contender per sample (0: about %d per sample, at least 4 each)", autoAcquisitions))
	fs.BoolVar(&cfg.shared, "shared", false, "all contenders share one session (as in the seed workload)")
	fs.DurationVar(&cfg.hold, "hold", 0, "time spent holding the lock")
	fs.IntVar(&cfg.repeat, "repeat", 3, "samples per row, taken in turn with the other rows and summed")
	fs.DurationVar(&cfg.budget, "budget", 30*time.Second, "time budget per row (shared by its samples); a row that runs out is reported as partial")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "create+delete pairs (and Curator's acquire+release) before the first row, so the JITs are warm (0: none)")
	fs.DurationVar(&cfg.session, "session", 10*time.Second, "ZooKeeper session timeout")
	fs.IntVar(&cfg.seed, "seed-goroutines", targetSeed, "goroutines (Curator: threads) of the seed workload")
	fs.StringVar(&cfg.classpath, "curator-classpath", defaultCuratorClasspath, "Curator's jars for the curator row (Debian: apt-get install libcurator-recipes-java)")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object per row instead of a table")
	fs.BoolVar(&cfg.identical, "identical", false, fmt.Sprintf("instead of the table: 04 and zk.Lock in the same loop (%d sessions × %d rounds, no wire counting), in turn; throughput and client CPU per acquisition", targetContenders, targetRounds))
	fs.IntVar(&cfg.passes, "passes", 5, "with -identical: passes of each lock, in turn")
	fs.StringVar(&cfg.profiles, "cpuprofile", "", "with -identical: write a CPU profile of each measured window to PREFIX.<lock>.<pass>.prof")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./bench [flags]\n\nflags:")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nlocks:")
		for _, k := range kinds {
			fmt.Fprintf(fs.Output(), "  %-7s %s\n", k.name, k.about)
		}
		fmt.Fprintln(fs.Output(), "  floor   create+delete pairs on one session: the best any ZooKeeper lock can do")
		fmt.Fprintln(fs.Output(), "  seed    -seed-goroutines goroutines on one session, one acquisition each, with 04, gozk and curator")
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, name := range strings.Split(locks, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(allLocks(), name) {
			return cfg, fmt.Errorf("-locks: unknown %q (want some of %s)", name, strings.Join(allLocks(), ","))
		}
		cfg.locks = append(cfg.locks, name)
	}
	if len(cfg.locks) == 0 {
		return cfg, fmt.Errorf("-locks %q: nothing to measure", locks)
	}
	for _, f := range strings.Split(contenders, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-contenders %q: want positive integers", contenders)
		}
		cfg.contenders = append(cfg.contenders, n)
	}
	switch {
	case cfg.rounds < 0:
		return cfg, fmt.Errorf("-rounds %d: want ≥ 0", cfg.rounds)
	case cfg.hold < 0:
		return cfg, fmt.Errorf("-hold %v: want ≥ 0", cfg.hold)
	case cfg.budget <= 0:
		return cfg, fmt.Errorf("-budget %v: want > 0", cfg.budget)
	case cfg.session <= 0:
		return cfg, fmt.Errorf("-session %v: want > 0", cfg.session)
	case cfg.repeat < 1:
		return cfg, fmt.Errorf("-repeat %d: want ≥ 1", cfg.repeat)
	case cfg.seed < 1:
		return cfg, fmt.Errorf("-seed-goroutines %d: want ≥ 1", cfg.seed)
	case cfg.passes < 1:
		return cfg, fmt.Errorf("-passes %d: want ≥ 1", cfg.passes)
	}
	return cfg, nil
}

// allLocks is what -locks accepts: the locks, then the two framing rows.
func allLocks() []string {
	var out []string
	for _, k := range kinds {
		out = append(out, k.name)
	}
	return append(out, "floor", "seed")
}

// roundsFor is -rounds, or the automatic choice for n contenders.
func (cfg config) roundsFor(n int) int {
	if cfg.rounds > 0 {
		return cfg.rounds
	}
	return max(4, autoAcquisitions/n)
}

// plan lists the rows in the order they run: the floor, then every lock
// at each contender count, then the seed workload for those of 04, gozk
// and Curator that -locks names (all three if it names none of them).
func (cfg config) plan() []spec {
	var out []spec
	if slices.Contains(cfg.locks, "floor") {
		out = append(out, spec{workload: "floor", contenders: 1, rounds: cfg.roundsFor(1)})
	}
	for _, n := range cfg.contenders {
		for _, k := range kinds {
			if slices.Contains(cfg.locks, k.name) {
				out = append(out, spec{workload: "contention", kind: k, contenders: n, rounds: cfg.roundsFor(n), shared: cfg.shared})
			}
		}
	}
	if slices.Contains(cfg.locks, "seed") {
		seeded := []string{"04", "gozk", "curator"}
		if named := slices.DeleteFunc(slices.Clone(seeded), func(n string) bool { return !slices.Contains(cfg.locks, n) }); len(named) > 0 {
			seeded = named
		}
		for _, name := range seeded {
			if k, ok := kindNamed(name); ok {
				sp := spec{workload: "seed", kind: k, contenders: cfg.seed, rounds: 1, shared: true}
				if k.jvm {
					// Curator's herd makes one sample take seconds (about
					// 10 s at 200 threads on two cores): one is enough, as
					// its cost per acquisition hardly moves.
					sp.samples = 1
				}
				out = append(out, sp)
			}
		}
	}
	return out
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) int {
	info := stdout
	if cfg.json {
		info = stderr // stdout is only JSON rows
	}
	plan := cfg.plan()
	if cfg.identical {
		plan = nil // no table, no Curator
	}

	// javac takes a few seconds and needs no server: it runs while the
	// server starts.
	type compiled struct {
		prog *jvm.Program
		err  error
	}
	var javac chan compiled
	curatorSkip := ""
	if slices.ContainsFunc(plan, func(s spec) bool { return s.kind.jvm }) {
		if curatorSkip = curatorMissing(cfg.classpath); curatorSkip == "" {
			javac = make(chan compiled, 1)
			go func() {
				prog, err := compileCurator(ctx, cfg.classpath)
				javac <- compiled{prog, err}
			}()
			// If the run ends before the runner starts, its classes go.
			defer func() {
				if javac != nil {
					if c := <-javac; c.err == nil {
						c.prog.Remove()
					}
				}
			}()
		}
	}

	servers, stopServer, err := demo.Servers(ctx, cfg.servers, info)
	defer stopServer()
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	admin, events, err := zksession.Connect(ctx, servers, cfg.session)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	go zksession.Drain(events)
	defer admin.Close()
	b := &bench{servers: servers, admin: admin, base: "/lockstep-bench-" + randhex.String(4),
		session: cfg.session, hold: cfg.hold, curatorSkip: curatorSkip}
	if _, err := admin.Create(b.base, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		fmt.Fprintf(stderr, "bench: create %s: %v\n", b.base, err)
		return 1
	}
	defer znode.DeleteTree(admin, b.base)
	if javac != nil {
		c := <-javac
		javac = nil // taken: the runner's Close removes the classes
		if c.err == nil {
			b.curator, c.err = startCurator(c.prog, servers, cfg.session)
		}
		if c.err != nil {
			// Java and the jars are there, so this is a failure, not a skip:
			// the Curator rows report it as their error.
			b.curatorErr = c.err
			fmt.Fprintln(stderr, "bench: curator:", c.err)
		} else {
			defer b.curator.Close()
		}
	}

	version := "?"
	if m, err := zkserver.Mntr(ctx, servers[0]); err == nil {
		version, _, _ = strings.Cut(m["zk_version"], "-")
	}
	rounds := "about " + strconv.Itoa(autoAcquisitions) + " acquisitions"
	if cfg.rounds > 0 {
		rounds = strconv.Itoa(cfg.rounds) + " rounds per contender"
	}
	curatorInfo := ""
	if b.curator != nil {
		cv, jv, _ := strings.Cut(b.curator.version, " java ")
		curatorInfo = fmt.Sprintf(", Curator %s on Java %s", cv, jv)
	}
	if cfg.identical {
		fmt.Fprintf(info, "ZooKeeper %s, %s %s/%s, %d CPUs; session timeout %v\n",
			version, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cfg.session)
		if err := b.identical(ctx, cfg.passes, cfg.profiles, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(info, "ZooKeeper %s, %s %s/%s, %d CPUs%s; %s per row, each of %s; hold %v; budget %v per row\n",
		version, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), curatorInfo,
		plural(cfg.repeat, "sample"), rounds, cfg.hold, cfg.budget)
	if b.curatorSkip != "" {
		fmt.Fprintf(info, "curator rows skipped: %s\n", b.curatorSkip)
	}
	if cfg.warmup > 0 {
		if err := b.warmUp(ctx, cfg.warmup); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}

	// Every spec is sampled -repeat times, in turn with the others, so a
	// burst of load on a shared machine spreads over every lock instead of
	// spoiling one row. Table rows print when their last sample is in; JSON
	// rows at the end, when the targets they carry are known.
	samples := make([][]sample, len(plan))
	rows := make([]Row, len(plan))
	code := 0
	if !cfg.json {
		printHeader(stdout)
	}
	for rep := range cfg.repeat {
		fmt.Fprintf(stderr, "bench: pass %d of %d over %s\n", rep+1, cfg.repeat, plural(len(plan), "row"))
		for i, s := range plan {
			if ctx.Err() != nil {
				break
			}
			// A row of fewer samples takes them in the last passes.
			n := s.sampleCount(cfg.repeat)
			if rep < cfg.repeat-n {
				continue
			}
			samples[i] = append(samples[i], b.measure(ctx, s, cfg.budget/time.Duration(n)))
			if rep < cfg.repeat-1 {
				continue
			}
			rows[i] = s.row(samples[i])
			if rows[i].Error != "" {
				code = 1
			}
			if !cfg.json {
				printRow(stdout, rows[i])
			}
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "bench: interrupted")
		return 1
	}
	ts := targets(rows)
	if cfg.json {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			enc.Encode(r)
		}
	}
	fmt.Fprintln(info)
	printTargets(info, ts)
	return code
}
