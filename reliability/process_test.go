package reliability_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// A lock holder in another process is the only honest way to crash one
// (SIGKILL) or freeze one (SIGSTOP, the long GC pause of the articles): the
// test re-executes its own binary with childRoleEnv set, and TestMain hands
// over to childMain instead of running tests.
const (
	childRoleEnv = "LOCKSTEP_RELIABILITY_CHILD" // "hold" or "pause"
	childZKEnv   = "LOCKSTEP_RELIABILITY_ZK"    // the server's address
	childKindEnv = "LOCKSTEP_RELIABILITY_KIND"  // a kind's name
	childDirEnv  = "LOCKSTEP_RELIABILITY_DIR"   // the lock directory
	childTTLEnv  = "LOCKSTEP_RELIABILITY_SESSION"
	childDataEnv = "LOCKSTEP_RELIABILITY_DATA"  // the znode the holder writes (pause)
	childNaive   = "LOCKSTEP_RELIABILITY_NAIVE" // URL of the unfenced store (pause)
	childFenced  = "LOCKSTEP_RELIABILITY_FENCED"
)

// processSession is the session timeout of the crash and pause tests.
const processSession = 3 * time.Second

// resourceSession is the session timeout of the paused holder's resource
// client: long enough to outlive the pause, so that its stale write goes
// straight in when the process resumes.
const resourceSession = 30 * time.Second

// childMain is a lock holder in a process of its own. It takes the lock,
// says "HOLDING token=… node=…", and then:
//   - hold: waits until its stdin closes (the test died) or it is killed;
//   - pause: waits for a line on stdin — the test SIGSTOPs it meanwhile and
//     sends the line just before SIGCONT — and then, like a program whose
//     GC pause ended, carries on with its critical section as if nothing
//     had happened: it writes with the token it had, to the naive store, to
//     the fenced store and with a fenced multi in ZooKeeper, and reports
//     each answer on stdout.
func childMain(role string) int {
	fail := func(format string, args ...any) int {
		fmt.Printf("ERROR "+format+"\n", args...)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	k, err := kindNamed(os.Getenv(childKindEnv))
	if err != nil {
		return fail("%v", err)
	}
	d, err := time.ParseDuration(os.Getenv(childTTLEnv))
	if err != nil {
		return fail("session timeout: %v", err)
	}
	sess, err := seqlock.NewSession(ctx, []string{os.Getenv(childZKEnv)}, seqlock.WithSessionTimeout(d))
	if err != nil {
		return fail("%v", err)
	}
	defer sess.Close()
	// The resource is not the lock service: the holder writes the data
	// znode through a client of its own, as it would write a database. Its
	// lock's Session ends with the expiry (its conn is closed: a ZooKeeper
	// handle is dead after Expired), its resource client does not.
	res, _, err := zksession.Connect(ctx, []string{os.Getenv(childZKEnv)}, resourceSession)
	if err != nil {
		return fail("resource client: %v", err)
	}
	defer res.Close()
	h, err := k.new(sess, os.Getenv(childDirEnv), nil)
	if err != nil {
		return fail("%v", err)
	}
	if err := h.Lock(ctx); err != nil {
		return fail("lock: %v", err)
	}
	node, err := h.Node(ctx)
	if err != nil {
		return fail("node: %v", err)
	}
	token := h.Token()
	fmt.Printf("HOLDING token=%d node=%s\n", token, node)

	stdin := bufio.NewScanner(os.Stdin)
	if role == "hold" {
		for stdin.Scan() {
		}
		return 0
	}
	if !stdin.Scan() {
		return fail("stdin closed before GO")
	}
	// Resumed. A real program would not look at Lost between two lines of
	// its critical section; we only report whether it had closed.
	fmt.Printf("LOST-BEFORE-WRITE %v\n", isClosed(h.Lost()))
	if k.name == "06-reentrant" {
		// Chapter 06's flaw after a real pause: its helper takes the lock
		// again. Re-entry asks no one: the count says "held".
		rctx, rcancel := context.WithTimeout(ctx, time.Second)
		err := h.Lock(rctx)
		rcancel()
		answer := "ok"
		if err != nil {
			answer = err.Error()
		}
		fmt.Printf("REENTER %s\n", answer)
	}
	value := "written by the paused holder, token " + strconv.FormatInt(token, 10)
	fmt.Printf("NAIVE %s\n", httpWrite(os.Getenv(childNaive), token, value))
	fmt.Printf("FENCED %s\n", httpWrite(os.Getenv(childFenced), token, value))
	// A request sent while go-zookeeper is still finding out that the
	// connection is dead fails without reaching ZooKeeper. A program would
	// retry that, so we do: the answer that counts is ZooKeeper's own.
	err = fencedSet(res, node, os.Getenv(childDataEnv), []byte(value))
	for retry := 0; retry < 50 && (errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionExpired)); retry++ {
		time.Sleep(200 * time.Millisecond)
		err = fencedSet(res, node, os.Getenv(childDataEnv), []byte(value))
	}
	if err != nil {
		fmt.Printf("ZKMULTI refused: %v\n", err)
	} else {
		fmt.Printf("ZKMULTI accepted\n")
	}
	// The lock's Session was one ZooKeeper session, and the server ended
	// it: once the conn hears so, Done closes, and a lock on it says
	// ErrSessionExpired at once; the program must open a new Session.
	select {
	case <-sess.Done():
		again, err := k.new(sess, os.Getenv(childDirEnv), nil)
		if err == nil {
			err = again.Lock(ctx)
		}
		fmt.Printf("SESSION ended; a new lock on it: %v\n", err)
	case <-ctx.Done():
		fmt.Printf("SESSION still open\n")
	}
	fmt.Println("DONE")
	return 0
}

