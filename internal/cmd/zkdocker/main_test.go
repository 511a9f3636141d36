package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// These tests check the helper's side of the protocol internal/zkserver
// reads (helper.go there: the typed messages and their one encoder and
// decoder). No Docker engine runs here: serve is driven with
// a stand-in for the containers (it records what it was asked), and the
// real command is run against an engine address nothing listens on.

func TestMain(m *testing.M) {
	if os.Getenv("ZKDOCKER_RUN_MAIN") == "1" {
		main() // the test binary as the helper itself
		return
	}
	os.Exit(m.Run())
}

// standIn records what serve asks of the containers.
type standIn struct {
	mu     sync.Mutex
	asked  []string
	closed chan struct{}
}

func newStandIn() *standIn { return &standIn{closed: make(chan struct{})} }

func (s *standIn) Addrs() []string { return []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"} }
func (s *standIn) Stop(_ context.Context, i int) error {
	s.record(fmt.Sprint("stop ", i))
	if i == 2 {
		return errors.New("container zk3:\nalready gone")
	}
	return nil
}
func (s *standIn) Start(_ context.Context, i int) error {
	s.record(fmt.Sprint("start ", i))
	return nil
}
func (s *standIn) Close()          { close(s.closed) }
func (s *standIn) record(x string) { s.mu.Lock(); s.asked = append(s.asked, x); s.mu.Unlock() }

// running starts serve on pipes and returns its stdin, a reader of its
// stdout lines and its exit status.
func running(t *testing.T, ctx context.Context, start func(context.Context) (cluster, error)) (io.WriteCloser, func() string, <-chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	status := make(chan int, 1)
	go func() { status <- serve(ctx, inR, outW, start); outW.Close() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				return "(end of output)"
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line from serve within 10 s")
			return ""
		}
	}
	t.Cleanup(func() { inW.Close() })
	return inW, next, status
}

func exitStatus(t *testing.T, status <-chan int) int {
	t.Helper()
	select {
	case s := <-status:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return within 10 s")
		return -1
	}
}

// reply decodes one line serve wrote, failing the test if it is not a
// message of the protocol.
func reply(t *testing.T, line string) zkserver.HelperReply {
	t.Helper()
	m, err := zkserver.ReadHelperMessage[zkserver.HelperReply]([]byte(line))
	if err != nil {
		t.Fatalf("serve wrote %q: %v", line, err)
	}
	return m
}

