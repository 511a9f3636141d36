// Command 01-watch shows, against a real ZooKeeper, the four things every
// lock in this course is built from:
//
//  1. an exists-watch fires when its node is deleted;
//  2. the four node events (created, data changed, children changed,
//     deleted) and the session states a client goes through — up to a real
//     session expiry;
//  3. a watch fires once, and its event carries no data: to keep watching,
//     read again and watch again — by hand, or with watch.Loop — and accept
//     that values written in between can be skipped;
//  4. the node types: persistent, ephemeral (gone with its session),
//     sequential (a 10-digit counter appended by the server), and Set with a
//     version as compare-and-swap.
//
// Everything happens under a root of the run's own,
// /lockstep/01-watch/run-<random>, deleted at the end, so every run prints
// the same story — also with thirty learners on one server.
//
//	go run ./01-watch                    # starts a ZooKeeper if needed
//	go run ./01-watch -servers host:2181 # or uses yours
//	go run ./01-watch -tui               # the visualizer's view of watches
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/01-watch/watch"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

// program is the demo; the test compares what it prints with README.md.
var program = demo.Program{
	Name:         "01-watch",
	Session:      time.Second,
	SessionUsage: "session timeout to ask for, for the client whose session part 2 expires (the server may grant more)",
	TUI:          true,
	Run:          run,
}

func main() { demo.MainProgram(program) }

// eventWait bounds every wait for an event that must come. It is a limit,
// not an expectation: on a healthy server events arrive in milliseconds.
const eventWait = 10 * time.Second

// quietWait is how long the demo listens to show that an event does NOT come.
const quietWait = 500 * time.Millisecond

// lesson holds what every part of the lesson needs: where to print, the
// run's root, one client, and the demo's environment to open more.
type lesson struct {
	out  io.Writer
	root string
	conn *zk.Conn
	env  *demo.Env
}