// httpWrite posts one write to a fencedStore and says how it went.
func httpWrite(base string, token int64, value string) string {
	resp, err := http.Post(base+"?token="+strconv.FormatInt(token, 10)+"&value="+url.QueryEscape(value), "text/plain", nil)
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNoContent {
		return "accepted"
	}
	return "refused: " + strings.TrimSpace(string(body))
}

// child is a running holder process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // its stdout, line by line; closed at EOF
	out   strings.Builder
}

func startChild(t *testing.T, role string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRoleEnv+"="+role)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 100)}
	go func() {
		defer close(c.lines)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			c.lines <- s.Text()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL) // harmless if it already exited
		stdin.Close()
		for range c.lines {
		}
		cmd.Wait()
	})
	return c
}

// expect reads lines until one starts with prefix and returns the rest.
func (c *child) expect(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(patience)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("child exited before %q; it said:\n%s", prefix, c.out.String())
			}
			c.out.WriteString(line + "\n")
			if rest, found := strings.CutPrefix(line, prefix); found {
				return strings.TrimSpace(rest)
			}
		case <-timeout:
			t.Fatalf("no %q from the child after %v; it said:\n%s", prefix, patience, c.out.String())
		}
	}
}

// holding parses "HOLDING token=N node=P".
func (c *child) holding(t *testing.T) (int64, string) {
	t.Helper()
	var token int64
	var node string
	if _, err := fmt.Sscanf(c.expect(t, "HOLDING "), "token=%d node=%s", &token, &node); err != nil {
		t.Fatalf("child's HOLDING line: %v", err)
	}
	return token, node
}

func childEnv(t *testing.T, k kind, dir string) []string {
	return []string{
		childZKEnv + "=" + zktest.Servers(t)[0],
		childKindEnv + "=" + k.name,
		childDirEnv + "=" + dir,
		childTTLEnv + "=" + processSession.String(),
	}
}

// waitQueued waits until dir has n children: everyone has queued up.
func waitQueued(t *testing.T, conn *zk.Conn, dir string, n int) {
	t.Helper()
	zktest.Eventually(t, patience, fmt.Sprintf("%d contenders queued in %s", n, dir), func() bool {
		children, _, err := conn.Children(dir)
		return err == nil && len(children) >= n
	})
}

