//go:build unix

package docs

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// docs/zkcli.md shows the lock done by hand in two zkCli terminals. Its
// transcripts are real: scripts/zkcli-transcript replays every command of
// the page against a fresh server and writes what zkCli printed back into
// the page. This test replays them again and checks that each command still
// prints the same thing, with what changes from run to run masked (session
// ids, zxids, timestamps). A command that zkCli no longer knows, an output
// that changed, or a watch that no longer fires fails here.
//
// A transcript is a fenced block whose info string is "zkcli":
//
//	# terminal A
//	$ /usr/share/zookeeper/bin/zkCli.sh -server localhost:2181
//	Connecting to localhost:2181
//	…
//	[zk: localhost:2181(CONNECTED) 0] create -e -s /locks/lock- "A"
//	Created /locks/lock-0000000000
//
// Lines before the block's first command are what the terminal printed on
// its own since its last block: a watch that fired because of something the
// other terminal did.
//
// A block may start another terminal (C, …) with its own "$ zkCli.sh" line.
// The replay deletes its chroot at the end without credentials, so a section
// that restricts an ACL (setAcl) ends by deleting those nodes from a terminal
// that ran addauth, as the page's section 7 does.

var updateZkCli = flag.Bool("update-zkcli", false, "replay docs/zkcli.md against a real server and rewrite its transcripts (scripts/zkcli-transcript)")

const zkcliPage = "zkcli.md"