func run(ctx context.Context, env *demo.Env) error {
	l := &lesson{out: env.Out, root: env.Root, conn: env.Admin, env: env}
	fmt.Fprintln(env.Out, "01-watch: ZooKeeper watches and node types")
	for _, step := range []func(context.Context) error{
		l.existsWatch, l.nodeEvents, l.sessionStates, l.fireOnce, l.keepWatching, l.nodeTypes,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintln(env.Out, "\ndone. Next, 02-naive-lock: a lock from one node — create it, or sleep and try again, in a while loop; waiting on a watch instead is 03's step.")
	return nil
}

// ─── 1. An exists-watch fires when its node is deleted ──────────────────────

func (l *lesson) existsWatch(ctx context.Context) error {
	l.title("1. An exists-watch fires when its node is deleted")
	node := l.root + "/node"
	if err := l.create(node, "", 0); err != nil {
		return err
	}
	// ExistsW asks "is it there?" and leaves a watch on the answer.
	exists, _, watchCh, err := l.conn.ExistsW(node)
	if err != nil {
		return fmt.Errorf("exists-watch %s: %w", node, err)
	}
	l.say("exists %s with a watch → %v", node, exists)
	if err := l.delete(node); err != nil {
		return err
	}
	_, err = l.event(ctx, watchCh)
	return err
}

// ─── 2. The four node events, and the session states ────────────────────────

func (l *lesson) nodeEvents(ctx context.Context) error {
	l.title("2. The four node events, one watch each")
	node := l.root + "/events"

	// NodeCreated: only an exists-watch can wait for a node that isn't there.
	_, _, ch, err := l.conn.ExistsW(node)
	if err != nil {
		return fmt.Errorf("exists-watch %s: %w", node, err)
	}
	l.say("exists-watch on %s (missing)", node)
	if err := l.create(node, "a", 0); err != nil {
		return err
	}
	if _, err := l.event(ctx, ch); err != nil {
		return err
	}

	// NodeDataChanged: a data watch (GetW) fires on the next Set.
	if _, _, ch, err = l.conn.GetW(node); err != nil {
		return fmt.Errorf("get-watch %s: %w", node, err)
	}
	l.say("get-watch on %s", node)
	if err := l.set(node, "b", -1); err != nil {
		return err
	}
	if _, err := l.event(ctx, ch); err != nil {
		return err
	}

	// NodeChildrenChanged: a child watch (ChildrenW) fires when a child is
	// created or deleted — not when a child's data changes.
	if _, _, ch, err = l.conn.ChildrenW(node); err != nil {
		return fmt.Errorf("children-watch %s: %w", node, err)
	}
	l.say("children-watch on %s", node)
	if err := l.create(node+"/child", "", 0); err != nil {
		return err
	}
	if _, err := l.event(ctx, ch); err != nil {
		return err
	}

	// NodeDeleted: every kind of watch on the node fires when it goes.
	if _, _, ch, err = l.conn.ExistsW(node); err != nil {
		return fmt.Errorf("exists-watch %s: %w", node, err)
	}
	l.say("exists-watch on %s", node)
	if err := l.delete(node + "/child"); err != nil {
		return err
	}
	if err := l.delete(node); err != nil {
		return err
	}
	_, err = l.event(ctx, ch)
	return err
}

// sessionStates connects a second client over a link of its own, so that
// client alone can be cut off long enough for the server to expire its session.
func (l *lesson) sessionStates(ctx context.Context) error {
	// The session events come on the channel zk.Connect returns; a callback
	// sees the same events, including the first ones zksession.Connect consumes.
	var mu sync.Mutex
	var states []zk.State
	record := zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type == zk.EventSession {
			mu.Lock()
			states = append(states, ev.State)
			mu.Unlock()
		}
	})
	seen := func() []zk.State { mu.Lock(); defer mu.Unlock(); return append([]zk.State(nil), states...) }

	// This client talks over a link of its own, so it alone can be cut
	// off long enough for the server to expire its session.
	client, link, err := l.env.DialCuttable(ctx, record)
	if err != nil {
		return err
	}
	defer client.Close()
	// The server grants a session timeout between its minSessionTimeout
	// and maxSessionTimeout (2 and 20 ticks unless configured): a stock
	// server (tickTime 2000) never less than 4 s, whatever we ask for.
	timeout := l.env.Granted(ctx) // the grant for -session, which client asked for
	l.title(fmt.Sprintf("2b. The session states of a client whose session expires (session timeout: asked %v, granted %v)", l.env.Session, timeout))

	node := l.root + "/owned-by-expiring-session"
	if _, err := client.Create(node, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		return fmt.Errorf("create ephemeral %s: %w", node, err)
	}
	_, _, ch, err := client.ExistsW(node)
	if err != nil {
		return fmt.Errorf("exists-watch %s: %w", node, err)
	}
	before := seen()
	l.say("connect:  %s", joinStates(before))
	l.say("it creates the ephemeral %s and sets an exists-watch on it", node)
	oldID := client.SessionID()

	l.say("its link is cut for longer than the session timeout…")
	expireCtx, cancel := context.WithTimeout(ctx, 3*timeout+time.Minute)
	defer cancel()
	if err := zksession.Expire(expireCtx, link, client, timeout); err != nil {
		return fmt.Errorf("expire the session (granted %v): %w", timeout, err)
	}
	// The client learns of the expiry when it reconnects; wait until it has
	// its new session, so the list of states is complete.
	if err := waitState(ctx, client, zk.StateHasSession); err != nil {
		return err
	}
	l.say("then:     %s", joinStates(compact(seen()[len(before):])))
	l.say("new session: %v (the same *zk.Conn silently opened another one)", client.SessionID() != oldID)
	l.say("its watch got:")
	if _, err := l.event(ctx, ch); err != nil {
		return err
	}
	exists, _, err := l.conn.Exists(node)
	if err != nil {
		return fmt.Errorf("exists %s: %w", node, err)
	}
	l.say("and its ephemeral node is gone: exists → %v", exists)
	return nil
}

// ─── 3. A watch fires once, and carries no data ────────────────────────────

func (l *lesson) fireOnce(ctx context.Context) error {
	l.title("3. A watch fires once, and its event carries no data")
	node := l.root + "/value"
	if err := l.create(node, "0", 0); err != nil {
		return err
	}
	ch, err := l.getW(node)
	if err != nil {
		return err
	}
	if err := l.set(node, "1", -1); err != nil {
		return err
	}
	if _, err := l.event(ctx, ch); err != nil {
		return err
	}
	// The watch is used up: the next change reaches nobody.
	if err := l.set(node, "2", -1); err != nil {
		return err
	}
	if err := l.quiet(ch); err != nil {
		return err
	}

	// Way 1: the handler reads again, which sets the next watch.
	l.say("way 1: the handler reads again with a watch, after every event")
	for _, v := range []string{"3", "4"} {
		if ch, err = l.getW(node); err != nil {
			return err
		}
		if err := l.set(node, v, -1); err != nil {
			return err
		}
		if _, err := l.event(ctx, ch); err != nil {
			return err
		}
	}
	if _, err := l.getW(node); err != nil {
		return err
	}
	return nil
}

