package zkserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// The Docker path runs in a helper process, not in this package: the
// testcontainers-go module links a Docker client and, through its root
// package, a test library, and every chapter's binary links this package.
// So a chapter stays small, and the helper (internal/cmd/zkdocker) is built
// the first time Docker is actually used.
//
// The two speak typed messages, one JSON object per line, each in a
// helperEnvelope that carries HelperProtocol: both sides refuse a message
// of another version, or one that is not a message at all. On its standard
// output the helper says a HelperReply:
//
//	ready (Servers)    once, when every server serves
//	error (Error)      it could not start; it then exits
//
// and, once ready, it answers each HelperRequest we send on its standard
// input (stop or start ensemble member Member, 0-based) with ok or error.
// Its arguments say what to start: -n N servers, or -kept and a
// HelperRequest (op kept, one message of this protocol) for a kept
// ensemble (StartKeptEnsemble).
//
// Closing its standard input (which also happens when this process dies)
// or SIGTERM makes it remove its containers and exit. A helper killed with
// SIGKILL removes nothing: testcontainers-go's reaper (Ryuk) does, if it is
// on; if it is off, the helper said so when it started.

// HelperProtocol is the version of the helper's messages. A change to
// HelperRequest or HelperReply that an older reader would misread changes it.
const HelperProtocol = 1

// HelperRequest is what zkserver asks of a ready helper, or, op kept, the
// kept ensemble it asks a helper to start (its -kept argument).
type HelperRequest struct {
	Op     HelperOp    `json:"op"`
	Member int         `json:"member"`         // stop, start: 0-based, < the number of servers
	Kept   *HelperKept `json:"kept,omitempty"` // kept: what to start
}

// HelperOp is what a HelperRequest asks for.
type HelperOp string

const (
	HelperStop  HelperOp = "stop"
	HelperStart HelperOp = "start"
	HelperKeep  HelperOp = "kept" // start a kept ensemble (StartKeptEnsemble)
)

// HelperKept is a kept ensemble for the helper to start: one container per
// member on a network of their own (zk1, zk2, …), each with its data
// directory bind-mounted from the host and its client port published on
// the host's address.
type HelperKept struct {
	// Addr is the host IP address the client ports are published on.
	Addr string `json:"addr"`
	// User is the host's uid:gid, the containers' user, so that what
	// ZooKeeper writes in the data directories belongs to whoever keeps
	// them; "" keeps the image's user.
	User    string             `json:"user,omitempty"`
	Members []HelperKeptMember `json:"members"`
}

// HelperKeptMember is one member of a HelperKept.
type HelperKeptMember struct {
	Port int    `json:"port"` // the host port published on Addr
	Data string `json:"data"` // absolute host directory: ZooKeeper's dataDir (snapshots, logs, myid)
}

// HelperReply is what the helper says: ready, then ok or error per request.
type HelperReply struct {
	Kind    HelperKind `json:"kind"`
	Servers []string   `json:"servers,omitempty"` // ready: every server's host:port
	Error   string     `json:"error,omitempty"`   // error: what went wrong
}

// HelperKind is what a HelperReply says.
type HelperKind string

const (
	HelperReady HelperKind = "ready"
	HelperOK    HelperKind = "ok"
	HelperError HelperKind = "error"
)

// helperEnvelope is one line of the protocol.
type helperEnvelope[M HelperRequest | HelperReply] struct {
	Protocol int `json:"protocol"`
	Msg      M   `json:"msg"`
}

// WriteHelperMessage writes m as one line of the protocol.
func WriteHelperMessage[M HelperRequest | HelperReply](w io.Writer, m M) error {
	b, err := json.Marshal(helperEnvelope[M]{Protocol: HelperProtocol, Msg: m})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadHelperMessage decodes one line of the protocol. The error says what
// is wrong with it: not a JSON message of that type, another protocol
// version (none is version 0), or an op or kind it does not know.
func ReadHelperMessage[M HelperRequest | HelperReply](line []byte) (M, error) {
	var e helperEnvelope[M]
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return e.Msg, fmt.Errorf("not a message of the helper's protocol: %w", err)
	}
	if e.Protocol != HelperProtocol {
		return e.Msg, fmt.Errorf("protocol version %d, want %d (a helper built from another lockstep tree?)", e.Protocol, HelperProtocol)
	}
	switch m := any(e.Msg).(type) {
	case HelperRequest:
		switch {
		case m.Op != HelperStop && m.Op != HelperStart && m.Op != HelperKeep:
			return e.Msg, fmt.Errorf("op %q, want %q, %q or %q", m.Op, HelperStop, HelperStart, HelperKeep)
		case (m.Op == HelperKeep) != (m.Kept != nil):
			return e.Msg, fmt.Errorf("op %q with kept %v: only op %q describes a kept ensemble, and it must", m.Op, m.Kept != nil, HelperKeep)
		}
	case HelperReply:
		switch m.Kind {
		case HelperReady, HelperOK, HelperError:
		default:
			return e.Msg, fmt.Errorf("kind %q, want %q, %q or %q", m.Kind, HelperReady, HelperOK, HelperError)
		}
	}
	return e.Msg, nil
}

