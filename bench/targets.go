package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Chapter 04's targets (the queue-core issue, point 4): reported after the
// table and on the rows they are measured on, never asserted. The numbers
// depend on the machine; compare rows of the same run.
//
//   - ≤ 5.0 requests per contended acquire and exactly 1.0 watch
//     notification per release, at 10 sessions × 50 rounds;
//   - ≥ 1.0× zk.Lock's acquires/s and ≥ 0.9× the floor's, same run, same rows;
//   - with 200 goroutines on one session: ≥ 15× Curator's acquires/s
//     (Curator: 200 threads on one CuratorFramework) and ≤ 5.5 packets per
//     acquire (the server's count).

// Target is one of those targets as this run measured it.
type Target struct {
	Target   string  `json:"target"`   // what is asked, in words
	Measured string  `json:"measured"` // what was measured, in words
	Value    float64 `json:"value"`    // the number compared with Bound (a count or a ratio)
	Bound    float64 `json:"bound"`
	Status   string  `json:"status"` // met, not met, not measured
	Met      bool    `json:"met"`
	row      int     // index of the row it is measured on; -1 if none
}

const (
	targetMet         = "met"
	targetNotMet      = "not met"
	targetNotMeasured = "not measured"
)

// targets measures every target on rows and attaches each to the 04 row
// it was measured on.
func targets(rows []Row) []Target {
	find := func(lock, workload string, n, rounds int) int {
		for i, r := range rows {
			if r.Lock == lock && r.Workload == workload && r.Contenders == n && (rounds == 0 || r.Rounds == rounds) &&
				(workload == "seed" || !r.SharedSession) && r.Error == "" && r.Skipped == "" && r.Acquires > 0 {
				return i
			}
		}
		return -1
	}
	contended := find("04", "contention", targetContenders, targetRounds)
	gozk := find("gozk", "contention", targetContenders, targetRounds)
	floorRow := find("floor", "floor", 1, 0)
	seed := find("04", "seed", targetSeed, 1)
	curator := find("curator", "seed", targetSeed, 1)

	at := fmt.Sprintf("%d sessions × %d rounds", targetContenders, targetRounds)
	needsContention := func(locks string) string {
		return fmt.Sprintf("needs -locks with %s; -contenders with %d; -rounds 0 or %d; no -shared", locks, targetContenders, targetRounds)
	}
	needsSeed := func(locks string) string {
		return fmt.Sprintf("needs -locks with %s; -seed-goroutines %d", locks, targetSeed)
	}

	var out []Target
	// judge adds one target, measured on the 04 row ours. It is not
	// measured, and says what to run, when a row it needs is missing.
	judge := func(what string, bound float64, ours int, needed []int, needs string, measure func() (v float64, met bool, text string)) {
		t := Target{Target: what, Bound: bound, Status: targetNotMeasured, Measured: needs, row: -1}
		if !slices.Contains(needed, -1) {
			v, met, text := measure()
			t.row, t.Value, t.Met, t.Measured, t.Status = ours, roundTo(v, 3), met, text, targetNotMet
			if met {
				t.Status = targetMet
			}
			if slices.ContainsFunc(needed, func(i int) bool { return rows[i].Partial }) {
				t.Measured += " (partial row)"
			}
		}
		out = append(out, t)
	}
	// perAcquire judges a count on 04's 10 × 50 row.
	perAcquire := func(what string, bound float64, count func(Row) float64, met func(float64) bool) {
		judge(what, bound, contended, []int{contended}, needsContention("04"), func() (float64, bool, string) {
			v := count(rows[contended])
			return v, met(v), fmt.Sprintf("%.2f at %s", v, at)
		})
	}
	// ratio judges 04's throughput against another row of the same run.
	ratio := func(what string, bound float64, ours, other int, needs string) {
		judge(what, bound, ours, []int{ours, other}, needs, func() (float64, bool, string) {
			a, b := rows[ours], rows[other]
			v := a.AcquiresPerS / b.AcquiresPerS
			return v, v >= bound, fmt.Sprintf("%s vs %s acq/s = %.2f×%s", rate(a.AcquiresPerS), rate(b.AcquiresPerS), v, passRatios(a, b))
		})
	}

	perAcquire("04: requests per contended acquire ≤ 5.0", 5,
		func(r Row) float64 { return r.RequestsPerAcquire }, func(v float64) bool { return v <= 5 })
	// One notification per release, never more. A release with nobody
	// waiting (the last of a sample, and any while the queue is empty)
	// wakes nobody, so a perfect lock measures a hair under 1: up to 1 %
	// under is allowed, nothing over.
	perAcquire("04: watch notifications per release = 1.0", 1,
		func(r Row) float64 { return r.NotificationsPerRelease }, func(v float64) bool { return v >= 0.99 && v < 1.005 })
	ratio(fmt.Sprintf("04: acquires/s ≥ 1.0× zk.Lock's (%s)", at), 1, contended, gozk, needsContention("04 and gozk"))
	ratio(fmt.Sprintf("04: acquires/s ≥ 0.9× the floor's (%s)", at), 0.9, contended, floorRow, needsContention("04 and floor"))
	ratio(fmt.Sprintf("04: %d goroutines on one session ≥ 15× Curator's acquires/s (%d threads, one CuratorFramework)", targetSeed, targetSeed),
		15, seed, curator, needsSeed("04, curator and seed"))
	judge(fmt.Sprintf("04: %d goroutines on one session ≤ 5.5 packets per acquire", targetSeed), 5.5, seed, []int{seed},
		needsSeed("04 and seed"), func() (float64, bool, string) {
			v, source := rows[seed].ServerPacketsPerAcquire, "the server's count"
			if v < 0 { // mntr failed: the wire's count, which leaves out pings
				v, source = rows[seed].RequestsPerAcquire, "the wire's count (no mntr)"
			}
			return v, v <= 5.5, fmt.Sprintf("%.2f (%s)", v, source)
		})

	for _, t := range out {
		if t.row >= 0 {
			rows[t.row].Targets = append(rows[t.row].Targets, t)
		}
	}
	return out
}

