package zkserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests drive the Docker path's parent side with stand-in helpers:
// small shell scripts that speak the helper's protocol (helper.go). No
// Docker engine runs here, and none is pretended: a stand-in prints an
// address nothing serves on, which only the protocol looks at. The real
// helper's side of the protocol is tested in internal/cmd/zkdocker.

// say is the line a stand-in prints for m, made by the protocol's own
// encoder, quoted for sh.
func say(m HelperReply) string {
	var b strings.Builder
	WriteHelperMessage(&b, m)
	return "'" + strings.TrimSuffix(b.String(), "\n") + "'"
}

func ready(servers ...string) string { return say(HelperReply{Kind: HelperReady, Servers: servers}) }

// script is a helperCommand running sh -c body with the helper's arguments
// as $@.
func script(body string) helperCommand {
	return func(_ context.Context, args ...string) (*exec.Cmd, error) {
		return exec.Command("/bin/sh", append([]string{"-c", body, "stand-in"}, args...)...), nil
	}
}

// quiet keeps the stand-ins' stderr and Start's progress out of the test
// log, and returns what was said.
func quiet(t *testing.T) *syncWriter {
	t.Helper()
	w := &syncWriter{w: &bytes.Buffer{}}
	old := Progress
	Progress = w
	t.Cleanup(func() { Progress = old })
	return w
}

// syncWriter lets the helper's stderr and the test write Progress at once.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// shortGrace makes a helper that ignores end-of-file cost 200 ms, not 30 s.
func shortGrace(t *testing.T) {
	old := helperStopGrace
	helperStopGrace = 200 * time.Millisecond
	t.Cleanup(func() { helperStopGrace = old })
}