func TestZkCliTranscriptsStillRun(t *testing.T) {
	if p := os.Getenv("ZKCLI"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("ZKCLI=%s: %v (unset it to look in the usual places)", p, err)
		}
	}
	cli := findZkCli()
	if cli == "" {
		if *updateZkCli {
			t.Fatal("zkCli.sh not found: install ZooKeeper (Debian: apt-get install zookeeper) or set ZKCLI=/path/to/zkCli.sh")
		}
		t.Skip("zkCli.sh is not installed here (Debian's zookeeper package has it; or set ZKCLI): the transcripts of zkcli.md are not replayed")
	}
	text, err := os.ReadFile(zkcliPage)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Split(string(text), "\n")
	blocks, err := parseTranscripts(page)
	if err != nil {
		t.Fatalf("%s: %v", zkcliPage, err)
	}
	if len(blocks) < 2 {
		t.Fatalf("%s: found %d zkcli blocks; the page is the lock in two terminals", zkcliPage, len(blocks))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx)
	t.Cleanup(srv.Close)
	if err != nil {
		t.Fatal(err)
	}
	// Each replay gets a chroot of its own, so that the paths in the page
	// (/locks, …) and the sequence numbers under them are the same on a
	// fresh server and on a shared one (ZK_SERVERS).
	_, chroot := newChroot(ctx, t, srv.Servers, "/zkcli-")
	replay := &replay{cli: cli, connect: srv.ConnectString() + chroot, update: *updateZkCli, terminals: map[string]*terminal{}}
	t.Cleanup(replay.close)

	for _, b := range blocks {
		got, err := replay.play(ctx, b)
		if err != nil && replay.update {
			for _, p := range replay.played {
				t.Logf("played so far:\n%s", strings.Join(p.render(), "\n"))
			}
			t.Logf("and in this block:\n%s", strings.Join(got.render(), "\n"))
		}
		if err != nil {
			t.Fatalf("%s:%d (terminal %s): %v", zkcliPage, b.line+1, b.terminal, err)
		}
		if replay.update {
			continue
		}
		for i, want := range b.steps {
			if i >= len(got.steps) {
				break
			}
			if d := stepDiff(want, got.steps[i]); d != "" {
				t.Errorf("%s:%d (terminal %s) %s:\n%s", zkcliPage, b.line+1, b.terminal, want.label(), d)
			}
		}
	}
	if !replay.update {
		return
	}
	// Rewrite the blocks from the last one up, so earlier line numbers hold,
	// then the overview, which comes before them.
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		page = slices.Replace(page, b.line+1, b.end, replay.played[i].render()...)
	}
	if start, end, ok := overviewTable(page); ok {
		page = slices.Replace(page, start, end, overview(replay.played)...)
	}
	if err := os.WriteFile(zkcliPage, []byte(strings.Join(page, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote %d transcripts in %s", len(blocks), zkcliPage)
}

// TestTheOverviewIsTheTranscripts checks the page's side-by-side table of
// the whole session against its transcripts: same commands, same order,
// same terminal, same watch events. It needs neither zkCli nor a server.
func TestTheOverviewIsTheTranscripts(t *testing.T) {
	text, err := os.ReadFile(zkcliPage)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Split(string(text), "\n")
	blocks, err := parseTranscripts(page)
	if err != nil {
		t.Fatalf("%s: %v", zkcliPage, err)
	}
	start, end, ok := overviewTable(page)
	if !ok {
		t.Fatalf("%s: no overview table after %q", zkcliPage, overviewMarker)
	}
	got, want := page[start:end], overview(blocks)
	if !slices.Equal(got, want) {
		t.Errorf("%s:%d: the overview does not match the transcripts below it (scripts/zkcli-transcript rewrites it):\n%s\nwant:\n%s",
			zkcliPage, start+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// overviewMarker precedes the side-by-side table of the whole session.
const overviewMarker = "<!-- zkcli overview: written by scripts/zkcli-transcript from the transcripts below -->"

// overviewTable finds the table after the marker: lines [start, end).
func overviewTable(page []string) (start, end int, ok bool) {
	i := slices.Index(page, overviewMarker)
	if i < 0 {
		return 0, 0, false
	}
	start, end = i+1, i+1
	for end < len(page) && strings.HasPrefix(page[end], "|") {
		end++
	}
	return start, end, true
}

// overview is the whole session as a table, one row per step, terminal A
// on the left and B on the right: the "two terminals side by side" at a
// glance, with each watch event in the row where it is printed.
func overview(blocks []block) []string {
	var terminals []string
	for _, b := range blocks {
		if !slices.Contains(terminals, b.terminal) {
			terminals = append(terminals, b.terminal)
		}
	}
	head := "| # |"
	rule := "|--:|"
	for _, term := range terminals {
		head += " terminal " + term + " |"
		rule += "---|"
	}
	out := []string{head, rule}
	n := 0
	for _, b := range blocks {
		for _, s := range b.steps {
			var cell string
			switch {
			case s.start:
				cell = "`" + strings.TrimPrefix(s.shell, "$ ") + "`"
			case s.command != "":
				cell = "`" + s.command + "`"
			}
			if _, watch := masked(s.output); len(watch) > 0 && !s.start { // a start's event is "connected"
				var evs []string
				for _, w := range watch {
					w = strings.TrimPrefix(w, "WatchedEvent ")
					w = strings.TrimPrefix(w, "state:SyncConnected ")
					evs = append(evs, "*"+w+"*")
				}
				if cell != "" {
					cell += "<br>"
				}
				cell += "⚡ " + strings.Join(evs, "<br>⚡ ")
			}
			if cell == "" {
				continue
			}
			n++
			row := fmt.Sprintf("| %d |", n)
			for _, term := range terminals {
				if term == b.terminal {
					row += " " + cell + " |"
				} else {
					row += " |"
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func TestTranscriptParsingAndMasking(t *testing.T) {
	page := strings.Split(strings.Join([]string{
		"# zkCli",
		"```zkcli",
		"# terminal A",
		"$ zkCli.sh -server localhost:2181",
		"Connecting to localhost:2181",
		"[zk: localhost:2181(CONNECTED) 0] stat -w /locks/lock-0000000001",
		"cZxid = 0x1a",
		"ctime = Mon Nov 23 09:39:27 UTC 2026",
		"ephemeralOwner = 0x100006d9da90001",
		"```",
		"```sh",
		"[zk: localhost:2181(CONNECTED) 0] not a transcript",
		"```",
		"```zkcli",
		"# terminal B",
		"",
		"WATCHER::",
		"",
		"WatchedEvent state:SyncConnected type:NodeDeleted path:/locks/lock-0000000001",
		"[zk: localhost:2181(CONNECTED) 1] ls /locks",
		"[lock-0000000002]",
		"```",
	}, "\n"), "\n")
	blocks, err := parseTranscripts(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].terminal != "A" || blocks[1].terminal != "B" {
		t.Fatalf("parsed %+v, want two blocks, terminals A and B", blocks)
	}
	a, b := blocks[0], blocks[1]
	if len(a.steps) != 2 || !a.steps[0].start || a.steps[1].command != "stat -w /locks/lock-0000000001" {
		t.Errorf("terminal A's steps: %+v", a.steps)
	}
	if len(b.steps) != 2 || b.steps[0].command != "" || b.steps[0].start || events(b.steps[0].output) != 1 || b.steps[1].command != "ls /locks" {
		t.Errorf("terminal B's steps: %+v (want what it printed on its own, then ls)", b.steps)
	}
	if got := strings.Join(a.render(), "\n"); got != strings.Join(page[2:9], "\n") {
		t.Errorf("a block renders as\n%s\nwant it as written\n%s", got, strings.Join(page[2:9], "\n"))
	}

	t.Run("what changes from run to run is masked, nothing else", func(t *testing.T) {
		other := step{command: "stat -w /locks/lock-0000000001", output: []string{
			"cZxid = 0x2f", "ctime = Tue Dec 01 10:00:00 UTC 2026", "ephemeralOwner = 0x100000000000007",
		}}
		if d := stepDiff(a.steps[1], other); d != "" {
			t.Errorf("zxid, time and session id should be masked:\n%s", d)
		}
		other.output[2] = "ephemeralOwner = 0x0" // a persistent node is not an ephemeral one
		if stepDiff(a.steps[1], other) == "" {
			t.Error("an ephemeral owner that became 0x0 went unnoticed")
		}
		renamed := step{command: "ls /locks", output: []string{"[lock-0000000003]"}}
		if stepDiff(b.steps[1], renamed) == "" {
			t.Error("a different sequence number went unnoticed")
		}
	})
	t.Run("a watch event may print before or after the command's own output", func(t *testing.T) {
		want := step{command: "create /w/a", output: []string{"", "WATCHER::", "", "WatchedEvent state:SyncConnected type:NodeCreated path:/w/a", "Created /w/a"}}
		got := step{command: "create /w/a", output: []string{"Created /w/a", "", "WATCHER::", "", "WatchedEvent state:SyncConnected type:NodeCreated path:/w/a"}}
		if d := stepDiff(want, got); d != "" {
			t.Errorf("%s", d)
		}
		got.output = got.output[:1]
		if stepDiff(want, got) == "" {
			t.Error("a watch that did not fire went unnoticed")
		}
	})
}

// findZkCli returns the zkCli script to run, or "" if there is none.
func findZkCli() string {
	if p := os.Getenv("ZKCLI"); p != "" {
		return p
	}
	candidates := []string{"/usr/share/zookeeper/bin/zkCli.sh"}
	if home := os.Getenv("ZOOKEEPER_HOME"); home != "" {
		candidates = append([]string{filepath.Join(home, "bin", "zkCli.sh")}, candidates...)
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	for _, name := range []string{"zkCli.sh", "zkCli"} { // Homebrew calls it zkCli
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newChroot creates a fresh node prefix+<random> on servers, deleted with
// everything under it when the test ends, and returns it with the conn that
// made it.
func newChroot(ctx context.Context, t *testing.T, servers []string, prefix string) (*zk.Conn, string) {
	t.Helper()
	conn, evs, err := zksession.Connect(ctx, servers, zksession.DefaultTimeout)
	if err != nil {
		t.Fatal(err)
	}
	go zksession.Drain(evs)
	t.Cleanup(conn.Close)
	chroot := prefix + randhex.String(4)
	if _, err := conn.Create(chroot, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create %s: %v", chroot, err)
	}
	t.Cleanup(func() {
		if err := znode.DeleteTree(conn, chroot); err != nil {
			t.Errorf("delete %s: %v", chroot, err)
		}
	})
	return conn, chroot
}

// The page's terminals connect to this address; the replay substitutes the
// real one (and the chroot) and writes this one back.
const shownAddress = "localhost:2181"

// step is one thing a terminal did: start zkCli, run a command, or (command
// "" and not start) print something on its own.
type step struct {
	start   bool   // "$ zkCli.sh -server localhost:2181"
	shell   string // the line as written: "$ …" for start, the prompt and command for a command
	command string
	output  []string
}

func (s step) label() string {
	switch {
	case s.start:
		return "starting zkCli"
	case s.command == "":
		return "before its first command"
	}
	return "`" + s.command + "`"
}

// block is one transcript: page[line] is its opening fence, page[end] its
// closing one.
type block struct {
	line, end int
	terminal  string
	steps     []step
}

var (
	terminalLine = regexp.MustCompile(`^# terminal ([A-Z])$`)
	promptLine   = regexp.MustCompile(`^\[zk: [^\]]*\] (.*)$`)
)

func parseTranscripts(page []string) ([]block, error) {
	var out []block
	for i := 0; i < len(page); i++ {
		if page[i] != "```zkcli" {
			continue
		}
		b := block{line: i, end: -1}
		for j := i + 1; j < len(page); j++ {
			if page[j] == "```" {
				b.end = j
				break
			}
		}
		if b.end < 0 {
			return nil, fmt.Errorf("line %d: zkcli block is not closed", i+1)
		}
		body := page[i+1 : b.end]
		if len(body) == 0 || !terminalLine.MatchString(body[0]) {
			return nil, fmt.Errorf("line %d: a zkcli block starts with \"# terminal A\" (or B, …)", i+2)
		}
		b.terminal = terminalLine.FindStringSubmatch(body[0])[1]
		for _, l := range body[1:] {
			switch m := promptLine.FindStringSubmatch(l); {
			case strings.HasPrefix(l, "$ "):
				b.steps = append(b.steps, step{start: true, shell: l})
			case m != nil:
				b.steps = append(b.steps, step{shell: l, command: m[1]})
			default:
				if len(b.steps) == 0 {
					b.steps = append(b.steps, step{})
				}
				s := &b.steps[len(b.steps)-1]
				s.output = append(s.output, l)
			}
		}
		out = append(out, b)
		i = b.end
	}
	return out, nil
}

// render writes a block's body back, the prompts numbered as zkCli with
// JLine numbers them (one counter per terminal, kept in prompt).
func (b block) render() []string {
	out := []string{"# terminal " + b.terminal}
	for _, s := range b.steps {
		switch {
		case s.start:
			out = append(out, s.shell)
		case s.command != "":
			out = append(out, s.shell) // the prompt, filled in by play
		}
		out = append(out, s.output...)
	}
	return out
}

// events counts the watch events in some output.
func events(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "WatchedEvent ") {
			n++
		}
	}
	return n
}

var (
	maskZxid  = regexp.MustCompile(`^([cmp]Zxid) = 0x[0-9a-f]+$`)
	maskOwner = regexp.MustCompile(`^ephemeralOwner = 0x[0-9a-f]*[1-9a-f][0-9a-f]*$`)
	maskTime  = regexp.MustCompile(`^([cm]time) = .*$`)
)

// masked splits output into zkCli's own lines and the watch events it
// printed (which its event thread may print before or after them), with
// what changes from run to run masked.
func masked(lines []string) (own, watch []string) {
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		// An event prints as "", "WATCHER::", "", "WatchedEvent …".
		if l == "" && i+3 < len(lines) && lines[i+1] == "WATCHER::" && lines[i+2] == "" && strings.HasPrefix(lines[i+3], "WatchedEvent ") {
			watch = append(watch, lines[i+3])
			i += 3
			continue
		}
		l = maskZxid.ReplaceAllString(l, "$1 = 0x…")
		l = maskOwner.ReplaceAllString(l, "ephemeralOwner = 0x… (a session id)")
		l = maskTime.ReplaceAllString(l, "$1 = …")
		own = append(own, l)
	}
	return own, watch
}

// stepDiff says how got differs from want, or "" if only masked parts do.
func stepDiff(want, got step) string {
	wo, ww := masked(want.output)
	go_, gw := masked(got.output)
	var d []string
	if !slices.Equal(wo, go_) {
		d = append(d, "  printed:\n    "+strings.Join(go_, "\n    ")+"\n  the page says:\n    "+strings.Join(wo, "\n    "))
	}
	if !slices.Equal(ww, gw) {
		d = append(d, "  watch events:\n    "+strings.Join(gw, "\n    ")+"\n  the page says:\n    "+strings.Join(ww, "\n    "))
	}
	return strings.Join(d, "\n")
}

// replay runs the page's blocks in order, one zkCli process per terminal.
type replay struct {
	cli       string
	connect   string // host:port/chroot
	update    bool
	terminals map[string]*terminal
	played    []block
	marker    int
}

func (r *replay) close() {
	for _, term := range r.terminals {
		term.stop()
	}
}

// play runs one block and returns what the terminal printed, step by step.
func (r *replay) play(ctx context.Context, b block) (block, error) {
	got := block{line: b.line, end: b.end, terminal: b.terminal}
	term := r.terminals[b.terminal]
	for _, s := range b.steps {
		want := events(s.output)
		played := step{start: s.start, shell: s.shell, command: s.command}
		var err error
		switch {
		case s.start:
			if term != nil {
				return got, fmt.Errorf("zkCli is already running in terminal %s", b.terminal)
			}
			term, err = startTerminal(r.cli, r.connect)
			if err != nil {
				return got, err
			}
			r.terminals[b.terminal] = term
			// zkCli is ready once it says it is connected.
			played.output, err = term.until(ctx, func(out string) bool { return strings.Contains(out, "type:None path:null") }, "", want, r.update)
		case term == nil:
			return got, fmt.Errorf("terminal %s has no zkCli yet: start it with a \"$ zkCli.sh -server %s\" line", b.terminal, shownAddress)
		case s.command == "":
			played.output, err = term.until(ctx, func(string) bool { return true }, "", want, r.update)
		case s.command == "close":
			// After close zkCli answers every command with "Not connected",
			// so wait for the Closed event instead of a marker.
			played.shell = term.prompt(s.command)
			term.send(s.command)
			played.output, err = term.until(ctx, func(out string) bool { return strings.Contains(out, "state:Closed") }, "", want, r.update)
			term.closed = true
		default:
			// After the command, ask for a node that does not exist: once
			// zkCli says so, the command before it has printed its reply.
			r.marker++
			marker := fmt.Sprintf("Node does not exist: /zkcli-end-%d", r.marker)
			played.shell = term.prompt(s.command)
			term.send(strings.ReplaceAll(s.command, shownAddress, r.connect))
			term.send(fmt.Sprintf("ls /zkcli-end-%d", r.marker))
			played.output, err = term.until(ctx, func(out string) bool { return strings.Contains(out, marker+"\n") }, marker, want, r.update)
		}
		if err != nil {
			return got, fmt.Errorf("%s: %w", s.label(), err)
		}
		for i, l := range played.output {
			played.output[i] = strings.ReplaceAll(l, r.connect, shownAddress)
		}
		got.steps = append(got.steps, played)
	}
	r.played = append(r.played, got)
	return got, nil
}

// terminal is one zkCli process, fed on stdin, its stdout and stderr read
// together (zkCli prints "Created …" on stderr and data on stdout).
type terminal struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	n       int // commands run, for the prompt
	closed  bool
	mu      sync.Mutex
	out     bytes.Buffer
	taken   int
	changed chan struct{}
	done    chan struct{}
}

func startTerminal(cli, connect string) (*terminal, error) {
	t := &terminal{changed: make(chan struct{}, 1), done: make(chan struct{})}
	t.cmd = exec.Command(cli, "-server", connect)
	t.cmd.Env = append(os.Environ(), "CLIENT_JVMFLAGS=-Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1")
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // zkCli.sh runs java as a child: stop both
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.cmd.Stdout, t.cmd.Stderr = pw, pw
	if t.stdin, err = t.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("start %s: %w", cli, err)
	}
	pw.Close()
	go func() {
		defer close(t.done)
		defer pr.Close()
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			t.mu.Lock()
			t.out.Write(buf[:n])
			t.mu.Unlock()
			select {
			case t.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return t, nil
}

func (t *terminal) prompt(command string) string {
	state := "CONNECTED"
	if t.closed {
		state = "CLOSED"
	}
	p := fmt.Sprintf("[zk: %s(%s) %d] %s", shownAddress, state, t.n, command)
	t.n++
	return p
}

func (t *terminal) send(line string) { io.WriteString(t.stdin, line+"\n") }

// until waits until ready(pending output) holds and at least wantEvents
// watch events have been printed, then takes the pending output as lines,
// without the marker line and zkCli's logging noise. With settle (when
// rewriting the page) it waits a little longer for events nobody expected.
func (t *terminal) until(ctx context.Context, ready func(string) bool, marker string, wantEvents int, settle bool) ([]string, error) {
	deadline := time.NewTimer(60 * time.Second) // a JVM starting on a loaded machine
	defer deadline.Stop()
	pending := func() string {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.out.String()[t.taken:]
	}
	for {
		p := pending()
		complete := p == "" || strings.HasSuffix(p, "\n") // no half-printed line
		if ready(p) && complete && strings.Count(p, "\nWatchedEvent ") >= wantEvents {
			break
		}
		select {
		case <-t.changed:
		case <-t.done:
			return nil, fmt.Errorf("zkCli exited; it printed:\n%s", p)
		case <-deadline.C:
			return nil, fmt.Errorf("waited 60 s for zkCli (and %d watch events); it printed:\n%s", wantEvents, p)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if settle {
		time.Sleep(500 * time.Millisecond)
	}
	t.mu.Lock()
	p := t.out.String()[t.taken:]
	t.taken = t.out.Len()
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(p, "\n"), "\n") {
		if strings.HasPrefix(l, "SLF4J:") || (marker != "" && l == marker) {
			continue
		}
		lines = append(lines, l)
	}
	if p == "" {
		lines = nil
	}
	return lines, nil
}

// stop ends zkCli: quit, then the whole process group if it lingers.
func (t *terminal) stop() {
	t.send("quit")
	t.stdin.Close()
	select {
	case <-t.done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
		<-t.done
	}
	t.cmd.Wait()
}