func TestServe(t *testing.T) {
	ctx := context.Background()

	t.Run("ready names every server, requests are answered, end-of-file removes them", func(t *testing.T) {
		s := newStandIn()
		in, next, status := running(t, ctx, func(context.Context) (cluster, error) { return s, nil })
		if got := reply(t, next()); got.Kind != zkserver.HelperReady || strings.Join(got.Servers, ",") != "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3" {
			t.Fatalf("first message %+v", got)
		}
		request := func(op zkserver.HelperOp, i int) string {
			var b strings.Builder
			zkserver.WriteHelperMessage(&b, zkserver.HelperRequest{Op: op, Member: i})
			return strings.TrimSuffix(b.String(), "\n")
		}
		for _, c := range []struct{ line, kind, error string }{
			{request(zkserver.HelperStop, 0), "ok", ""},
			{request(zkserver.HelperStart, 0), "ok", ""},
			{request(zkserver.HelperStop, 2), "error", "container zk3: already gone"},
			{request(zkserver.HelperStop, 3), "error", "stop 3: want a member 0 ≤ I < 3"},
			{`{"protocol":1,"msg":{"op":"pause","member":1}}`, "error", `op "pause", want "stop", "start" or "kept"`},
			{`{"protocol":1,"msg":{"op":"kept","member":0,"kept":{"addr":"127.0.0.2","members":[]}}}`, "error", "the servers are started already"},
			{`{"protocol":2,"msg":{"op":"stop","member":1}}`, "error", "protocol version 2, want 1"},
			{`stop 1`, "error", "not a message of the helper's protocol"},
		} {
			fmt.Fprintln(in, c.line)
			got := reply(t, next())
			if string(got.Kind) != c.kind || !strings.Contains(got.Error, c.error) {
				t.Errorf("%s → %+v, want %s %q", c.line, got, c.kind, c.error)
			}
		}
		in.Close()
		if st := exitStatus(t, status); st != 0 {
			t.Fatalf("exit status %d", st)
		}
		select {
		case <-s.closed:
		default:
			t.Fatal("serve returned without removing the containers")
		}
		if got := strings.Join(s.asked, ", "); got != "stop 0, start 0, stop 2" {
			t.Fatalf("the containers were asked %s", got)
		}
	})
	t.Run("a failed start is one error message and exit status 1", func(t *testing.T) {
		_, next, status := running(t, ctx, func(context.Context) (cluster, error) {
			return nil, errors.New("start zookeeper:3.9.3: pull:\n  manifest unknown")
		})
		if got := reply(t, next()); got.Kind != zkserver.HelperError || got.Error != "start zookeeper:3.9.3: pull: manifest unknown" {
			t.Fatalf("message %+v", got)
		}
		if got := next(); got != "(end of output)" {
			t.Fatalf("a second line %q", got)
		}
		if st := exitStatus(t, status); st != 1 {
			t.Fatalf("exit status %d", st)
		}
	})
	t.Run("end-of-file while starting cancels the start and removes what it made", func(t *testing.T) {
		s := newStandIn()
		in, next, status := running(t, ctx, func(ctx context.Context) (cluster, error) {
			<-ctx.Done()  // a pull that only ends when cancelled…
			return s, nil // …and finishes just then
		})
		in.Close()
		if st := exitStatus(t, status); st != 0 {
			t.Fatalf("exit status %d", st)
		}
		if got := next(); got != "(end of output)" {
			t.Fatalf("said %q after it was told to stop", got)
		}
		select {
		case <-s.closed:
		default:
			t.Fatal("what was started was not removed")
		}
	})
	t.Run("a signal ends it and removes the containers", func(t *testing.T) {
		s := newStandIn()
		sctx, cancel := context.WithCancel(ctx)
		_, next, status := running(t, sctx, func(context.Context) (cluster, error) { return s, nil })
		next() // ready
		cancel()
		if st := exitStatus(t, status); st != 0 {
			t.Fatalf("exit status %d", st)
		}
		select {
		case <-s.closed:
		default:
			t.Fatal("the containers were not removed")
		}
	})
}

// TestWithoutAnEngineTheHelperSaysSoInOneLine runs the real command with
// DOCKER_HOST pointing at a socket nothing listens on.
func TestWithoutAnEngineTheHelperSaysSoInOneLine(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	cmd := exec.Command(os.Args[0], "-n", "1")
	cmd.Env = append(os.Environ(), "ZKDOCKER_RUN_MAIN=1", "DOCKER_HOST=unix://"+sock)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the helper did not give up within a minute")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("stdout = %q, want one message", out)
	}
	if got := reply(t, lines[0]); got.Kind != zkserver.HelperError || !strings.HasPrefix(got.Error, "docker engine does not answer: ") {
		t.Fatalf("stdout = %q, want an error: docker engine does not answer: …", out)
	}
	t.Logf("stdout: %s", lines[0])
}

func TestZooServersNamesEveryMember(t *testing.T) {
	got := zooServers(3)
	want := "server.1=zk1:2888:3888;2181 server.2=zk2:2888:3888;2181 server.3=zk3:2888:3888;2181"
	if got != want {
		t.Fatalf("got %q", got)
	}
}

func TestAnEvenEnsembleIsRefusedBeforeDockerIsAsked(t *testing.T) {
	_, err := startContainers(context.Background(), 2)
	if err == nil || !strings.Contains(err.Error(), "want 1, or an odd number ≥ 3") {
		t.Fatalf("err = %v", err)
	}
}
