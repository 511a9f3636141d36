package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

const rowFormat = "%-5s %4s %-6s %9s %8s %8s %8s %7s %7s %8s  %s\n"

func printHeader(w io.Writer) {
	fmt.Fprintf(w, rowFormat, "lock", "n", "sess", "acquired", "acq/s", "p50 ms", "p99 ms", "req/acq", "ntf/rel", "srv/acq", "requests per acquisition")
}

func printRow(w io.Writer, r Row) {
	session := "own"
	if r.SharedSession {
		session = "shared"
	}
	if r.Workload == "floor" {
		session = "one"
	}
	acquired := fmt.Sprintf("%d/%d", r.Acquires, r.Planned)
	if r.Partial {
		acquired += "*"
	}
	srv := "-"
	if r.ServerPacketsPerAcquire >= 0 {
		srv = f2(r.ServerPacketsPerAcquire)
	}
	name := r.Lock
	if r.Workload == "seed" {
		name = "seed"
		session = r.Lock
	}
	fmt.Fprintf(w, rowFormat, name, strconv.Itoa(r.Contenders), session, acquired,
		fmt.Sprintf("%.0f", r.AcquiresPerS), f2(r.P50ms), f2(r.P99ms), f2(r.RequestsPerAcquire),
		f2(r.NotificationsPerRelease), srv, opsString(r.Ops))
	if r.Error != "" {
		fmt.Fprintf(w, "      error: %s\n", r.Error)
	}
}

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// opsString renders requests per acquisition by operation, largest first:
// "create 1 · children 1 · delete 1".
func opsString(ops map[string]float64) string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if ops[names[i]] != ops[names[j]] {
			return ops[names[i]] > ops[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + strconv.FormatFloat(ops[n], 'g', 3, 64)
	}
	return strings.Join(parts, " · ")
}

// verdicts says, for each of chapter 04's targets, whether this run met it.
// They are reported, never asserted: the numbers depend on the machine.
func verdicts(rows []Row) []string {
	find := func(workload, lock string, n int) (Row, bool) {
		for _, r := range rows {
			if r.Workload == workload && r.Lock == lock && (n == 0 || r.Contenders == n) && r.Error == "" && r.Acquires > 0 {
				return r, true
			}
		}
		return Row{}, false
	}
	status := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	var out []string
	for _, r := range rows {
		if r.Workload != "contention" || r.Lock != "04" {
			continue
		}
		what := "target: 04 ≥ gozk throughput at " + plural(r.Contenders, "contender")
		g, ok := find("contention", "gozk", r.Contenders)
		if !ok || r.Error != "" || r.Acquires == 0 {
			out = append(out, what+": not measured")
			continue
		}
		out = append(out, fmt.Sprintf("%s: %.0f vs %.0f acq/s (%.2f×) — %s", what, r.AcquiresPerS, g.AcquiresPerS,
			r.AcquiresPerS/g.AcquiresPerS, status(r.AcquiresPerS >= g.AcquiresPerS)))
	}
	if slicesHasLock(rows, "04") || slicesHasLock(rows, "floor") {
		what := "target: 04 ≥ 0.9× floor at 1 contender"
		r, ok1 := find("contention", "04", 1)
		f, ok2 := find("floor", "floor", 1)
		if ok1 && ok2 {
			out = append(out, fmt.Sprintf("%s: %.0f vs %.0f acq/s (%.2f×) — %s", what, r.AcquiresPerS, f.AcquiresPerS,
				r.AcquiresPerS/f.AcquiresPerS, status(r.AcquiresPerS >= 0.9*f.AcquiresPerS)))
		} else {
			out = append(out, what+": not measured (needs -locks with 04 and floor, -contenders with 1)")
		}
	}
	for _, r := range rows {
		if r.Workload != "seed" || r.Lock != "04" {
			continue
		}
		what := fmt.Sprintf("target: seed (%d goroutines, one session) with 04 in ≤ 2 s and ≤ 5 requests/acquisition", r.Contenders)
		if r.Error != "" || r.Partial {
			out = append(out, fmt.Sprintf("%s: %d of %d acquired in %.2f s — NOT met", what, r.Acquires, r.Planned, r.ElapsedMs/1000))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %.2f s, %.2f requests/acquisition — %s", what, r.ElapsedMs/1000,
			r.RequestsPerAcquire, status(r.ElapsedMs <= 2000 && r.RequestsPerAcquire <= 5)))
	}
	return out
}

func slicesHasLock(rows []Row, lock string) bool {
	for _, r := range rows {
		if r.Lock == lock {
			return true
		}
	}
	return false
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