// helperPackage is the helper's directory under the module root.
const helperPackage = "./internal/cmd/zkdocker"

// helperStopGrace bounds how long the helper may take to remove its
// containers once asked before its process group is killed.
var helperStopGrace = 30 * time.Second

// helperCommand returns the command that runs the helper with args.
type helperCommand func(ctx context.Context, args ...string) (*exec.Cmd, error)

// goRunHelper runs the helper with "go run" from the module root. The go
// command caches the built helper, so only the first run compiles it.
func goRunHelper(ctx context.Context, args ...string) (*exec.Cmd, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, errors.New("the Docker helper is built with the go command, which is not on PATH")
	}
	root, err := moduleRoot(ctx, goBin)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(goBin, append([]string{"run", helperPackage}, args...)...)
	cmd.Dir = root
	return cmd, nil
}

// moduleRoot finds the lockstep source tree: from this file's directory
// when the binary was built from source here (the usual go run and go test),
// else from the working directory.
func moduleRoot(ctx context.Context, goBin string) (string, error) {
	dir := ""
	if _, file, _, ok := runtime.Caller(0); ok && fileExists(file) {
		dir = filepath.Dir(file)
	}
	cmd := exec.CommandContext(ctx, goBin, "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("the Docker helper is built from the lockstep source tree; run from inside it (go env GOMOD: %q, %v)", gomod, err)
	}
	root := filepath.Dir(gomod)
	if !fileExists(filepath.Join(root, helperPackage)) {
		return "", fmt.Errorf("the Docker helper is built from the lockstep source tree, and %s has no %s", root, helperPackage)
	}
	return root, nil
}

// dockerHelper is a running helper that has said ready.
type dockerHelper struct {
	proc   *process
	addrs  []string
	lines  <-chan string // its standard output, closed at end-of-file
	stderr *tailWriter
	mu     sync.Mutex    // one request at a time
	broken error         // set when a request's answer is lost; later ones fail
	closed chan struct{} // closed by close: the helper's end is then ours
	once   sync.Once
}

// DockerCleanup removes what testcontainers-go started and labelled: the
// containers with their anonymous volumes, then the networks. It is what a
// user runs after a Docker helper was killed with Ryuk off (see
// docs/troubleshooting.md; scripts/docker-zookeeper clean runs it too).
const DockerCleanup = "docker ps -aq --filter label=org.testcontainers=true | xargs -r docker rm -f -v; " +
	"docker network ls -q --filter label=org.testcontainers=true | xargs -r docker network rm"

// watchHelper says at once when the helper ends before we asked it to: it
// removed nothing, and the server keeps running, or is gone, as Ryuk decides.
func (h *dockerHelper) watchHelper() {
	select {
	case <-h.proc.done:
		fmt.Fprintf(Progress, "zkserver: the Docker helper ended by itself (%v) and removed nothing: "+
			"its containers stay unless testcontainers' reaper (Ryuk) removes them; to remove them: %s\n", h.proc.err, DockerCleanup)
	case <-h.closed:
	}
}

