package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// TestArenaCommand runs the host's arena commands on a class kept in a
// class directory (on ZK_SERVERS-style servers: serve need not run):
// a rehearsal learner plays, show prints what the projector shows, pause
// and resume say so, out names a learner who has no node.
func TestArenaCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx)
	t.Cleanup(srv.Close)
	if errors.Is(err, zkserver.ErrNoZooKeeper) {
		t.Skip("no ZooKeeper to start or use")
	}
	if err != nil {
		t.Fatal(err)
	}
	st := classState{Name: "arena", Root: "/arena-command", Code: classroom.NewCode(), AdminSecret: classroom.NewAdminSecret(),
		External: true, Servers: srv.Servers, JoinServers: srv.Servers}
	h, err := classroom.OpenHost(ctx, st.Servers, st.Root, st.AdminSecret)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Create(ctx, st.Name, st.Code, st.AdminSecret); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	arenaDir := filepath.Join(st.Root, "arena")

	played := command(t, "arena", "-dir", dir, "play", "-name", "sim-1", "-rounds", "3", "-dwell", "1ms")
	if strings.Count(played, "sim-1: wrote ") != 3 {
		t.Fatalf("arena play:\n%s", played)
	}
	shown := command(t, "arena", "-dir", dir, "show")
	want := "arena " + arenaDir + " · running · count 3 (last: sim-1)\nqueue (0): nobody\ncaught (0)\n"
	if shown != want {
		t.Fatalf("arena show:\n%s\nwant:\n%s", shown, want)
	}
	t.Logf("arena show:\n%s", shown)
	frames := command(t, "watch", "-dir", dir, "-frames", "2", "-interval", "1s", "-width", "120")
	if want := "arena: running · count 3 · 0.0 rounds/s · holds: nobody"; !strings.Contains(frames, want) {
		t.Fatalf("the host's screen does not show the arena (want %q):\n%s", want, frames)
	}
	command(t, "arena", "-dir", dir, "pause")
	if shown := command(t, "arena", "-dir", dir, "show"); !strings.Contains(shown, " · paused · ") {
		t.Fatalf("arena show after pause:\n%s", shown)
	}
	command(t, "arena", "-dir", dir, "resume")
	if out := command(t, "arena", "-dir", dir, "out", "ada"); out != "ada has no node in the class lock\n" {
		t.Fatalf("arena out ada: %q", out)
	}
}
