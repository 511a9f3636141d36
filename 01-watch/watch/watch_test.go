package watch_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/01-watch/watch"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// limit bounds every wait for something that must happen. A limit, never an
// expectation: on a healthy server these take milliseconds.
const limit = 30 * time.Second

// quietWindow is how long a test listens to show that an event does NOT come.
const quietWindow = 500 * time.Millisecond

// TestAWatchFiresOnce is the first rule: one registration, one event.
func TestAWatchFiresOnce(t *testing.T) {
	t.Run("a second change is not delivered until the watch is set again", func(t *testing.T) {
		root := zktest.Root(t)
		node := root + "/value"
		rec := &recorder{path: node}
		conn := zktest.Connect(t, zk.WithEventCallback(rec.observe))
		writer := zktest.Connect(t)
		create(t, writer, node, "0", 0)

		_, _, ch, err := conn.GetW(node)
		if err != nil {
			t.Fatal(err)
		}
		set(t, writer, node, "1")
		if ev := receive(t, ch); ev.Type != zk.EventNodeDataChanged {
			t.Fatalf("first change: got %v, want EventNodeDataChanged", ev.Type)
		}

		set(t, writer, node, "2")
		// The server sends nothing more: the callback sees every event this
		// session receives, not only those that reach a channel.
		time.Sleep(quietWindow)
		if n := len(rec.events()); n != 1 {
			t.Fatalf("after the second change the session received %d events for %s, want still 1: %v", n, node, rec.events())
		}
		if ev, ok := <-ch; ok {
			t.Fatalf("the used-up watch channel delivered a second event: %+v", ev)
		}

		// Set the watch again (and read: the event said only "changed").
		data, _, ch, err := conn.GetW(node)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != "2" {
			t.Fatalf("re-read after the event: got %q, want %q", data, "2")
		}
		set(t, writer, node, "3")
		if ev := receive(t, ch); ev.Type != zk.EventNodeDataChanged {
			t.Fatalf("after re-registering: got %v, want EventNodeDataChanged", ev.Type)
		}
		if n := len(rec.events()); n != 2 {
			t.Fatalf("the session received %d events for %s, want 2 (one per registration)", n, node)
		}
	})

	t.Run("the event carries the path and type but no data", func(t *testing.T) {
		root := zktest.Root(t)
		node := root + "/value"
		conn := zktest.Connect(t)
		create(t, conn, node, "old", 0)
		_, _, ch, err := conn.GetW(node)
		if err != nil {
			t.Fatal(err)
		}
		set(t, conn, node, "new")
		ev := receive(t, ch)
		// zk.Event has no field for data at all: that is the point. What it
		// has is where to look and what kind of change happened.
		if ev.Path != node || ev.Type != zk.EventNodeDataChanged || ev.State != zk.StateSyncConnected {
			t.Fatalf("got %+v, want path %s, EventNodeDataChanged, StateSyncConnected", ev, node)
		}
	})
}

