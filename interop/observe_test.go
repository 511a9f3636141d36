package interop

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/visualizer/observe"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

// frameLog is an io.Writer that tells the test each time the observe view
// wrote a frame, so the test can act between two frames.
type frameLog struct {
	mu    sync.Mutex
	all   []string
	wrote chan struct{}
}

func (f *frameLog) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.all = append(f.all, string(p))
	f.mu.Unlock()
	select {
	case f.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (f *frameLog) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.all[len(f.all)-1]
}

// The visualizer's observe mode (go run ./visualizer -observe DIR: the
// observer of visualizer/observe and the view of visualizer/tui, run here
// in-process, then as the command itself) on a directory where only
// Curator's InterProcessMutex queues: it shows Curator's queue in sequence
// order, its holder, and the hand-off when the holder releases.
func TestObserveShowsCuratorsQueue(t *testing.T) {
	cur := startCurator(t)
	dir := zktest.Root(t) + "/lock"
	ctx := zktest.Context(t)
	admin := zktest.Connect(t)
	for _, id := range []string{"j0", "j1", "j2"} {
		cur.open(t, id, "mutex", dir, 0)
	}
	cur.send(t, "acquire j0")
	cur.expect(t, "j0", "acquired")
	cur.send(t, "acquire j1")
	cur.queued(t, "j1", admin, dir, 2)
	cur.send(t, "acquire j2")
	names := waitChildren(t, admin, dir, 3, cur.inbox("j2"))
	t.Logf("Curator's nodes, as ZooKeeper lists them: %s", strings.Join(names, " "))

	octx, cancel := context.WithCancel(context.Background())
	obs := observe.Start(octx, zktest.Connect(t), dir)
	t.Cleanup(func() { cancel(); <-obs.Done() })
	out := &frameLog{wrote: make(chan struct{}, 8)}
	done := make(chan error, 1)
	go func() {
		done <- tui.RunObserve(ctx, obs, tui.ObserveOptions{Dir: dir, Frames: 8, Interval: 250 * time.Millisecond,
			Width: 100, Height: 24, Out: out})
	}()
	zktest.Await(t, out.wrote, "the first frame")
	first := out.last()
	cur.send(t, "release j0")
	cur.expect(t, "j0", "released")
	cur.expect(t, "j1", "acquired")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	final := out.last()
	t.Logf("first frame:\n%s\nlast frame:\n%s", first, final)

	// Curator's nodes are _c_<uuid>-lock-<seq>: the queue shows them
	// without the uuid, by sequence, each owned by what Curator wrote in it
	// (its client's address) or, failing that, its session.
	row := regexp.MustCompile(`(?m)^(▶ | {2})lock-(\d{10}) (\S+)`)
	t.Run("the first frame shows Curator's three nodes in sequence order, the lowest holding", func(t *testing.T) {
		rows := row.FindAllStringSubmatch(first, -1)
		if len(rows) != 3 {
			t.Fatalf("want 3 queue rows, got %d:\n%s", len(rows), first)
		}
		for i, r := range rows {
			if want := []string{"▶ ", "  ", "  "}[i]; r[1] != want {
				t.Errorf("row %d starts %q, want %q", i, r[1], want)
			}
			if i > 0 && r[2] <= rows[i-1][2] {
				t.Errorf("row %d: sequence %s after %s", i, r[2], rows[i-1][2])
			}
			if r[3] == "?" {
				t.Errorf("row %d names no owner", i)
			}
		}
		if !strings.Contains(first, "3 queued") || !strings.Contains(first, "HOLDS") || strings.Contains(first, "_c_") {
			t.Errorf("want 3 queued, a holder and no protected prefix:\n%s", first)
		}
	})
	t.Run("the last frame shows the hand-off to Curator's next client", func(t *testing.T) {
		rows := row.FindAllStringSubmatch(first, -1)
		if len(rows) != 3 {
			t.Skip("no first frame to compare with")
		}
		handOff := "▶ hand-off lock-" + rows[0][2] + " → lock-" + rows[1][2]
		for _, want := range []string{"2 queued", handOff, "▶ lock-" + rows[1][2], "1 in all"} {
			if !strings.Contains(final, want) {
				t.Errorf("last frame lacks %q", want)
			}
		}
	})
	t.Run("go run ./visualizer -observe shows the same queue", func(t *testing.T) {
		rows := row.FindAllStringSubmatch(first, -1)
		if len(rows) != 3 {
			t.Skip("no first frame to compare with")
		}
		bin := t.TempDir() + "/visualizer"
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/lockstep-zk/lockstep/visualizer")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./visualizer: %v\n%s", err, out)
		}
		run := exec.CommandContext(ctx, bin, "-observe", dir, "-servers", zktest.Server(t).ConnectString(),
			"-frames", "1", "-interval", "300ms", "-width", "100", "-height", "24")
		out, err := run.CombinedOutput()
		if err != nil {
			t.Fatalf("visualizer -observe: %v\n%s", err, out)
		}
		t.Logf("go run ./visualizer -observe %s -frames 1:\n%s", dir, out)
		for _, want := range []string{"2 queued", "▶ lock-" + rows[1][2], "  lock-" + rows[2][2]} {
			if !strings.Contains(string(out), want) {
				t.Errorf("its frame lacks %q", want)
			}
		}
	})
	cur.send(t, "release j1")
	cur.expect(t, "j1", "released")
	cur.expect(t, "j2", "acquired")
	cur.send(t, "release j2")
	cur.expect(t, "j2", "released")
}
