package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

// These tests run the visualizer end to end — real workers, real locks,
// a real server — in its -frames mode, and read the frames it renders.
// zktest.Main also fails the package if anything is left running.
func TestMain(m *testing.M) { zktest.Main(m) }

// frames runs the visualizer and returns its frames.
func frames(t *testing.T, o tui.Options) []string {
	t.Helper()
	var out bytes.Buffer
	o.Servers = zktest.Server(t).ConnectString()
	o.Base = zktest.Root(t)
	o.Out = &out
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := tui.Run(ctx, o); err != nil {
		t.Fatalf("run: %v", err)
	}
	// Quitting removed everything the chapter created.
	if nodes := zktest.Tree(t, zktest.Connect(t), o.Base); len(nodes) > 0 {
		t.Errorf("left behind:\n  %s", zktest.Describe(nodes))
	}
	parts := regexp.MustCompile(`(?m)^── frame \d+/\d+ ──\n`).Split(out.String(), -1)[1:]
	if len(parts) != o.Frames {
		t.Fatalf("got %d frames, want %d:\n%s", len(parts), o.Frames, out.String())
	}
	for i, f := range parts {
		lines := strings.Split(strings.TrimSuffix(f, "\n"), "\n")
		if len(lines) != o.Height {
			t.Errorf("frame %d has %d lines, want %d", i+1, len(lines), o.Height)
		}
		for _, l := range lines {
			if n := len([]rune(l)); n > o.Width || strings.Contains(l, "\x1b") {
				t.Errorf("frame %d: line wider than %d or coloured: %q", i+1, o.Width, l)
			}
		}
	}
	return parts
}

var holdsRE = regexp.MustCompile(`▶ \S+ (worker-\d+) HOLDS`)

func holders(fs []string) map[string]bool {
	hs := map[string]bool{}
	for _, f := range fs {
		for _, m := range holdsRE.FindAllStringSubmatch(f, -1) {
			hs[m[1]] = true
		}
	}
	return hs
}

var wokenRE = regexp.MustCompile(`woken/release ([0-9.]+)`)

