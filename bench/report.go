package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

const rowFormat = "%-7s %4s %-7s %9s %8s %8s %8s %7s %7s %8s %10s  %s\n"

func printHeader(w io.Writer) {
	fmt.Fprintf(w, rowFormat, "lock", "n", "sess", "acquired", "acq/s", "p50 ms", "p99 ms", "req/acq", "ntf/rel", "srv/acq", "cpu us/acq", "requests per acquisition")
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
	cpu := "-"
	if r.ClientCPUPerAcquireUs >= 0 {
		cpu = fmt.Sprintf("%.0f", r.ClientCPUPerAcquireUs)
	}
	name := r.Lock
	if r.Workload == "seed" {
		name = "seed"
		session = r.Lock
	}
	if r.Skipped != "" {
		fmt.Fprintf(w, "%-7s %4d %-7s skipped: %s\n", name, r.Contenders, session, r.Skipped)
		return
	}
	fmt.Fprintf(w, rowFormat, name, strconv.Itoa(r.Contenders), session, acquired,
		fmt.Sprintf("%.0f", r.AcquiresPerS), f2(r.P50ms), f2(r.P99ms), f2(r.RequestsPerAcquire),
		f2(r.NotificationsPerRelease), srv, cpu, opsString(r.Ops))
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

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