// TestEachEventTypeArrivesOncePerRegistration triggers each kind of change
// twice after one registration: exactly one event reaches the session.
func TestEachEventTypeArrivesOncePerRegistration(t *testing.T) {
	cases := []struct {
		name    string
		want    zk.EventType
		prepare func(t *testing.T, c *zk.Conn, node string)
		watch   func(c *zk.Conn, node string) (<-chan zk.Event, error)
		change  func(t *testing.T, c *zk.Conn, node string) // run twice
	}{
		{
			name: "an exists-watch on a missing node sees it created",
			want: zk.EventNodeCreated,
			watch: func(c *zk.Conn, node string) (<-chan zk.Event, error) {
				_, _, ch, err := c.ExistsW(node)
				return ch, err
			},
			change: func(t *testing.T, c *zk.Conn, node string) {
				create(t, c, node, "", 0)
				del(t, c, node)
			},
		},
		{
			name:    "a data watch sees the data changed",
			want:    zk.EventNodeDataChanged,
			prepare: func(t *testing.T, c *zk.Conn, node string) { create(t, c, node, "0", 0) },
			watch: func(c *zk.Conn, node string) (<-chan zk.Event, error) {
				_, _, ch, err := c.GetW(node)
				return ch, err
			},
			change: func(t *testing.T, c *zk.Conn, node string) { set(t, c, node, "x") },
		},
		{
			name:    "a child watch sees the children changed",
			want:    zk.EventNodeChildrenChanged,
			prepare: func(t *testing.T, c *zk.Conn, node string) { create(t, c, node, "", 0) },
			watch: func(c *zk.Conn, node string) (<-chan zk.Event, error) {
				_, _, ch, err := c.ChildrenW(node)
				return ch, err
			},
			change: func(t *testing.T, c *zk.Conn, node string) {
				name, err := c.Create(node+"/child-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
				if err != nil {
					t.Fatal(err)
				}
				del(t, c, name)
			},
		},
		{
			name:    "an exists-watch sees the node deleted",
			want:    zk.EventNodeDeleted,
			prepare: func(t *testing.T, c *zk.Conn, node string) { create(t, c, node, "", 0) },
			watch: func(c *zk.Conn, node string) (<-chan zk.Event, error) {
				_, _, ch, err := c.ExistsW(node)
				return ch, err
			},
			change: func(t *testing.T, c *zk.Conn, node string) {
				del(t, c, node)
				create(t, c, node, "", 0)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := zktest.Root(t) + "/node"
			rec := &recorder{path: node}
			conn := zktest.Connect(t, zk.WithEventCallback(rec.observe))
			writer := zktest.Connect(t)
			if tc.prepare != nil {
				tc.prepare(t, writer, node)
			}
			ch, err := tc.watch(conn, node)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(t, writer, node)
			tc.change(t, writer, node)

			ev := receive(t, ch)
			if ev.Type != tc.want || ev.Path != node {
				t.Fatalf("got %v on %s, want %v on %s", ev.Type, ev.Path, tc.want, node)
			}
			if ev, ok := <-ch; ok {
				t.Fatalf("the watch channel delivered a second event: %+v", ev)
			}
			time.Sleep(quietWindow)
			if got := rec.events(); len(got) != 1 {
				t.Fatalf("the session received %d events for %s after two changes, want 1: %v", len(got), node, got)
			}
		})
	}
}

func TestNodeTypes(t *testing.T) {
	t.Run("an ephemeral node is gone when its session closes, a persistent one stays", func(t *testing.T) {
		root := zktest.Root(t)
		conn := zktest.Connect(t)
		owner := zktest.Connect(t)
		eph, kept := root+"/ephemeral", root+"/persistent"
		create(t, owner, eph, "", zk.FlagEphemeral)
		create(t, owner, kept, "", 0)
		_, _, ch, err := conn.ExistsW(eph)
		if err != nil {
			t.Fatal(err)
		}
		owner.Close()
		if ev := receive(t, ch); ev.Type != zk.EventNodeDeleted {
			t.Fatalf("got %v, want EventNodeDeleted when the owner's session closed", ev.Type)
		}
		if ok, _, err := conn.Exists(eph); err != nil || ok {
			t.Fatalf("ephemeral after its session closed: exists=%v err=%v, want gone", ok, err)
		}
		if ok, _, err := conn.Exists(kept); err != nil || !ok {
			t.Fatalf("persistent after its creator's session closed: exists=%v err=%v, want still there", ok, err)
		}
	})

	t.Run("sequential nodes get strictly increasing 10-digit counters", func(t *testing.T) {
		dir := zktest.Root(t)
		const clients, each = 3, 10
		names := make([][]string, clients)
		var wg sync.WaitGroup
		for i := range clients {
			conn := zktest.Connect(t)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					name, err := conn.Create(dir+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
					if err != nil {
						t.Error(err)
						return
					}
					names[i] = append(names[i], path.Base(name))
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		tenDigits := regexp.MustCompile(`^n-(\d{10})$`)
		var all []int
		for i, list := range names {
			prev := -1
			for _, name := range list {
				m := tenDigits.FindStringSubmatch(name)
				if m == nil {
					t.Fatalf("client %d got %q, want n- and 10 digits", i, name)
				}
				n, _ := strconv.Atoi(m[1])
				if n <= prev {
					t.Fatalf("client %d got %s after %010d: not increasing", i, name, prev)
				}
				prev = n
				all = append(all, n)
			}
		}
		// The counter belongs to the parent: every create under it, from any
		// client, takes the next number — none twice, none skipped.
		slices.Sort(all)
		for i, n := range all {
			if n != i {
				t.Fatalf("counters %v: want exactly 0..%d", all, clients*each-1)
			}
		}
	})

	t.Run("Set with a stale version is rejected with ErrBadVersion", func(t *testing.T) {
		node := zktest.Root(t) + "/cas"
		a, b := zktest.Connect(t), zktest.Connect(t)
		create(t, a, node, "0", 0)
		_, statA, err := a.Get(node)
		if err != nil {
			t.Fatal(err)
		}
		_, statB, err := b.Get(node)
		if err != nil {
			t.Fatal(err)
		}
		// Both read version 0; both try to write "what I read, plus one".
		if _, err := a.Set(node, []byte("1 from a"), statA.Version); err != nil {
			t.Fatalf("first compare-and-swap: %v", err)
		}
		if _, err := b.Set(node, []byte("1 from b"), statB.Version); !errors.Is(err, zk.ErrBadVersion) {
			t.Fatalf("second compare-and-swap with version %d: got %v, want zk.ErrBadVersion", statB.Version, err)
		}
		data, stat, err := b.Get(node)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != "1 from a" || stat.Version != 1 {
			t.Fatalf("node holds %q version %d, want %q version 1", data, stat.Version, "1 from a")
		}
	})
}

func TestSessionExpiry(t *testing.T) {
	t.Run("the client sees StateExpired, its watches fire NotWatching, and it gets a new session", func(t *testing.T) {
		root := zktest.Root(t)
		const timeout = time.Second
		states := &stateRecorder{}
		conn, proxy := zktest.ConnectViaProxy(t, timeout, zk.WithEventCallback(states.observe))

		eph := root + "/ephemeral"
		create(t, conn, eph, "", zk.FlagEphemeral)
		_, _, ch, err := conn.ExistsW(eph)
		if err != nil {
			t.Fatal(err)
		}
		oldID := conn.SessionID()
		start := time.Now()
		zktest.Expire(t, conn, proxy)
		zktest.Eventually(t, limit, "a new session", func() bool { return conn.State() == zk.StateHasSession })
		t.Logf("session %#x expired and %#x opened in %v; states %v", oldID, conn.SessionID(), time.Since(start), states.seen())

		if !slices.Contains(states.seen(), zk.StateExpired) {
			t.Fatalf("states seen %v: no StateExpired", states.seen())
		}
		if conn.SessionID() == oldID {
			t.Fatalf("session ID still %#x after expiry, want a new session", oldID)
		}
		ev := receive(t, ch)
		if ev.Type != zk.EventNotWatching || !errors.Is(ev.Err, zk.ErrSessionExpired) {
			t.Fatalf("the watch got %+v, want EventNotWatching with zk.ErrSessionExpired", ev)
		}
		if ok, _, err := zktest.Connect(t).Exists(eph); err != nil || ok {
			t.Fatalf("ephemeral of the expired session: exists=%v err=%v, want gone", ok, err)
		}
	})
}

func TestLoop(t *testing.T) {
	t.Run("it re-registers after every change and sees each value when the writer waits", func(t *testing.T) {
		node := zktest.Root(t) + "/value"
		conn, writer := zktest.Connect(t), zktest.Connect(t)
		create(t, writer, node, "0", 0)
		tally := &event.Tally{}
		h := startLoop(t, conn, node, watch.WithObserver(tally.Observe))
		var seen []string
		for i := 1; i <= 5; i++ {
			seen = append(seen, string(h.next(t).Data))
			set(t, writer, node, strconv.Itoa(i))
			h.ack()
		}
		seen = append(seen, string(h.next(t).Data))
		if want := []string{"0", "1", "2", "3", "4", "5"}; !slices.Equal(seen, want) {
			t.Fatalf("loop saw %v, want %v", seen, want)
		}
		// One watch per read, one notification per change.
		if got := tally.Count(event.WatchSet); got != 6 {
			t.Fatalf("watches set: %d, want 6 (one per read)", got)
		}
		if got := tally.Count(event.Notified); got != 5 {
			t.Fatalf("notifications: %d, want 5 (one per change)", got)
		}
	})

	t.Run("it sees the final value and never a value out of order, even when it skips", func(t *testing.T) {
		node := zktest.Root(t) + "/value"
		conn, writer := zktest.Connect(t), zktest.Connect(t)
		create(t, writer, node, "0", 0)
		const last = 50
		var mu sync.Mutex
		var seen []int
		final := make(chan struct{})
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			errc <- watch.Loop(ctx, conn, node, func(v watch.Value) error {
				n, err := strconv.Atoi(string(v.Data))
				if err != nil {
					return err
				}
				mu.Lock()
				seen = append(seen, n)
				mu.Unlock()
				if n == last {
					close(final)
				}
				return nil
			})
		}()
		for i := 1; i <= last; i++ { // as fast as the writer can go
			set(t, writer, node, strconv.Itoa(i))
		}
		select {
		case <-final:
		case err := <-errc:
			t.Fatalf("loop stopped before seeing %d: %v", last, err)
		case <-ctx.Done():
			t.Fatalf("loop never saw the final value %d", last)
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("loop returned %v, want context.Canceled", err)
		}
		mu.Lock()
		defer mu.Unlock()
		for i := 1; i < len(seen); i++ {
			if seen[i] <= seen[i-1] {
				t.Fatalf("loop saw %d after %d: out of order (%v)", seen[i], seen[i-1], seen)
			}
		}
		t.Logf("the loop saw %d of the %d values 0..%d (skipped %d): %v", len(seen), last+1, last, last+1-len(seen), seen)
	})

	t.Run("a busy handler misses the values written while it works", func(t *testing.T) {
		node := zktest.Root(t) + "/value"
		conn, writer := zktest.Connect(t), zktest.Connect(t)
		create(t, writer, node, "0", 0)
		h := startLoop(t, conn, node)
		var seen []string
		seen = append(seen, string(h.next(t).Data))
		set(t, writer, node, "1")
		h.ack()
		seen = append(seen, string(h.next(t).Data))
		// The watch set by the read of "1" fires once, for "2"; by the time
		// the handler returns and the loop reads again, the node holds "3".
		set(t, writer, node, "2")
		set(t, writer, node, "3")
		h.ack()
		seen = append(seen, string(h.next(t).Data))
		if want := []string{"0", "1", "3"}; !slices.Equal(seen, want) {
			t.Fatalf("loop saw %v, want %v", seen, want)
		}
	})

	t.Run("it follows a node through creation and deletion", func(t *testing.T) {
		node := zktest.Root(t) + "/value"
		conn, writer := zktest.Connect(t), zktest.Connect(t)
		h := startLoop(t, conn, node)
		if v := h.next(t); v.Exists {
			t.Fatalf("missing node: got %v, want (no node)", v)
		}
		create(t, writer, node, "here", 0)
		h.ack()
		if v := h.next(t); !v.Exists || string(v.Data) != "here" {
			t.Fatalf("after create: got %v, want \"here\"", v)
		}
		del(t, writer, node)
		h.ack()
		if v := h.next(t); v.Exists {
			t.Fatalf("after delete: got %v, want (no node)", v)
		}
	})

	t.Run("it keeps watching after its session expires", func(t *testing.T) {
		node := zktest.Root(t) + "/value"
		const timeout = time.Second
		conn, proxy := zktest.ConnectViaProxy(t, timeout)
		writer := zktest.Connect(t)
		create(t, writer, node, "before", 0)
		h := startLoop(t, conn, node)
		if v := h.next(t); string(v.Data) != "before" {
			t.Fatalf("got %v, want \"before\"", v)
		}
		h.ack()
		oldID := conn.SessionID()
		zktest.Expire(t, conn, proxy)
		// The expiry fires the loop's watch (EventNotWatching); the loop
		// reads again on the new session and sets a new watch.
		if v := h.next(t); string(v.Data) != "before" {
			t.Fatalf("after expiry: got %v, want \"before\" again", v)
		}
		set(t, writer, node, "after")
		h.ack()
		if v := h.next(t); string(v.Data) != "after" {
			t.Fatalf("after expiry and a change: got %v, want \"after\"", v)
		}
		if conn.SessionID() == oldID {
			t.Fatalf("session %#x did not expire", oldID)
		}
	})

	t.Run("it returns the handler's error, ctx's error, or the closed connection's", func(t *testing.T) {
		node := zktest.Root(t) + "/value"
		conn := zktest.Connect(t)
		create(t, conn, node, "0", 0)
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()

		stop := errors.New("enough")
		if err := watch.Loop(ctx, conn, node, func(watch.Value) error { return stop }); !errors.Is(err, stop) {
			t.Fatalf("handler error: Loop returned %v, want %v", err, stop)
		}

		cctx, ccancel := context.WithCancel(ctx)
		err := watch.Loop(cctx, conn, node, func(watch.Value) error { ccancel(); return nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled ctx: Loop returned %v, want context.Canceled", err)
		}

		closing := zktest.Connect(t)
		err = watch.Loop(ctx, closing, node, func(watch.Value) error { closing.Close(); return nil })
		if !errors.Is(err, zk.ErrClosing) && !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("closed connection: Loop returned %v, want zk.ErrClosing or zk.ErrConnectionClosed", err)
		}
	})

	t.Run("bad input is an error, not a hang", func(t *testing.T) {
		conn := zktest.Connect(t)
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		fn := func(watch.Value) error { return errors.New("must not be called") }
		if err := watch.Loop(ctx, nil, "/x", fn); !errors.Is(err, watch.ErrNilConn) {
			t.Errorf("nil conn: got %v, want ErrNilConn", err)
		}
		if err := watch.Loop(ctx, conn, "/x", nil); !errors.Is(err, watch.ErrNilFunc) {
			t.Errorf("nil func: got %v, want ErrNilFunc", err)
		}
		for _, p := range []string{"", "relative", "/trailing/", "/double//slash", "/", "/nul\x00"} {
			if err := watch.Loop(ctx, conn, p, fn); !errors.Is(err, zkpath.ErrInvalid) {
				t.Errorf("path %q: got %v, want zkpath.ErrInvalid", p, err)
			}
		}
	})
}

// ExampleLoop watches a node that does not exist yet. The handler itself
// creates it, then changes it, and stops the loop on the third value.
func ExampleLoop() {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	conn, events, err := zksession.Connect(ctx, zktest.ExampleServers(), zksession.DefaultTimeout)
	if err != nil {
		fmt.Println(err)
		return
	}
	go zksession.Drain(events)
	defer conn.Close()
	dir, err := conn.Create("/example-loop-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer zktest.DeleteTree(conn, dir)
	node := dir + "/greeting"

	errDone := errors.New("done")
	err = watch.Loop(ctx, conn, node, func(v watch.Value) error {
		fmt.Println(v)
		switch {
		case !v.Exists:
			_, err := conn.Create(node, []byte("hello"), 0, zk.WorldACL(zk.PermAll))
			return err
		case string(v.Data) == "hello":
			_, err := conn.Set(node, []byte("world"), v.Version)
			return err
		}
		return errDone
	})
	fmt.Println(errors.Is(err, errDone))
	// Output:
	// (no node)
	// "hello" (version 0)
	// "world" (version 1)
	// true
}

// ─── helpers ────────────────────────────────────────────────────────────────

// recorder keeps the node events a session receives for one path, through
// zk.WithEventCallback: it sees what the server sent, whether or not a watch
// channel was there to take it.
type recorder struct {
	path string
	mu   sync.Mutex
	evs  []zk.Event
}

func (r *recorder) observe(ev zk.Event) {
	if ev.Path != r.path || ev.Type == zk.EventSession || ev.Type == zk.EventNotWatching {
		return
	}
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

func (r *recorder) events() []zk.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// stateRecorder keeps the session states a connection goes through.
type stateRecorder struct {
	mu     sync.Mutex
	states []zk.State
}

func (r *stateRecorder) observe(ev zk.Event) {
	if ev.Type == zk.EventSession {
		r.mu.Lock()
		r.states = append(r.states, ev.State)
		r.mu.Unlock()
	}
}

func (r *stateRecorder) seen() []zk.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.states)
}

// loopHandle runs watch.Loop with a handler that hands each value to the
// test and returns only when the test calls ack: the test decides what is
// written while the handler is busy.
type loopHandle struct {
	values chan watch.Value
	acks   chan struct{}
	errc   chan error
}

func startLoop(t *testing.T, conn *zk.Conn, node string, opts ...watch.Option) *loopHandle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	h := &loopHandle{values: make(chan watch.Value), acks: make(chan struct{}), errc: make(chan error, 1)}
	go func() {
		h.errc <- watch.Loop(ctx, conn, node, func(v watch.Value) error {
			select {
			case h.values <- v:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case <-h.acks:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, opts...)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-h.errc; !errors.Is(err, context.Canceled) {
			t.Errorf("loop ended with %v, want context.Canceled", err)
		}
	})
	return h
}

func (h *loopHandle) next(t *testing.T) watch.Value {
	t.Helper()
	select {
	case v := <-h.values:
		return v
	case err := <-h.errc:
		h.errc <- err // for the cleanup
		t.Fatalf("loop stopped: %v", err)
	case <-time.After(limit):
		t.Fatalf("no value from the loop after %v", limit)
	}
	return watch.Value{}
}

func (h *loopHandle) ack() { h.acks <- struct{}{} }

func receive(t *testing.T, ch <-chan zk.Event) zk.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed without an event")
		}
		return ev
	case <-time.After(limit):
		t.Fatalf("no watch event after %v", limit)
	}
	return zk.Event{}
}

func create(t *testing.T, c *zk.Conn, p, data string, flags int32) {
	t.Helper()
	if _, err := c.Create(p, []byte(data), flags, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
}

func set(t *testing.T, c *zk.Conn, p, data string) {
	t.Helper()
	if _, err := c.Set(p, []byte(data), -1); err != nil {
		t.Fatalf("set %s: %v", p, err)
	}
}

func del(t *testing.T, c *zk.Conn, p string) {
	t.Helper()
	if err := c.Delete(p, -1); err != nil {
		t.Fatalf("delete %s: %v", p, err)
	}
}
