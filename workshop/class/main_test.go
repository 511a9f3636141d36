package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// lines is an io.Writer that hands each complete line to a channel.
type lines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	all  strings.Builder
	each chan string
}

func newLines() *lines { return &lines{each: make(chan string, 256)} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.Write(p)
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line)
			return len(p), nil
		}
		select {
		case l.each <- strings.TrimRight(line, "\n"):
		default:
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// joinLine waits for the line serve prints for the learners.
func (l *lines) joinLine(t *testing.T, served <-chan error) string {
	t.Helper()
	deadline := time.After(3 * time.Minute)
	for {
		select {
		case line := <-l.each:
			if s := strings.TrimSpace(line); strings.HasPrefix(s, "zk://") {
				return s
			}
		case err := <-served:
			t.Fatalf("serve ended before printing a join line: %v\n%s", err, l.String())
		case <-deadline:
			t.Fatalf("no join line after 3 minutes:\n%s", l.String())
		}
	}
}

// startServe runs serve in this process until the test stops it.
func startServe(t *testing.T, args ...string) (line string, out *lines, served <-chan error) {
	t.Helper()
	out = newLines()
	done := make(chan error, 1)  // for the test: serve's error
	ended := make(chan struct{}) // for the clean-up
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), out, out)
		close(ended)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ended:
		case <-time.After(time.Minute):
			t.Error("serve still runs a minute after it was cancelled")
		}
	})
	return out.joinLine(t, done), out, done
}

func command(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, &out, &out); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// TestServeKeepsTheClassAcrossARestart runs the host's commands as a
// host would: serve, a learner joins and passes 04, watch shows it, stop
// (which says it kept ZooKeeper's data); serve again from the same class
// directory, with the snapshot.json copy removed: the same join line, and
// the learner's laptop finds its progress and its name, read from
// ZooKeeper's kept data.
func TestServeKeepsTheClassAcrossARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server ensemble twice (about 30 s): skipped in -short")
	}
	if os.Getenv("ZK_SERVERS") != "" {
		t.Skip("serve uses ZK_SERVERS as it is; this test needs ensembles of its own to stop and start")
	}
	if _, err := zkserver.Which(context.Background()); errors.Is(err, zkserver.ErrNoZooKeeper) {
		t.Skip("no Docker engine and no local ZooKeeper install to start an ensemble with")
	}
	dir := filepath.Join(t.TempDir(), "class")
	// The room's address is a second loopback address: a test reaches no
	// other network.
	line, out, served := startServe(t, "-dir", dir, "-addr", "127.0.0.2", "-port", "0")
	if !strings.Contains(line, "127.0.0.2:") {
		t.Fatalf("join line %q does not name the room's address", line)
	}
	if strings.Contains(out.String(), mustState(t, dir).AdminSecret) {
		t.Fatal("serve printed the admin secret")
	}
	laptop := classroom.FileSecrets(filepath.Join(t.TempDir(), "secrets.json"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ada, err := classroom.Join(ctx, line, "ada", laptop)
	if err != nil {
		t.Fatal(err)
	}
	passed := classroom.Progress{Chapter: "04", State: classroom.Passing, ChapterStart: time.Now().UTC().Truncate(time.Second)}
	if err := ada.Report(ctx, passed); err != nil {
		t.Fatal(err)
	}
	frame := command(t, "watch", "-dir", dir, "-frames", "1", "-interval", "500ms")
	if !strings.Contains(frame, "04: 1 learner, 1 passing") || !strings.Contains(frame, "● ada") {
		t.Fatalf("the host's frame does not show ada passing 04:\n%s", frame)
	}
	stopped := command(t, "stop", "-dir", dir)
	data, err := filepath.Abs(filepath.Join(dir, "zookeeper"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stopped, "stopped the 3 ZooKeeper servers") || !strings.Contains(stopped, "removed nothing: ZooKeeper's data, with everyone's progress, is kept in "+data) {
		t.Fatalf("stop says:\n%s", stopped)
	}
	t.Logf("stop says:\n%s", stopped)
	if err := <-served; err != nil {
		t.Fatalf("serve ended with %v", err)
	}
	ada.Close()
	if err := os.Remove(filepath.Join(dir, snapshotFile)); err != nil {
		t.Fatal(err) // what comes back must come from ZooKeeper
	}

	again, out2, _ := startServe(t, "-dir", dir)
	if strings.Contains(out2.String(), "put back") {
		t.Fatalf("serve put learners back from a snapshot, with none kept:\n%s", out2.String())
	}
	if again != line {
		t.Fatalf("served again, the join line is %q, was %q", again, line)
	}
	// A context of its own for the second class: the first one's minute
	// went partly to a serve that, on Docker, copies three containers.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	back, err := classroom.Join(ctx, again, "ada", laptop)
	if err != nil {
		t.Fatalf("ada's laptop joins the restarted class: %v", err)
	}
	defer back.Close()
	if got, err := back.Progress(ctx); err != nil || got != passed {
		t.Fatalf("ada's progress after the restart: %+v, %v; want %+v", got, err, passed)
	}
	other := classroom.FileSecrets(filepath.Join(t.TempDir(), "secrets.json"))
	if _, err := classroom.Join(ctx, again, "ada", other); !errors.Is(err, classroom.ErrNameTaken) {
		t.Fatalf("another laptop as ada after the restart: %v, want ErrNameTaken", err)
	}
	forgot := command(t, "stop", "-dir", dir, "-forget")
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) || !strings.Contains(forgot, "removed "+dir) || !strings.Contains(forgot, "ZooKeeper's data") {
		t.Fatalf("stop -forget left %s (%v):\n%s", dir, err, forgot)
	}
}

func mustState(t *testing.T, dir string) classState {
	t.Helper()
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"serve", "-dir", dir, "-addr", "0.0.0.0"},
		{"serve", "-dir", dir, "-addr", "my-laptop.local"},
		{"watch", "-dir", dir},
		{"watch", "-dir", dir, "-lang", "fr"},
		{"stop", "-dir", filepath.Join(dir, "none")},
		{"simulate", "-dir", dir, "-learners", "0"},
		{"nonsense"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, &out); err == nil {
			t.Errorf("%v: no error\n%s", args, out.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v left %d files in %s", args, len(entries), dir)
		}
	}
}