func TestDockerHelperProtocol(t *testing.T) {
	said := quiet(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("ready gives a server, and Close ends the helper through its stdin", func(t *testing.T) {
		mark := filepath.Join(t.TempDir(), "closed")
		srv, err := startDocker(ctx, script(`echo `+ready("127.0.0.1:2181")+`; read _; printf "%s " "$@" > "`+mark+`"`))
		t.Cleanup(srv.Close)
		if err != nil {
			t.Fatal(err)
		}
		if srv.Source != FromDocker || srv.ConnectString() != "127.0.0.1:2181" || srv.Detail != DockerImage {
			t.Fatalf("srv = %+v", srv)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatal("the helper saw end-of-file before Close")
		}
		srv.Close()
		b, err := os.ReadFile(mark)
		if err != nil {
			t.Fatalf("Close returned before the helper finished: %v", err)
		}
		if got := strings.TrimSpace(string(b)); got != "-n 1" {
			t.Fatalf("the helper was run with %q, want -n 1", got)
		}
	})
	t.Run("the helper's error message is the error, on one line", func(t *testing.T) {
		srv, err := startDocker(ctx, script(`echo `+say(HelperReply{Kind: HelperError, Error: "docker engine does not answer: rootless Docker not found"})+`; exit 1`))
		t.Cleanup(srv.Close)
		want := "zkserver: Docker: docker engine does not answer: rootless Docker not found"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v, want %q", err, want)
		}
	})
	t.Run("a helper that ends without a word is reported with its last stderr line", func(t *testing.T) {
		srv, err := startDocker(ctx, script(`echo "# github.com/lockstep-zk/lockstep/internal/cmd/zkdocker" >&2
echo "internal/cmd/zkdocker/main.go:3:1: syntax error" >&2; echo "exit status 1" >&2; exit 1`))
		t.Cleanup(srv.Close)
		if err == nil || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "ended before it was ready") || !strings.HasSuffix(err.Error(), "main.go:3:1: syntax error") {
			t.Fatalf("err = %v, want one line ending with the build error", err)
		}
		if !strings.Contains(said.String(), "main.go:3:1: syntax error\n") || strings.Contains(said.String(), "exit status") {
			t.Fatalf("Progress got %q: want the helper's stderr without go run's exit status", said)
		}
	})
	t.Run("a line that is not the protocol is refused, saying so", func(t *testing.T) {
		for _, c := range []struct{ line, want string }{
			{`"Pulling zookeeper:3.9.3"`, `said "Pulling zookeeper:3.9.3": not a message of the helper's protocol`},
			{`"ready 127.0.0.1:2181"`, `said "ready 127.0.0.1:2181": not a message of the helper's protocol`},
			{`'{"protocol":2,"msg":{"kind":"ready","servers":["127.0.0.1:2181"]}}'`, "protocol version 2, want 1"},
			{`'{"msg":{"kind":"ready","servers":["127.0.0.1:2181"]}}'`, "protocol version 0, want 1"},
			{`'{"protocol":1,"msg":{"kind":"hello"}}'`, `kind "hello", want "ready", "ok" or "error"`},
			{`'{"protocol":1,"msg":{"kind":"ready","port":2181}}'`, `unknown field "port"`},
			{say(HelperReply{Kind: HelperOK}), `said "{\"protocol\":1,\"msg\":{\"kind\":\"ok\"}}" before it was ready`},
		} {
			srv, err := startDocker(ctx, script(`echo `+c.line+`; read _`))
			t.Cleanup(srv.Close)
			if err == nil || !strings.HasPrefix(err.Error(), "zkserver: Docker: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("the helper said %s: err = %v, want %q", c.line, err, c.want)
			}
		}
	})
	t.Run("a ready message without a host:port is refused", func(t *testing.T) {
		srv, err := startDocker(ctx, script(`echo `+ready("nowhere")+`; read _`))
		t.Cleanup(srv.Close)
		if err == nil || !strings.Contains(err.Error(), "want host:port") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a context that ends before ready ends the helper", func(t *testing.T) {
		mark := filepath.Join(t.TempDir(), "ended")
		sctx, scancel := context.WithCancel(ctx)
		scancel()
		srv, err := startDocker(sctx, script(`read _; touch "`+mark+`"`))
		t.Cleanup(srv.Close)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("startDocker returned before the helper ended: %v", err)
		}
	})
	t.Run("a helper that ignores end-of-file is killed after the grace", func(t *testing.T) {
		shortGrace(t)
		srv, err := startDocker(ctx, script(`echo `+ready("127.0.0.1:2181")+`; exec sleep 60`))
		t.Cleanup(srv.Close)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		srv.Close()
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Close took %v", d)
		}
	})
	t.Run("a grandchild left holding its stdout (go run's helper) is killed too", func(t *testing.T) {
		shortGrace(t)
		srv, err := startDocker(ctx, script(`echo `+ready("127.0.0.1:2181")+`; sleep 60 & exit 0`))
		t.Cleanup(srv.Close)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		srv.Close() // returns once nothing holds the helper's stdout open
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Close took %v", d)
		}
	})
}