// rate prints acquisitions per second with the digits that matter:
// "1025", "21.8".
func rate(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// passRatios is " (by pass 0.91–1.10×)": the ratio of a's and b's
// throughput in each pass, which were taken side by side, so a burst of
// load that spoiled one pass shows. Empty with fewer than two passes.
func passRatios(a, b Row) string {
	n := min(len(a.SampleAcquiresPerS), len(b.SampleAcquiresPerS))
	if n < 2 || len(a.SampleAcquiresPerS) != len(b.SampleAcquiresPerS) {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		r := a.SampleAcquiresPerS[i] / b.SampleAcquiresPerS[i]
		lo, hi = min(lo, r), max(hi, r)
	}
	return fmt.Sprintf(" (by pass %.2f–%.2f×)", lo, hi)
}

// printTargets writes the targets block: target, measured, verdict.
func printTargets(w io.Writer, ts []Target) {
	if len(ts) == 0 {
		return
	}
	tw, mw := len("target"), len("measured")
	for _, t := range ts {
		tw, mw = max(tw, utf8.RuneCountInString(t.Target)), max(mw, utf8.RuneCountInString(t.Measured))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-utf8.RuneCountInString(s)) }
	fmt.Fprintln(w, "targets of chapter 04 (reported, not asserted):")
	fmt.Fprintf(w, "%s  %s  %s\n", pad("target", tw), pad("measured", mw), "verdict")
	for _, t := range ts {
		verdict := t.Status
		if t.Status == targetNotMet {
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "%s  %s  %s\n", pad(t.Target, tw), pad(t.Measured, mw), verdict)
	}
}
