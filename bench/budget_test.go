package main

import "testing"

func TestBudget(t *testing.T) {
	check := func(t *testing.T, rows []Row) {
		t.Helper()
		if len(rows) != 1 {
			t.Fatalf("%d rows, want 1: %+v", len(rows), rows)
		}
		r := rows[0]
		if !r.Partial || r.Error != "" || r.Acquires == 0 || r.Acquires >= r.Planned || r.Releases != r.Acquires {
			t.Fatalf("row %s: partial %v, error %q, acquired %d of %d, released %d", r.Lock, r.Partial, r.Error,
				r.Acquires, r.Planned, r.Releases)
		}
	}
	// runJSON (with its -budget overridden) fails the test if a znode is
	// left behind.
	t.Run("a row that runs out of time is partial, not failed: every lock taken is released", func(t *testing.T) {
		rows, _ := runJSON(t, "-locks", "04", "-contenders", "4", "-rounds", "1000000", "-budget", "500ms")
		check(t, rows)
	})
	t.Run("Curator's row too: a waiting acquire gives up at the deadline", func(t *testing.T) {
		if reason := curatorMissing(defaultCuratorClasspath); reason != "" {
			t.Skip("curator row: " + reason)
		}
		rows, _ := runJSON(t, "-locks", "curator", "-contenders", "4", "-rounds", "1000000", "-budget", "1s")
		check(t, rows)
	})
}