// TestServeOnZKServersStartsNothingAndLeavesTheRootAlone: a host who runs
// their own ZooKeeper gets the class tree on it, and nothing else changes
// there; stop -forget takes the tree away again.
func TestServeOnZKServersStartsNothingAndLeavesTheRootAlone(t *testing.T) {
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
	t.Setenv("ZK_SERVERS", srv.ConnectString())
	conn, _, err := zk.Connect(srv.Servers, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rootACL := func() []zk.ACL {
		acl, _, err := conn.GetACL("/")
		if err != nil {
			t.Fatal(err)
		}
		return acl
	}
	before := rootACL()
	root := "/class-" + strings.ReplaceAll(t.Name(), "/", "-")
	dir := filepath.Join(t.TempDir(), "class")
	line, out, served := startServe(t, "-dir", dir, "-root", root)
	if !strings.Contains(out.String(), "nothing is started") || !strings.HasPrefix(line, "zk://"+srv.ConnectString()+root+"?code=") {
		t.Fatalf("join line %q, serve said:\n%s", line, out.String())
	}
	if after := rootACL(); len(after) != len(before) || after[0] != before[0] {
		t.Fatalf("the root's ACL changed from %v to %v", before, after)
	}
	stopped := command(t, "stop", "-dir", dir, "-forget")
	if err := <-served; err != nil {
		t.Fatalf("serve ended with %v", err)
	}
	if ok, _, err := conn.Exists(root); ok || err != nil {
		t.Fatalf("after stop -forget, %s exists: %v, %v\n%s", root, ok, err, stopped)
	}
	if !strings.Contains(stopped, "removed the class tree "+root) {
		t.Fatalf("stop -forget says:\n%s", stopped)
	}
}
