package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestTargets(t *testing.T) {
	row := func(lock, workload string, n, rounds int, shared bool, acqPerS, reqPerAcq, ntfPerRel, srvPerAcq float64) Row {
		return Row{Lock: lock, Workload: workload, Contenders: n, Rounds: rounds, SharedSession: shared,
			AcquiresPerS: acqPerS, RequestsPerAcquire: reqPerAcq, NotificationsPerRelease: ntfPerRel,
			ServerPacketsPerAcquire: srvPerAcq, Acquires: n * rounds, Planned: n * rounds, Releases: n * rounds}
	}
	full := func() []Row {
		return []Row{
			row("floor", "floor", 1, 500, false, 4000, 2, 0, 2),
			row("04", "contention", 1, 500, false, 1600, 4, 1, 4),
			row("04", "contention", 10, 50, false, 2000, 5.994, 1.996, 5.994),
			row("gozk", "contention", 10, 50, false, 2500, 4.994, 0.996, 4.994),
			row("curator", "contention", 10, 50, false, 900, 4.994, 0.996, 4.994),
			row("04", "seed", 200, 1, true, 1500, 6, 1, 6.1),
			row("gozk", "seed", 200, 1, true, 1600, 5, 1, 5),
			row("curator", "seed", 200, 1, true, 20, 113, 0.99, 113),
		}
	}
	statuses := func(ts []Target) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.Status)
		}
		return strings.Join(s, ",")
	}

	t.Run("each target is judged on the rows of its workload and carried by the 04 row it was measured on", func(t *testing.T) {
		rows := full()
		rows[2].SampleAcquiresPerS = []float64{1600, 2000, 2400}
		rows[3].SampleAcquiresPerS = []float64{2000, 2500, 2400}
		ts := targets(rows)
		if want := "2000 vs 2500 acq/s = 0.80× (by pass 0.80–1.00×)"; ts[2].Measured != want {
			t.Fatalf("measured %q, want %q", ts[2].Measured, want)
		}
		// requests 5.99 > 5, notifications 2.00, 0.80× zk.Lock, 0.50× floor, 75× Curator, 6.1 packets > 5.5
		if got, want := statuses(ts), "not met,not met,not met,not met,met,not met"; got != want {
			t.Fatalf("statuses %s, want %s", got, want)
		}
		if ts[2].Value != 0.8 || ts[3].Value != 0.5 || ts[4].Value != 75 || ts[5].Value != 6.1 {
			t.Fatalf("values %v %v %v %v, want 0.8 0.5 75 6.1", ts[2].Value, ts[3].Value, ts[4].Value, ts[5].Value)
		}
		if len(rows[2].Targets) != 4 || len(rows[5].Targets) != 2 || len(rows[1].Targets) != 0 || len(rows[7].Targets) != 0 {
			t.Fatalf("targets carried by 04 at 10: %d, 04 seed: %d, 04 at 1: %d, curator seed: %d; want 4, 2, 0, 0",
				len(rows[2].Targets), len(rows[5].Targets), len(rows[1].Targets), len(rows[7].Targets))
		}
	})

	t.Run("a lock that sends 5 requests, wakes one waiter and keeps up with zk.Lock meets them", func(t *testing.T) {
		rows := full()
		rows[2] = row("04", "contention", 10, 50, false, 3700, 4.994, 0.996, 4.994)
		rows[5] = row("04", "seed", 200, 1, true, 1500, 5, 1, 5.05)
		if got, want := statuses(targets(rows)), "met,met,met,met,met,met"; got != want {
			t.Fatalf("statuses %s, want %s", got, want)
		}
	})

	t.Run("a target whose rows were not measured says what to run, and the block says so", func(t *testing.T) {
		rows := full()
		rows[2].Rounds = 32 // -rounds 32: not the 10 × 50 workload
		rows[7].Skipped, rows[7].Acquires = "no javac in PATH", 0
		ts := targets(rows)
		if got, want := statuses(ts), "not measured,not measured,not measured,not measured,not measured,not met"; got != want {
			t.Fatalf("statuses %s, want %s", got, want)
		}
		if !strings.Contains(ts[0].Measured, "-rounds 0 or 50") || !strings.Contains(ts[4].Measured, "curator") {
			t.Fatalf("measured %q and %q do not say what to run", ts[0].Measured, ts[4].Measured)
		}
		var out bytes.Buffer
		printTargets(&out, ts)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2+len(ts) || !strings.HasSuffix(lines[2], "  not measured") || !strings.HasSuffix(lines[7], "  NOT met") {
			t.Fatalf("targets block:\n%s", &out)
		}
	})
}
