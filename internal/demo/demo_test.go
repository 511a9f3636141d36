package demo

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// processLock is an in-process mutex standing in for a chapter's lock, so
// these tests exercise the harness (flags, workers, counter, timeline) and
// nothing else. All workers of a Run share it.
type processLock struct {
	mu  *sync.Mutex
	obs event.Observer
}

func (l processLock) Lock(context.Context) error {
	l.mu.Lock()
	l.obs.Emit(event.Event{Kind: event.Acquired, Node: "/x/lock"})
	return nil
}

func (l processLock) Unlock(context.Context) error {
	l.obs.Emit(event.Event{Kind: event.Released, Node: "/x/lock"})
	l.mu.Unlock()
	return nil
}

func chapter() Chapter {
	var mu sync.Mutex
	return Chapter{Name: "test", Title: "a test chapter",
		NewLock: func(_ *zk.Conn, _ string, obs event.Observer) (Locker, error) { return processLock{&mu, obs}, nil }}
}

func config(t *testing.T) Config {
	root := zktest.Root(t)
	return Config{Servers: strings.Join(zktest.Servers(t), ","), Path: root + "/lock", Workers: 3, Rounds: 2,
		Hold: time.Millisecond, Session: 4 * time.Second}
}

func TestRun(t *testing.T) {
	t.Run("with a lock the counter ends exactly at workers×rounds and the last line says so", func(t *testing.T) {
		var out bytes.Buffer
		res, err := Run(context.Background(), chapter(), config(t), &out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Final != 6 || res.Expected != 6 {
			t.Fatalf("final %d expected %d", res.Final, res.Expected)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if last := lines[len(lines)-1]; last != "counter=6 expected=6" {
			t.Fatalf("last line %q", last)
		}
		if !strings.Contains(out.String(), "worker-2 acquired lock") {
			t.Fatalf("the timeline has no acquisitions:\n%s", out.String())
		}
	})
	t.Run("an existing counter is left as is and expected counts from it", func(t *testing.T) {
		cfg := config(t)
		admin := zktest.Connect(t)
		if _, err := admin.Create(parent(cfg.Path)+"/counter", []byte("40"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), chapter(), cfg, &bytes.Buffer{})
		if err != nil || res.Start != 40 || res.Final != 46 || res.Expected != 46 {
			t.Fatalf("res %+v, err %v", res, err)
		}
	})
	t.Run("-quiet prints only acquisitions, releases and the result", func(t *testing.T) {
		cfg := config(t)
		cfg.Quiet = true
		var out bytes.Buffer
		if _, err := Run(context.Background(), chapter(), cfg, &out); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "counter 0 → 1") {
			t.Fatalf("-quiet printed counter updates:\n%s", out.String())
		}
	})
	t.Run("a counter that is not a number is a clear error", func(t *testing.T) {
		cfg := config(t)
		admin := zktest.Connect(t)
		admin.Create(parent(cfg.Path)+"/counter", []byte("forty"), 0, zk.WorldACL(zk.PermAll))
		_, err := Run(context.Background(), chapter(), cfg, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "not a number") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{Path: "/a/lock", Workers: 0, Rounds: 1, Session: time.Second},
		{Path: "/a/lock", Workers: 1, Rounds: 0, Session: time.Second},
		{Path: "/a/lock", Workers: 1, Rounds: 1, Hold: -time.Second, Session: time.Second},
		{Path: "/a/lock", Workers: 1, Rounds: 1, Session: 0},
		{Path: "relative", Workers: 1, Rounds: 1, Session: time.Second},
		{Path: "/a//lock", Workers: 1, Rounds: 1, Session: time.Second},
		{Path: "/lock", Counter: "/a/", Workers: 1, Rounds: 1, Session: time.Second},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v was accepted", c)
		}
	}
	c := Config{Path: "/a/b/lock", Workers: 1, Rounds: 1, Session: time.Second}
	if err := c.Validate(); err != nil || c.Counter != "/a/b/counter" {
		t.Fatalf("counter %q, err %v: the counter defaults to beside the lock", c.Counter, err)
	}
}