// TestKilledHolderProcess kills the process that holds the lock with
// SIGKILL: no Unlock, no closed session, just a TCP connection the kernel
// resets. ZooKeeper keeps the holder's ephemeral node until the session
// times out; then the waiter, in this process, gets the lock.
func TestKilledHolderProcess(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name+": the next waiter gets the lock once the killed holder's session times out", func(t *testing.T) {
			t.Parallel()
			dir := zktest.Root(t) + "/lock"
			c := startChild(t, "hold", childEnv(t, k, dir)...)
			childToken, _ := c.holding(t)

			ws := sessionOn(t, zktest.Servers(t), processSession)
			conn := ws.Conn()
			var acquiredAt time.Time
			obs := func(e event.Event) {
				if e.Kind == event.Acquired {
					acquiredAt = time.Now()
				}
			}
			waiter := newHolder(t, k, ws, dir, obs)
			locked := make(chan error, 1)
			go func() { locked <- waiter.Lock(ctxFor(t)) }()
			waitQueued(t, conn, dir, 2)

			killedAt := time.Now()
			if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-locked:
				if err != nil {
					t.Fatalf("waiter's Lock: %v", err)
				}
			case <-time.After(processSession + patience):
				t.Fatalf("the waiter still has no lock %v after the holder was killed", processSession+patience)
			}
			handoff := acquiredAt.Sub(killedAt)
			t.Logf("hand-off after SIGKILL: %v (session timeout %v)", handoff.Round(time.Millisecond), processSession)
			if got := waiter.Token(); got <= childToken {
				t.Errorf("waiter's token %d is not above the killed holder's %d", got, childToken)
			}
			if err := waiter.Unlock(ctxFor(t)); err != nil {
				t.Errorf("Unlock: %v", err)
			}
		})
	}
}

