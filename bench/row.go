package main

import (
	"errors"
	"math"
	"sort"
	"time"

	"github.com/go-zookeeper/zk"
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
