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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/childproc"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// A lock holder in another process is the only honest way to crash one
// (SIGKILL) or freeze one (SIGSTOP, the long GC pause of the articles): the
// test re-executes its own binary (internal/childproc) with a childConfig
// in childEnv, and TestMain hands over to childMain instead of running
// tests. The child answers with childMsgs, one per line.
const childEnv = "LOCKSTEP_RELIABILITY_CHILD" // a childConfig, as JSON

type childConfig struct {
	Role    string        `json:"role"` // "hold" or "pause"
	ZK      string        `json:"zk"`   // the server's address
	Kind    string        `json:"kind"` // a kind's name
	Dir     string        `json:"dir"`  // the lock directory
	Session time.Duration `json:"session"`
	Data    string        `json:"data,omitempty"`   // the znode the holder writes (pause)
	Naive   string        `json:"naive,omitempty"`  // URL of the unfenced store (pause)
	Fenced  string        `json:"fenced,omitempty"` // URL of the fenced store (pause)
}

// childMsg is one thing the child says. Event is one of the childSays
// constants; Answer is the answer it got (a store's, ZooKeeper's, a lock's).
type childMsg struct {
	Event  childSays `json:"event"`
	Token  int64     `json:"token,omitempty"`
	Node   string    `json:"node,omitempty"`
	Lost   bool      `json:"lost,omitempty"`
	Answer string    `json:"answer,omitempty"`
}

type childSays string

const (
	saysHolding  childSays = "holding"           // Token, Node
	saysLostSeen childSays = "lost-before-write" // Lost: had Lost() closed when it resumed
	saysReenter  childSays = "reenter"           // 06 only: "ok" or Lock's error
	saysNaive    childSays = "naive"             // the unfenced store's answer
	saysFenced   childSays = "fenced"            // the fenced store's answer
	saysZKMulti  childSays = "zkmulti"           // "accepted" or "refused: …"
	saysSession  childSays = "session"           // "ended; a new lock on it: …" or "still open"
	saysDone     childSays = "done"
	saysError    childSays = "error" // Answer: what went wrong; it then exits
)

// processSession is the session timeout of the crash and pause tests.
const processSession = 3 * time.Second

// resourceSession is the session timeout of the paused holder's resource
// client: long enough to outlive the pause, so that its stale write goes
// straight in when the process resumes.
const resourceSession = 30 * time.Second