func TestHelperMessages(t *testing.T) {
	t.Run("a request and a reply come back as they were written", func(t *testing.T) {
		var b bytes.Buffer
		WriteHelperMessage(&b, HelperRequest{Op: HelperStart, Member: 2})
		req, err := ReadHelperMessage[HelperRequest](bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		if err != nil || req != (HelperRequest{Op: HelperStart, Member: 2}) {
			t.Fatalf("request %+v, %v", req, err)
		}
		b.Reset()
		kept := HelperKept{Addr: "127.0.0.2", User: "1000:1000", Members: []HelperKeptMember{{Port: 2181, Data: "/class/zk1/data"}}}
		WriteHelperMessage(&b, HelperRequest{Op: HelperKeep, Kept: &kept})
		req, err = ReadHelperMessage[HelperRequest](b.Bytes())
		if err != nil || req.Op != HelperKeep || req.Kept == nil || fmt.Sprint(*req.Kept) != fmt.Sprint(kept) {
			t.Fatalf("kept request %+v, %v", req, err)
		}
		b.Reset()
		WriteHelperMessage(&b, HelperReply{Kind: HelperReady, Servers: []string{"127.0.0.1:1", "127.0.0.1:2"}})
		if strings.Count(b.String(), "\n") != 1 || !strings.HasSuffix(b.String(), "\n") {
			t.Fatalf("not one line: %q", b.String())
		}
		rep, err := ReadHelperMessage[HelperReply](b.Bytes())
		if err != nil || rep.Kind != HelperReady || strings.Join(rep.Servers, ",") != "127.0.0.1:1,127.0.0.1:2" {
			t.Fatalf("reply %+v, %v", rep, err)
		}
	})
	t.Run("a malformed message is a clear error", func(t *testing.T) {
		for _, c := range []struct{ line, want string }{
			{`stop 1`, "not a message of the helper's protocol"},
			{`{"protocol":1,"msg":{"op":"stop","member":"one"}}`, "not a message of the helper's protocol"},
			{`{"protocol":1,"msg":{"op":"stop","member":1,"force":true}}`, `unknown field "force"`},
			{`{"op":"stop","member":1}`, `unknown field "op"`},
			{`{"protocol":7,"msg":{"op":"stop","member":1}}`, "protocol version 7, want 1"},
			{`{"protocol":1,"msg":{"op":"pause","member":1}}`, `op "pause", want "stop", "start" or "kept"`},
			{`{"protocol":1,"msg":{"op":"kept","member":0}}`, `only op "kept" describes a kept ensemble, and it must`},
			{`{"protocol":1,"msg":{"op":"stop","member":0,"kept":{"addr":"127.0.0.2","members":[]}}}`, `only op "kept" describes a kept ensemble`},
			{`{"protocol":1,"msg":{"op":"kept","member":0,"kept":{"addr":"127.0.0.2","members":[{"port":1,"dir":"/x"}]}}}`, `unknown field "dir"`},
		} {
			if _, err := ReadHelperMessage[HelperRequest]([]byte(c.line)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v, want %q", c.line, err, c.want)
			}
		}
	})
}

func TestDockerHelperEnsemble(t *testing.T) {
	quiet(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Member 2 cannot be stopped; "start 1" is answered with a line that is
	// not the protocol; any other op ends the stand-in mid-request.
	members := `echo ` + ready("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3") + `
while read line; do
  case "$line" in
    *'"op":"stop","member":2}'*) echo ` + say(HelperReply{Kind: HelperError, Error: "container zk3 is gone"}) + ` ;;
    *'"op":"start","member":1}'*) echo "Starting zk2" ;;
    *'"op":"stop"'*|*'"op":"start"'*) echo ` + say(HelperReply{Kind: HelperOK}) + ` ;;
    *) echo "bye" >&2; exit 3 ;;
  esac
done`

	t.Run("members stop and start through the helper, its errors are ours", func(t *testing.T) {
		e, err := startDockerEnsemble(ctx, script(members), 3)
		t.Cleanup(e.Close)
		if err != nil {
			t.Fatal(err)
		}
		if e.ConnectString() != "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3" || e.Source != FromDocker {
			t.Fatalf("ensemble = %+v", e)
		}
		if err := e.Stop(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if m, _ := e.member(0); m.running() {
			t.Fatal("member 0 still counts as running after Stop")
		}
		err = e.Stop(ctx, 2)
		if err == nil || err.Error() != "zkserver: Docker: stop 2: container zk3 is gone" {
			t.Fatalf("err = %v", err)
		}
		if m, _ := e.member(2); !m.running() {
			t.Fatal("a member the helper could not stop counts as stopped")
		}
		if err := e.Stop(ctx, 1); err != nil {
			t.Fatalf("after a refused request the next one failed: %v", err)
		}
	})
	t.Run("a helper that dies mid-request fails that request and every later one", func(t *testing.T) {
		e, err := startDockerEnsemble(ctx, script(members), 3)
		t.Cleanup(e.Close)
		if err != nil {
			t.Fatal(err)
		}
		h := e.members[0].(*helperMember).h
		err = h.call(ctx, HelperRequest{Op: "die", Member: 0})
		if err == nil || !strings.Contains(err.Error(), "ended during die 0") || !strings.HasSuffix(err.Error(), ": bye") {
			t.Fatalf("err = %v", err)
		}
		if err2 := e.Stop(ctx, 0); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("the next request: %v, want %v", err2, err)
		}
	})
	t.Run("an answer that is not the protocol fails that request and every later one", func(t *testing.T) {
		e, err := startDockerEnsemble(ctx, script(members), 3)
		t.Cleanup(e.Close)
		if err != nil {
			t.Fatal(err)
		}
		h := e.members[0].(*helperMember).h
		err = h.call(ctx, HelperRequest{Op: HelperStart, Member: 1})
		want := `zkserver: Docker: the helper answered "Starting zk2" to start 1: not a message of the helper's protocol`
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("err = %v, want %q…", err, want)
		}
		if err2 := e.Stop(ctx, 0); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("the next request: %v, want %v", err2, err)
		}
	})
	t.Run("a helper that reports another number of servers is refused", func(t *testing.T) {
		e, err := startDockerEnsemble(ctx, script(`echo `+ready("127.0.0.1:1")+`; read _`), 3)
		t.Cleanup(e.Close)
		if err == nil || !strings.Contains(err.Error(), "asked the helper for 3 servers, it reported 1") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestAFailedDockerStepFallsThrough: an engine was found (the cheap check
// passed) but the helper could not start ZooKeeper. Start then does what it
// does when there is no engine: the local install, saying why.
func TestAFailedDockerStepFallsThrough(t *testing.T) {
	said := quiet(t)
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	up := func(context.Context) error { return nil }
	failing := script(`echo ` + say(HelperReply{Kind: HelperError, Error: "docker engine does not answer: permission denied"}) + `; exit 1`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("to the local install, saying why", func(t *testing.T) {
		needLocal(t)
		srv, err := start(ctx, probes{env(), up, FindInstall, failing})
		t.Cleanup(srv.Close)
		if err != nil {
			t.Fatal(err)
		}
		if srv.Source != FromLocal {
			t.Fatalf("source = %v, want the local install", srv.Source)
		}
		if _, err := Mode(ctx, srv.Servers[0]); err != nil {
			t.Fatalf("the local server does not serve: %v", err)
		}
		if !strings.Contains(said.String(), "zkserver: Docker: docker engine does not answer: permission denied; using the local install instead") {
			t.Fatalf("Start did not say why it left Docker:\n%s", said)
		}
	})
	t.Run("not with LOCKSTEP_ZK=docker", func(t *testing.T) {
		looked := false
		srv, err := start(ctx, probes{env("LOCKSTEP_ZK", "docker"), up, func() (Install, error) { looked = true; return Install{}, nil }, failing})
		t.Cleanup(srv.Close)
		if err == nil || err.Error() != "zkserver: Docker: docker engine does not answer: permission denied" || looked {
			t.Fatalf("err = %v (looked for a local install: %v)", err, looked)
		}
		e, err := startEnsemble(ctx, probes{env("LOCKSTEP_ZK", "docker"), up, func() (Install, error) { looked = true; return Install{}, nil }, failing}, 3)
		t.Cleanup(e.Close)
		if err == nil || !strings.Contains(err.Error(), "permission denied") || looked {
			t.Fatalf("ensemble: err = %v (looked for a local install: %v)", err, looked)
		}
	})
	t.Run("with no local install either, ErrNoZooKeeper names both reasons", func(t *testing.T) {
		srv, err := start(ctx, probes{env(), up, func() (Install, error) { return Install{}, errNoInstall }, failing})
		t.Cleanup(srv.Close)
		if !errors.Is(err, ErrNoZooKeeper) || !strings.Contains(err.Error(), "docker: docker engine does not answer: permission denied") ||
			!strings.Contains(err.Error(), "local install: "+errNoInstall.Error()) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestTheHelperIsFoundFromTheModuleRoot checks the real helperCommand: it
// runs "go run ./internal/cmd/zkdocker" in the directory that holds go.mod.
func TestTheHelperIsFoundFromTheModuleRoot(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd, err := goRunHelper(context.Background(), "-n", "3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cmd.Dir, "go.mod")); err != nil {
		t.Fatalf("runs in %s, which has no go.mod", cmd.Dir)
	}
	if got := strings.Join(cmd.Args[1:], " "); got != "run "+helperPackage+" -n 3" {
		t.Fatalf("runs go %s", got)
	}
}