func wokenPerRelease(t *testing.T, frame string) float64 {
	t.Helper()
	m := wokenRE.FindStringSubmatch(frame)
	if m == nil {
		t.Fatalf("no woken/release in frame:\n%s", frame)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

func TestTheRenderedQueueShowsAHandOff(t *testing.T) {
	fs := frames(t, tui.Options{Chapter: "04", Workers: 3, Hold: 50 * time.Millisecond,
		Frames: 6, Interval: 300 * time.Millisecond, Width: 100, Height: 30})
	all := strings.Join(fs, "\n")
	if hs := holders(fs); len(hs) < 2 {
		t.Errorf("the lock never changed hands on screen (holders %v):\n%s", hs, fs[len(fs)-1])
	}
	if !strings.Contains(all, "notified: EventNodeDeleted lock-") || !strings.Contains(all, "← worker-") {
		t.Errorf("no notification or no watch arrow on screen:\n%s", fs[len(fs)-1])
	}
}

func TestHerdVersusHandOffOnScreen(t *testing.T) {
	// Chapter 04 for 3 s, then key 3 switches to chapter 03.
	fs := frames(t, tui.Options{Chapter: "04", Workers: 5, Hold: 100 * time.Millisecond,
		Frames: 14, Interval: 500 * time.Millisecond, Width: 100, Height: 30, Script: "3s:3"})
	var seq, watch string
	for _, f := range fs {
		switch {
		case strings.Contains(f, "lockstep 04-sequential-lock"):
			seq = f
		case strings.Contains(f, "lockstep 03-watch-lock"):
			watch = f
		}
	}
	if seq == "" || watch == "" {
		t.Fatalf("did not see both chapters; last frame:\n%s", fs[len(fs)-1])
	}
	s, w := wokenPerRelease(t, seq), wokenPerRelease(t, watch)
	t.Logf("woken per release: 04 %.1f, 03 %.1f", s, w)
	if s > 1.05 {
		t.Errorf("chapter 04 woke %.2f waiters per release, want at most 1:\n%s", s, seq)
	}
	if w < 1.5 {
		t.Errorf("chapter 03 woke %.2f waiters per release, want the herd (≥ 1.5 with 4 waiters):\n%s", w, watch)
	}
}

func TestKilledHolder(t *testing.T) {
	t.Run("chapter 04: the next in line takes over once the session times out", func(t *testing.T) {
		fs := frames(t, tui.Options{Chapter: "04", Workers: 3, Hold: 300 * time.Millisecond, Session: time.Second,
			Frames: 12, Interval: 400 * time.Millisecond, Width: 100, Height: 60,
			// A second press in case the first fell in a hand-off's
			// millisecond with no holder; if the first hit, nobody holds
			// again before the session times out (≥ 1 s), so it does nothing.
			Script: "1s:k,1.6s:k"})
		all := strings.Join(fs, "\n")
		m := regexp.MustCompile(`(worker-\d) CRASHED`).FindStringSubmatch(all)
		if m == nil || !strings.Contains(all, m[1]+" (crashed)") {
			t.Fatalf("no crashed holder on screen:\n%s", fs[len(fs)-1])
		}
		if !strings.Contains(all, "server deleted") {
			t.Errorf("the server never removed the crashed worker's node:\n%s", fs[len(fs)-1])
		}
		after := strings.SplitN(all, "server deleted", 2)[1]
		if hs := holders([]string{after}); len(hs) == 0 || hs[m[1]] {
			t.Errorf("after the crash the holders were %v", hs)
		}
	})
	t.Run("chapter 02 persistent: the lock stays stuck", func(t *testing.T) {
		// k acts on the holder of the moment; a press that falls between
		// two holds finds nobody (the status line says so), so press again.
		// Once the holder is killed nobody else can hold: the later presses
		// find nobody and do nothing.
		fs := frames(t, tui.Options{Chapter: "02", Persistent: true, Workers: 3, Hold: 300 * time.Millisecond,
			Session: time.Second, Frames: 10, Interval: 400 * time.Millisecond, Width: 100, Height: 60,
			Script: "1s:k,1.4s:k,1.8s:k,2.2s:k"})
		last := fs[len(fs)-1]
		if !strings.Contains(last, "PERSISTENT") || !strings.Contains(last, "(crashed)") || strings.Contains(last, "HOLDS") {
			t.Errorf("want the crashed holder's persistent node still there and nobody holding:\n%s", last)
		}
	})
}

func TestExpiredSessionIsShown(t *testing.T) {
	fs := frames(t, tui.Options{Chapter: "04", Workers: 3, Hold: 200 * time.Millisecond, Session: time.Second,
		Frames: 25, Interval: 400 * time.Millisecond, Width: 100, Height: 60,
		Script: "1s:e,1.6s:e"}) // a second press in case the first found no holder
	all := strings.Join(fs, "\n")
	// The log line may scroll away between two frames; the worker's row
	// says the same.
	for _, want := range []string{`CUT OFF|worker-\d\s+cut off`, `SESSION EXPIRED|worker-\d\s+expired`} {
		if !regexp.MustCompile(want).MatchString(all) {
			seen := map[string]bool{}
			var lines []string
			for _, l := range strings.Split(all, "\n") {
				if regexp.MustCompile(`CUT|EXPIRED|expire|LOST|lock: |» |cut off|expired`).MatchString(l) && !seen[l] {
					seen[l] = true
					lines = append(lines, l)
				}
			}
			t.Errorf("never showed %q; what it showed about the expiry:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

func TestChapter01ShowsOneShotWatches(t *testing.T) {
	fs := frames(t, tui.Options{Chapter: "01", Workers: 3, Hold: 200 * time.Millisecond,
		Frames: 5, Interval: 300 * time.Millisecond, Width: 80, Height: 24})
	all := strings.Join(fs, "\n")
	for _, want := range []string{"watching", "notified: EventNodeDataChanged config", "reads v", "writes "} {
		if !strings.Contains(all, want) {
			t.Errorf("never showed %q:\n%s", want, fs[len(fs)-1])
		}
	}
}

func TestBadOptionsFailBeforeConnecting(t *testing.T) {
	for _, o := range []tui.Options{{Chapter: "09"}, {Workers: -1}, {Width: 10, Frames: 1}, {Script: "k"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := tui.Run(ctx, o)
		cancel()
		if err == nil || !strings.HasPrefix(err.Error(), "tui: ") {
			t.Errorf("%+v: got %v, want a tui: error", o, err)
		}
	}
}