// keepWatching is way 2: watch.Loop reads, calls us, waits, and starts over.
// Our handler is slow on purpose: while it still works on "6", "7" and "8"
// are written. The watch set with the read of "6" fires once, for "7"; the
// next read finds "8". "7" is never seen — the skip every watcher must
// expect — but nothing is ever seen out of order.
func (l *lesson) keepWatching(ctx context.Context) error {
	l.title("3b. Way 2: watch.Loop re-reads and re-watches — and can skip values")
	node := l.root + "/value"
	if err := l.set(node, "5", -1); err != nil {
		return err
	}
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan watch.Value)
	done := make(chan struct{}) // the handler may return
	loopErr := make(chan error, 1)
	go func() {
		loopErr <- watch.Loop(loopCtx, l.conn, node, func(v watch.Value) error {
			select {
			case got <- v:
			case <-loopCtx.Done():
				return loopCtx.Err()
			}
			select {
			case <-done:
				return nil
			case <-loopCtx.Done():
				return loopCtx.Err()
			}
		})
	}()
	next := func() (watch.Value, error) {
		select {
		case v := <-got:
			l.say("  loop handler got %s", v)
			return v, nil
		case err := <-loopErr:
			return watch.Value{}, fmt.Errorf("watch.Loop stopped: %w", err)
		case <-time.After(eventWait):
			return watch.Value{}, fmt.Errorf("watch.Loop: no value after %v", eventWait)
		}
	}
	var seen []string
	// handle takes the next value the loop found, writes while the handler
	// still holds it, and then lets the handler return.
	handle := func(writes ...string) error {
		v, err := next()
		if err != nil {
			return err
		}
		seen = append(seen, string(v.Data))
		if len(writes) > 1 {
			l.say("  while the handler is still busy with %q:", v.Data)
		}
		for _, w := range writes {
			if err := l.set(node, w, -1); err != nil {
				return err
			}
		}
		done <- struct{}{}
		return nil
	}
	if err := handle("6"); err != nil { // the loop reads "5"; we write "6"
		return err
	}
	if err := handle("7", "8"); err != nil { // it reads "6"; "7" and "8" come while it is busy
		return err
	}
	if err := handle(); err != nil { // it reads "8": "7" was never read
		return err
	}
	cancel()
	if err := <-loopErr; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("watch.Loop: %w", err)
	}
	l.say("the loop saw %s of 5 6 7 8: each read finds the value of that moment", strings.Join(seen, " "))
	return nil
}

// ─── 4. Node types, and compare-and-swap ───────────────────────────────────

func (l *lesson) nodeTypes(ctx context.Context) error {
	l.title("4. Node types the locks rely on")

	// Persistent: stays until someone deletes it.
	if err := l.create(l.root+"/persistent", "", 0); err != nil {
		return err
	}

	// Ephemeral: tied to the session that created it.
	other, err := l.env.Dial(ctx)
	if err != nil {
		return err
	}
	eph := l.root + "/ephemeral"
	if _, err := other.Create(eph, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		other.Close()
		return fmt.Errorf("create ephemeral %s: %w", eph, err)
	}
	l.say("create %s (ephemeral, by a second session)", eph)
	exists, _, ch, err := l.conn.ExistsW(eph)
	if err != nil {
		other.Close()
		return fmt.Errorf("exists-watch %s: %w", eph, err)
	}
	l.say("exists %s with a watch → %v", eph, exists)
	l.say("the second session closes")
	other.Close()
	if _, err := l.event(ctx, ch); err != nil {
		return err
	}

	// Sequential: the server appends a 10-digit counter, kept by the parent.
	dir := l.root + "/queue"
	if err := l.create(dir, "", 0); err != nil {
		return err
	}
	for range 3 {
		name, err := l.conn.Create(dir+"/n-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return fmt.Errorf("create sequential under %s: %w", dir, err)
		}
		l.say("create %s/n- (sequential) → %s", dir, path.Base(name))
	}

	// Compare-and-swap: Set with the version we read succeeds only if nobody
	// wrote in between; the loser gets zk.ErrBadVersion.
	cas := l.root + "/cas"
	if err := l.create(cas, "0", 0); err != nil {
		return err
	}
	data, stat, err := l.conn.Get(cas)
	if err != nil {
		return fmt.Errorf("get %s: %w", cas, err)
	}
	l.say("get %s → %q, version %d", cas, data, stat.Version)
	if err := l.set(cas, "1", stat.Version); err != nil {
		return err
	}
	err = l.set(cas, "2", stat.Version)
	if !errors.Is(err, zk.ErrBadVersion) {
		return fmt.Errorf("set %s with a stale version: want zk.ErrBadVersion, got %v", cas, err)
	}
	return nil
}
