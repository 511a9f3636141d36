package reliability_test

import (
	"context"
	"flag"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/childproc"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// soakFor is how long TestChaosSoak runs: bounded for CI, longer on demand
// (go test ./reliability/ -run Soak -soak 5m -v).
var soakFor = flag.Duration("soak", 30*time.Second, "how long TestChaosSoak injects faults")

// TestMain starts one ZooKeeper server for the package (zktest.Main), except
// in a child process: the crash and pause tests re-execute this test binary
// to get a lock holder they can SIGKILL or SIGSTOP, and that child must
// only run its part (see process_test.go), not a server of its own.
func TestMain(m *testing.M) {
	if cfg, ok, err := childproc.Config[childConfig](childEnv); ok {
		os.Exit(childMain(cfg, err))
	}
	zktest.Main(m)
}

// patience bounds every wait in this package: a limit, never an expectation.
const patience = 60 * time.Second

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

func newHolder(t testing.TB, k kind, s *seqlock.Session, dir string, obs event.Observer) holder {
	t.Helper()
	h, err := k.new(s, dir, obs)
	if err != nil {
		t.Fatalf("%s: new lock on %s: %v", k.name, dir, err)
	}
	return h
}

// sessionOn opens a Session on servers asking for d, closed when the test ends.
func sessionOn(t testing.TB, servers []string, d time.Duration) *seqlock.Session {
	t.Helper()
	s, err := seqlock.NewSession(ctxFor(t), servers, seqlock.WithSessionTimeout(d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// moments records, per owner, when its lock emitted Acquired and Lost: the
// instants the lock itself decided it holds or no longer holds, earlier
// than the caller's Lock returning or its select on Lost waking up.
type moments struct {
	mu       sync.Mutex
	acquired map[string][]time.Time
	lost     map[string][]time.Time
}

func newMoments() *moments {
	return &moments{acquired: map[string][]time.Time{}, lost: map[string][]time.Time{}}
}

func (m *moments) observer(owner string) event.Observer {
	return func(e event.Event) {
		now := e.Time // when the lock decided, even if it says so a moment later
		m.mu.Lock()
		defer m.mu.Unlock()
		switch e.Kind {
		case event.Acquired:
			m.acquired[owner] = append(m.acquired[owner], now)
		case event.Lost:
			m.lost[owner] = append(m.lost[owner], now)
		}
	}
}

// first returns the first time owner did kind, and whether it did.
func (m *moments) first(owner string, kind event.Kind) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.acquired[owner]
	if kind == event.Lost {
		list = m.lost[owner]
	}
	if len(list) == 0 {
		return time.Time{}, false
	}
	return list[0], true
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