// TestPausedHolderProcess is the articles' GC pause, for real: the holder
// process is frozen with SIGSTOP for longer than its session timeout, the
// server expires its session, another client takes the lock and writes,
// and then the frozen process is resumed (SIGCONT) in the middle of its
// critical section and writes too.
//
// Without fencing, its stale write lands after the newer holder's and wins.
// With the lock's fencing token, the store refuses it; with a ZooKeeper
// multi that checks the holder's own lock node, ZooKeeper refuses it.
func TestPausedHolderProcess(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name+": a holder resumed after its session expired is refused by fencing", func(t *testing.T) {
			t.Parallel()
			root := zktest.Root(t)
			dir, data := root+"/lock", root+"/data"
			ns := sessionOn(t, zktest.Servers(t), processSession)
			conn := ns.Conn()
			if _, err := conn.Create(data, []byte("initial"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			naive, fenced := &fencedStore{}, &fencedStore{fenced: true}
			naiveSrv, fencedSrv := httptest.NewServer(naive), httptest.NewServer(fenced)
			t.Cleanup(naiveSrv.Close)
			t.Cleanup(fencedSrv.Close)

			env := append(childEnv(t, k, dir), childDataEnv+"="+data, childNaive+"="+naiveSrv.URL, childFenced+"="+fencedSrv.URL)
			c := startChild(t, "pause", env...)
			staleToken, _ := c.holding(t)

			next := newHolder(t, k, ns, dir, nil)
			locked := make(chan error, 1)
			go func() { locked <- next.Lock(ctxFor(t)) }()
			waitQueued(t, conn, dir, 2)

			// The pause: the holder stops between two lines of code.
			if err := c.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			stoppedAt := time.Now()
			select {
			case err := <-locked:
				if err != nil {
					t.Fatalf("next holder's Lock: %v", err)
				}
			case <-time.After(processSession + patience):
				t.Fatalf("nobody got the lock %v into the pause", processSession+patience)
			}
			t.Logf("the next holder got the lock %v into the pause", time.Since(stoppedAt).Round(time.Millisecond))
			newToken := next.Token()
			if newToken <= staleToken {
				t.Fatalf("new token %d is not above the paused holder's %d", newToken, staleToken)
			}
			newNode, err := next.Node(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			newValue := "written by the new holder, token " + strconv.FormatInt(newToken, 10)
			for _, s := range []*fencedStore{naive, fenced} {
				if err := s.Write(newToken, newValue); err != nil {
					t.Fatalf("the new holder's write: %v", err)
				}
			}
			if err := fencedSet(conn, newNode, data, []byte(newValue)); err != nil {
				t.Fatalf("the new holder's fenced set: %v", err)
			}

			// The pause ends: the holder carries on where it stopped.
			if _, err := io.WriteString(c.stdin, "GO\n"); err != nil {
				t.Fatal(err)
			}
			if err := c.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			lostSeen := c.expect(t, "LOST-BEFORE-WRITE ")
			if k.name == "06-reentrant" {
				reenter := c.expect(t, "REENTER ")
				t.Run("06: the resumed holder's re-entry is decided on local knowledge", func(t *testing.T) {
					// The new holder holds the lock now. A re-entry that
					// succeeds makes two owners (the flaw); one refused
					// must be refused as a loss, never hang or fail otherwise.
					switch {
					case reenter == "ok":
						t.Logf("re-entered to depth 2 while the new holder (token %d) holds the lock: two owners", newToken)
					case strings.Contains(reenter, seqlock.ErrLost.Error()):
						t.Logf("re-entry refused: the resumed process had already heard of the loss (%s)", reenter)
					default:
						t.Fatalf("re-entry after the pause: %s, want ok (the flaw) or ErrLost", reenter)
					}
				})
			}
			naiveAnswer := c.expect(t, "NAIVE ")
			fencedAnswer := c.expect(t, "FENCED ")
			multiAnswer := c.expect(t, "ZKMULTI ")
			sessionAnswer := c.expect(t, "SESSION ")
			t.Logf("resumed holder (token %d, new holder's %d): Lost closed before its write: %s; naive store: %s; fenced store: %s; ZooKeeper multi: %s; its lock's session: %s",
				staleToken, newToken, lostSeen, naiveAnswer, fencedAnswer, multiAnswer, sessionAnswer)

			t.Run("without fencing the stale write lands after the newer holder's", func(t *testing.T) {
				if naiveAnswer != "accepted" {
					t.Fatalf("naive store said %q", naiveAnswer)
				}
				if last := naive.Last(); last.token != staleToken {
					t.Fatalf("the naive store's last write has token %d, want the stale %d", last.token, staleToken)
				}
			})
			t.Run("the fenced store refuses the stale token", func(t *testing.T) {
				if !strings.HasPrefix(fencedAnswer, "refused") {
					t.Fatalf("fenced store said %q", fencedAnswer)
				}
				if last := fenced.Last(); last.value != newValue {
					t.Fatalf("the fenced store holds %q, want %q", last.value, newValue)
				}
			})
			t.Run("the ZooKeeper multi that checks the lock node refuses the write", func(t *testing.T) {
				// Refused by ZooKeeper itself: the check found no lock node.
				if !strings.HasPrefix(multiAnswer, "refused") || !strings.Contains(multiAnswer, zk.ErrNoNode.Error()) {
					t.Fatalf("ZooKeeper multi: %s", multiAnswer)
				}
				got, _, err := conn.Get(data)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != newValue {
					t.Fatalf("%s holds %q, want %q", data, got, newValue)
				}
			})
			t.Run("the paused holder's Session has ended: a lock on it says ErrSessionExpired", func(t *testing.T) {
				if !strings.HasPrefix(sessionAnswer, "ended") || !strings.Contains(sessionAnswer, seqlock.ErrSessionExpired.Error()) {
					t.Fatalf("after the pause: SESSION %s", sessionAnswer)
				}
			})
			if err := next.Unlock(ctxFor(t)); err != nil {
				t.Errorf("Unlock: %v", err)
			}
		})
	}
}