// startHelper runs the helper with args (-n N, or -kept and a request)
// and waits until it says ready or error, or ends, or ctx ends. Every
// failure is one line that says why.
func startHelper(ctx context.Context, command helperCommand, args ...string) (*dockerHelper, error) {
	cmd, err := command(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("zkserver: Docker: %w", err)
	}
	// Our own pipe rather than cmd.StdoutPipe: Wait closes that one when the
	// child exits, which could lose the error line it printed last.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	tail := &tailWriter{to: Progress}
	cmd.Stderr = tail
	cmd.WaitDelay = 5 * time.Second // a grandchild holding stderr open cannot stall Wait
	proc, err := startGroup(cmd)
	w.Close() // the child has its copy; ours would hide end-of-file
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("zkserver: Docker: start the helper: %w", err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	h := &dockerHelper{proc: proc, lines: lines, stderr: tail, closed: make(chan struct{})}
	select {
	case line, ok := <-lines:
		if !ok {
			return nil, h.died("before it was ready")
		}
		m, err := ReadHelperMessage[HelperReply]([]byte(line))
		if err != nil {
			h.close()
			return nil, fmt.Errorf("zkserver: Docker: the helper said %q: %w", line, err)
		}
		switch m.Kind {
		case HelperReady:
			addrs, err := ParseServers(strings.Join(m.Servers, ","))
			if err != nil {
				h.close()
				return nil, fmt.Errorf("zkserver: Docker: the helper said %q: %w", line, err)
			}
			h.addrs = addrs
			go h.watchHelper()
			return h, nil
		case HelperError:
			h.close()
			return nil, fmt.Errorf("zkserver: Docker: %s", m.Error)
		default:
			h.close()
			return nil, fmt.Errorf("zkserver: Docker: the helper said %q before it was ready, want %q or %q", line, HelperReady, HelperError)
		}
	case <-ctx.Done():
		h.close()
		return nil, fmt.Errorf("zkserver: Docker: %w before the helper was ready", ctx.Err())
	}
}

// call sends one request and waits for its answer.
func (h *dockerHelper) call(ctx context.Context, req HelperRequest) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.broken != nil {
		return h.broken
	}
	what := fmt.Sprintf("%s %d", req.Op, req.Member)
	if err := WriteHelperMessage(h.proc.stdin, req); err != nil {
		h.broken = h.died("before " + what)
		return h.broken
	}
	select {
	case line, ok := <-h.lines:
		if !ok {
			h.broken = h.died("during " + what)
			return h.broken
		}
		m, err := ReadHelperMessage[HelperReply]([]byte(line))
		if err != nil {
			h.broken = fmt.Errorf("zkserver: Docker: the helper answered %q to %s: %w", line, what, err)
			return h.broken
		}
		switch m.Kind {
		case HelperOK:
			return nil
		case HelperError:
			return fmt.Errorf("zkserver: Docker: %s: %s", what, m.Error)
		}
		h.broken = fmt.Errorf("zkserver: Docker: the helper answered %q to %s, want %q or %q", line, what, HelperOK, HelperError)
		return h.broken
	case <-ctx.Done():
		// The answer may still come; it would then be read as the answer to
		// the next request, so there is no next request.
		h.broken = fmt.Errorf("zkserver: Docker: %s: %w; the helper can take no more requests", what, ctx.Err())
		return h.broken
	}
}

// died waits for the helper to exit and says how, with the last thing it
// wrote on stderr (the go command's build error, a panic, …).
func (h *dockerHelper) died(when string) error {
	select {
	case <-h.proc.done:
	case <-time.After(helperStopGrace):
		h.proc.kill()
	}
	h.proc.stdin.Close()
	msg := fmt.Sprintf("zkserver: Docker: the helper (go run %s) ended %s (%v)", helperPackage, when, h.proc.err)
	if last := h.stderr.last(); last != "" {
		msg += ": " + last
	}
	return errors.New(msg)
}

// close asks the helper to remove its containers and waits for it. Under
// go run the helper is a grandchild: its stdout reaching end-of-file, not
// the go command's exit, says it is done.
func (h *dockerHelper) close() {
	h.once.Do(func() { close(h.closed) })
	h.proc.stop(helperStopGrace)
	drained := make(chan struct{})
	go func() {
		for range h.lines {
		}
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(helperStopGrace):
		h.proc.kill() // the whole group, the grandchild too
		<-drained
	}
}

// tailWriter passes the helper's stderr on to Progress, line by line, and
// keeps its last non-empty line for error messages. "exit status N" is go
// run's own last word, not the helper's: it is dropped.
type tailWriter struct {
	to      io.Writer
	mu      sync.Mutex
	partial string
	lastOne string
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial += string(b)
	for {
		line, rest, ok := strings.Cut(t.partial, "\n")
		if !ok {
			break
		}
		t.partial = rest
		if goRunExit.MatchString(strings.TrimSpace(line)) {
			continue
		}
		if t.to != nil {
			io.WriteString(t.to, line+"\n")
		}
		if s := strings.TrimSpace(line); s != "" {
			t.lastOne = s
		}
	}
	return len(b), nil
}

var goRunExit = regexp.MustCompile(`^exit status [0-9]+$`)

func (t *tailWriter) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := strings.TrimSpace(t.partial); s != "" && !goRunExit.MatchString(s) {
		return s
	}
	return t.lastOne
}
