package observe_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/visualizer/observe"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// frames is an io.Writer that tells the test each time RunObserve wrote a
// frame, so the test can act between two frames.
type frames struct {
	mu    sync.Mutex
	all   []string
	wrote chan int
}

func (f *frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.all = append(f.all, string(p))
	n := len(f.all)
	f.mu.Unlock()
	select {
	case f.wrote <- n:
	default:
	}
	return len(p), nil
}

func (f *frames) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.all[len(f.all)-1]
}

// watchDir starts an observer on dir on a session of its own; it stops
// before the test's sessions close.
func watchDir(t *testing.T, dir string) *observe.Observer {
	t.Helper()
	conn := zktest.Connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	obs := observe.Start(ctx, conn, dir)
	t.Cleanup(func() { cancel(); <-obs.Done() })
	return obs
}

func TestObserverShowsOurMutexesQueue(t *testing.T) {
	ctx := zktest.Context(t)
	dir := zktest.Root(t) + "/lock"
	// Three of chapter 04's mutexes, each on a session of its own, each
	// naming its owner in its node (seqlock.WithData); a fourth stores
	// nothing, so the observer names it by its session.
	var locks []*seqlock.Mutex
	var sessions []*seqlock.Session
	for i := range 4 {
		s := zktest.DialSession(t, seqlock.NewSession)
		var opts []seqlock.Option
		if i < 3 {
			opts = append(opts, seqlock.WithData([]byte(fmt.Sprintf("worker-%d", i+1))))
		}
		l, err := seqlock.New(s, dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		locks, sessions = append(locks, l), append(sessions, s)
	}
	if err := locks[0].Lock(ctx); err != nil {
		t.Fatal(err)
	}
	obs := watchDir(t, dir)
	got := make(chan error, 3)
	for _, l := range locks[1:] {
		go func() { got <- l.Lock(ctx) }()
		// One at a time, so the queue's order is the one written here.
		time.Sleep(100 * time.Millisecond)
	}

	out := &frames{wrote: make(chan int, 8)}
	done := make(chan error, 1)
	go func() {
		done <- tui.RunObserve(ctx, obs, tui.ObserveOptions{Dir: dir, Frames: 8, Interval: 250 * time.Millisecond,
			Width: 80, Height: 24, Out: out})
	}()
	// After the first frame, worker-1 lets go: worker-2 holds next.
	zktest.Await(t, out.wrote, "the first frame")
	first := out.last()
	if err := locks[0].Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	final := out.last()
	t.Logf("first frame:\n%s\nlast frame:\n%s", first, final)

	t.Run("the first frame shows the holder and the queue behind it, in order", func(t *testing.T) {
		for _, want := range []string{"4 queued", "holder lock-0000000000 (worker-1)", "▶ lock-0000000000 worker-1 HOLDS"} {
			if !strings.Contains(first, want) {
				t.Errorf("first frame lacks %q", want)
			}
		}
		w2, w3 := strings.Index(first, "lock-0000000001 worker-2"), strings.Index(first, "lock-0000000002 worker-3")
		w4 := strings.Index(first, fmt.Sprintf("lock-0000000003 0x%x", sessions[3].Conn().SessionID()))
		if w2 < 0 || w3 < w2 || w4 < w3 {
			t.Errorf("want worker-2, worker-3, then the session of the fourth in the queue (at %d, %d, %d)", w2, w3, w4)
		}
	})
	t.Run("the last frame shows the hand-off and the new holder", func(t *testing.T) {
		for _, want := range []string{"3 queued", "holder lock-0000000001 (worker-2)", "▶ lock-0000000001 worker-2 HOLDS",
			"- lock-0000000000 releases (worker-1)", "▶ hand-off lock-0000000000 → lock-0000000001 (worker-2)", "1 in all"} {
			if !strings.Contains(final, want) {
				t.Errorf("last frame lacks %q", want)
			}
		}
	})
	// The rest take their turns, in queue order, and let go.
	for _, l := range locks[1:] {
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestObserverSortsBySequenceNotByName(t *testing.T) {
	dir := zktest.Root(t)
	conn := zktest.Connect(t)
	// Curator's protected names: a uuid before the sequence, so the later
	// node (…-lock-0000000001) sorts first by name.
	for _, uuid := range []string{"ffffffff-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000"} {
		if _, err := conn.Create(dir+"/_c_"+uuid+"-lock-", []byte("x"), zk.FlagEphemeral|zk.FlagSequence, zktest.ACL(conn)); err != nil {
			t.Fatal(err)
		}
	}
	obs := watchDir(t, dir)
	for _, m := range obs.Next() {
		if o, ok := m.(worldmsg.Observed); ok {
			var got []int64
			for _, n := range o.Queue.Nodes {
				got = append(got, n.Seq)
			}
			if len(got) != 2 || got[0] != 0 || got[1] != 1 || !strings.HasPrefix(o.Queue.Nodes[0].Name, "_c_ffff") {
				t.Fatalf("want sequence 0 (the ffff… name) then 1, got %v: %+v", got, o.Queue.Nodes)
			}
			return
		}
	}
	t.Fatal("no look at the directory in the first batch")
}

func TestObserverShowsGoZookeepersLock(t *testing.T) {
	dir := zktest.Root(t) + "/lock"
	first := zk.NewLock(zktest.Connect(t), dir, zk.WorldACL(zk.PermAll))
	if err := first.LockWithData([]byte("bob")); err != nil {
		t.Fatal(err)
	}
	second := zk.NewLock(zktest.Connect(t), dir, zk.WorldACL(zk.PermAll))
	locked := make(chan error, 1)
	go func() { locked <- second.Lock() }()
	obs := watchDir(t, dir)
	// The view's input until the second lock's node is queued.
	var last worldmsg.QueueSnapshot
	deadline := time.After(zktest.Patience)
	for len(last.Nodes) < 2 {
		got := make(chan []worldmsg.Msg, 1)
		go func() { got <- obs.Next() }()
		select {
		case items := <-got:
			for _, m := range items {
				if o, ok := m.(worldmsg.Observed); ok {
					last = o.Queue
				}
			}
		case <-deadline:
			t.Fatalf("no second node within %v: %+v", zktest.Patience, last)
		}
	}
	if h := last.Nodes[0]; h.Owner != "bob" || h.Seq != 0 || !strings.HasPrefix(h.Name, "_c_") {
		t.Errorf("holder %+v: want zk.Lock's protected node 0, owned by bob (its data)", h)
	}
	if w := last.Nodes[1]; w.Seq != 1 || !strings.HasPrefix(w.Owner, "0x") {
		t.Errorf("waiter %+v: want node 1, owned by its session (zk.Lock stores no data)", w)
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	if err := second.Unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestObserverSaysWhenItsLinkDropsAndComesBack(t *testing.T) {
	dir := zktest.Root(t)
	events := make(chan zk.Event, 64)
	conn, proxy := zktest.ConnectViaProxy(t, zksession.DefaultTimeout, zk.WithEventCallback(func(e zk.Event) {
		select {
		case events <- e:
		default:
		}
	}))
	ctx, cancel := context.WithCancel(context.Background())
	obs := observe.Start(ctx, conn, dir)
	go obs.Follow(events)
	t.Cleanup(func() { cancel(); <-obs.Done() })
	link := func(up bool) {
		t.Helper()
		deadline := time.After(zktest.Patience)
		for {
			got := make(chan []worldmsg.Msg, 1)
			go func() { got <- obs.Next() }()
			select {
			case items := <-got:
				for _, m := range items {
					if l, ok := m.(worldmsg.Link); ok && l.Up == up {
						return
					}
				}
			case <-deadline:
				t.Fatalf("no Link{Up: %v} within %v", up, zktest.Patience)
			}
		}
	}
	if err := proxy.Cut(); err != nil {
		t.Fatal(err)
	}
	link(false)
	proxy.Restore()
	link(true)
}