// childMain is a lock holder in a process of its own. It takes the lock,
// says saysHolding, and then:
//   - hold: waits until its stdin closes (the test died) or it is killed;
//   - pause: waits for a line on stdin — the test SIGSTOPs it meanwhile and
//     sends the line just before SIGCONT — and then, like a program whose
//     GC pause ended, carries on with its critical section as if nothing
//     had happened: it writes with the token it had, to the naive store, to
//     the fenced store and with a fenced multi in ZooKeeper, and reports
//     each answer.
func childMain(cfg childConfig, err error) int {
	fail := func(format string, args ...any) int {
		childproc.Say(childMsg{Event: saysError, Answer: fmt.Sprintf(format, args...)})
		return 1
	}
	if err != nil {
		return fail("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	k, err := kindNamed(cfg.Kind)
	if err != nil {
		return fail("%v", err)
	}
	sess, err := seqlock.NewSession(ctx, []string{cfg.ZK}, seqlock.WithSessionTimeout(cfg.Session))
	if err != nil {
		return fail("%v", err)
	}
	defer sess.Close()
	// The resource is not the lock service: the holder writes the data
	// znode through a client of its own, as it would write a database. Its
	// lock's Session ends with the expiry (its conn is closed: a ZooKeeper
	// handle is dead after Expired), its resource client does not.
	res, _, err := zksession.Connect(ctx, []string{cfg.ZK}, resourceSession)
	if err != nil {
		return fail("resource client: %v", err)
	}
	defer res.Close()
	h, err := k.new(sess, cfg.Dir, nil)
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
	childproc.Say(childMsg{Event: saysHolding, Token: token, Node: node})

	stdin := bufio.NewScanner(os.Stdin)
	if cfg.Role == "hold" {
		for stdin.Scan() {
		}
		return 0
	}
	if !stdin.Scan() {
		return fail("stdin closed before GO")
	}
	// Resumed. A real program would not look at Lost between two lines of
	// its critical section; we only report whether it had closed.
	childproc.Say(childMsg{Event: saysLostSeen, Lost: isClosed(h.Lost())})
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
		childproc.Say(childMsg{Event: saysReenter, Answer: answer})
	}
	value := "written by the paused holder, token " + strconv.FormatInt(token, 10)
	childproc.Say(childMsg{Event: saysNaive, Answer: httpWrite(cfg.Naive, token, value)})
	childproc.Say(childMsg{Event: saysFenced, Answer: httpWrite(cfg.Fenced, token, value)})
	// A request sent while go-zookeeper is still finding out that the
	// connection is dead fails without reaching ZooKeeper. A program would
	// retry that, so we do: the answer that counts is ZooKeeper's own.
	err = fencedSet(res, node, cfg.Data, []byte(value))
	for retry := 0; retry < 50 && (errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionExpired)); retry++ {
		time.Sleep(200 * time.Millisecond)
		err = fencedSet(res, node, cfg.Data, []byte(value))
	}
	if err != nil {
		childproc.Say(childMsg{Event: saysZKMulti, Answer: "refused: " + err.Error()})
	} else {
		childproc.Say(childMsg{Event: saysZKMulti, Answer: "accepted"})
	}
	// The lock's Session was one ZooKeeper session, and the server ended
	// it: once the conn hears so, Done closes, and a lock on it says
	// ErrSessionExpired at once; the program must open a new Session.
	select {
	case <-sess.Done():
		again, err := k.new(sess, cfg.Dir, nil)
		if err == nil {
			err = again.Lock(ctx)
		}
		childproc.Say(childMsg{Event: saysSession, Answer: fmt.Sprintf("ended; a new lock on it: %v", err)})
	case <-ctx.Done():
		childproc.Say(childMsg{Event: saysSession, Answer: "still open"})
	}
	childproc.Say(childMsg{Event: saysDone})
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
type child struct{ *childproc.Child[childMsg] }

func startChild(t *testing.T, cfg childConfig) child {
	t.Helper()
	return child{childproc.Start[childMsg](t, childEnv, cfg)}
}

// expect returns the child's next message, which must be event.
func (c child) expect(t *testing.T, event childSays) childMsg {
	t.Helper()
	m := c.Next(t, patience)
	if m.Event != event {
		t.Fatalf("the child said %+v, want %q", m, event)
	}
	return m
}

// holding waits for the child to hold the lock: its token and node.
func (c child) holding(t *testing.T) (int64, string) {
	t.Helper()
	m := c.expect(t, saysHolding)
	return m.Token, m.Node
}

func holderConfig(t *testing.T, role string, k kind, dir string) childConfig {
	return childConfig{Role: role, ZK: zktest.Servers(t)[0], Kind: k.name, Dir: dir, Session: processSession}
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
			c := startChild(t, holderConfig(t, "hold", k, dir))
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
			if err := c.Signal(syscall.SIGKILL); err != nil {
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

			cfg := holderConfig(t, "pause", k, dir)
			cfg.Data, cfg.Naive, cfg.Fenced = data, naiveSrv.URL, fencedSrv.URL
			c := startChild(t, cfg)
			staleToken, _ := c.holding(t)

			next := newHolder(t, k, ns, dir, nil)
			locked := make(chan error, 1)
			go func() { locked <- next.Lock(ctxFor(t)) }()
			waitQueued(t, conn, dir, 2)

			// The pause: the holder stops between two lines of code.
			if err := c.Signal(syscall.SIGSTOP); err != nil {
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
			if err := c.Send("GO"); err != nil {
				t.Fatal(err)
			}
			if err := c.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			lostSeen := c.expect(t, saysLostSeen).Lost
			if k.name == "06-reentrant" {
				reenter := c.expect(t, saysReenter).Answer
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
			naiveAnswer := c.expect(t, saysNaive).Answer
			fencedAnswer := c.expect(t, saysFenced).Answer
			multiAnswer := c.expect(t, saysZKMulti).Answer
			sessionAnswer := c.expect(t, saysSession).Answer
			t.Logf("resumed holder (token %d, new holder's %d): Lost closed before its write: %v; naive store: %s; fenced store: %s; ZooKeeper multi: %s; its lock's session: %s",
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
