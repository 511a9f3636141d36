package tui

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/scene"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// runtime is the real world behind the view: workers with their own
// sessions (each through its own proxy, so one can be killed or expired),
// running a chapter's real lock, plus a children watch on the lock dir. It
// implements Controller and Source.
type runtime struct {
	ctx      context.Context
	cancel   context.CancelFunc
	servers  []string
	base     string
	session  time.Duration
	scenes   []scene.Scene
	workshop bool // built with -tags workshop: the scenes run the learner's lock
	ownBase  bool // base is this run's own root: delete it on the way out
	admin    *zk.Conn
	inbox    *inbox
	wg       sync.WaitGroup

	failOnce sync.Once
	failed   chan struct{} // closed when a worker panicked: the view must end
	failure  error         // the *PanicError, once failed is closed

	hold   atomic.Int64 // time.Duration
	gen    atomic.Int64 // bumped on every chapter switch; older events are dropped
	paused gate

	mu      sync.Mutex // guards everything below; held while switching
	chapter scene.Scene
	path    string
	workers []*runWorker
	nextID  int

	sessMu   sync.Mutex       // not mu: the dir watch reads it while a switch holds mu
	sessions map[int64]string // session ID → worker name, for the queue's owners
	stopDir  context.CancelFunc
	dirDone  chan struct{}
}

type runWorker struct {
	name    string
	session time.Duration // what the server granted
	conn    *zk.Conn
	close   func() // closes its session (and conn)
	proxy   *zkproxy.Proxy
	cancel  context.CancelFunc
	done    chan struct{}
	dead    atomic.Bool // killed or removed: its events are no longer shown
	cut     atomic.Bool // cut off by Expire, expiry not yet reported
}

func newRuntime(ctx context.Context, servers []string, base string, session, hold time.Duration) (*runtime, error) {
	admin, events, err := zkconn.Dial(ctx, servers, session)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &runtime{ctx: ctx, cancel: cancel, servers: servers, base: base, session: session, admin: admin,
		inbox: newInbox(time.Second / 30), sessions: map[int64]string{}, failed: make(chan struct{})}
	r.hold.Store(int64(hold))
	r.paused.set(false)
	r.wg.Add(1)
	go func() { defer r.wg.Done(); zkconn.Drain(events) }()
	return r, nil
}

// Next implements Source.
func (r *runtime) Next() []any { return r.inbox.Next() }

// start runs chapter ch with n workers. r.mu must be held.
func (r *runtime) start(ch scene.Scene, n int) error {
	gen := r.gen.Add(1)
	r.chapter = ch
	r.path = path.Join(r.base, ch.Name, ch.LeafOrDefault())
	// A previous run may have left nodes behind (chapter 02's persistent
	// lock does so on purpose): start from nothing.
	if err := deleteTree(r.admin, path.Join(r.base, ch.Name)); err != nil {
		return fmt.Errorf("clean %s: %w", path.Join(r.base, ch.Name), err)
	}
	auth, err := zkconn.AuthFromEnv() // the visualizer's sessions authenticate with ZK_AUTH
	if err != nil {
		return err
	}
	if err := znode.CreateParents(r.ctx, r.admin, r.path, zksession.ACL(auth), nil); err != nil {
		return err
	}
	if ch.Setup != nil {
		err := r.protect("setup", func() error { return ch.Setup(r.ctx, r.admin, r.path) })
		if err != nil {
			return fmt.Errorf("set up chapter %s: %w", ch.Name, err)
		}
	}
	dir, only := r.path, ""
	if ch.Single {
		dir, only = path.Dir(r.path), path.Base(r.path)
	}
	r.inbox.put(ChapterStarted{Scene: ch, Path: r.path, Dir: dir, Hold: time.Duration(r.hold.Load()), Workshop: r.workshop})
	dctx, stop := context.WithCancel(r.ctx)
	r.stopDir, r.dirDone = stop, make(chan struct{})
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(r.dirDone)
		if len(ch.Dirs) > 0 {
			r.watchDirs(dctx, gen, dir, ch.Dirs, ch.Tag)
			return
		}
		r.watchDir(dctx, gen, dir, only, ch.Tag, r.putQueue(gen))
	}()
	r.nextID = 0
	for range n {
		if err := r.addWorker(gen); err != nil {
			return err
		}
	}
	return nil
}

// addWorker starts one more worker. r.mu must be held.
func (r *runtime) addWorker(gen int64) error {
	r.nextID++
	i := r.nextID
	name := fmt.Sprintf("%s-%d", r.chapter.Words.WithDefaults().Worker, i)
	proxy, err := zkproxy.New(r.servers[0])
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(r.ctx)
	w := &runWorker{name: name, proxy: proxy, cancel: cancel, done: make(chan struct{})}
	obs := event.Observer(func(e event.Event) {
		if !w.dead.Load() && r.gen.Load() == gen {
			r.inbox.put(e)
		}
	}).WithOwner(name)
	// The server grants a session timeout between its bounds (a stock
	// server: at least 4 s), whatever we asked for: the lock, the kill and
	// expire messages go by what it granted.
	var part scene.Part
	var events <-chan zk.Event
	if r.chapter.Open != nil {
		// A chapter whose lock lives on a Session opens it itself; we hear
		// its state changes through a callback that never blocks.
		evs := make(chan zk.Event, 16)
		onEvent := func(c *zksession.Config) {
			c.Timeout = r.session
			c.Auth, _ = zkconn.AuthFromEnv()
			c.OnEvent = func(ev zk.Event) {
				select {
				case evs <- ev:
				default:
				}
			}
		}
		var sess scene.Session
		err = r.protect(name, func() (err error) {
			sess, part, err = r.chapter.Open(r.ctx, []string{proxy.Addr()},
				scene.Worker{Path: r.path, Index: i, Name: name, Observer: obs}, onEvent)
			return err
		})
		if err == nil {
			w.conn, w.close, w.session, events = sess.Conn(), sess.Close, sess.Timeout(), evs
		}
	} else {
		var d *zksession.Dialled
		if d, err = zkconn.DialGranted(r.ctx, []string{proxy.Addr()}, r.session); err == nil {
			w.conn, w.close, w.session, events = d.Conn, d.Conn.Close, d.Timeout(), d.Events
			err = r.protect(name, func() (err error) {
				part, err = r.chapter.NewWorker(scene.Worker{Conn: d.Conn, Path: r.path, Index: i, Name: name,
					Observer: obs, Session: w.session})
				return err
			})
			if err != nil {
				d.Conn.Close()
			}
		}
	}
	if err != nil {
		cancel()
		proxy.Close()
		return fmt.Errorf("%s: new lock: %w", name, err)
	}
	r.sessMu.Lock()
	r.sessions[w.conn.SessionID()] = name
	r.sessMu.Unlock()
	r.workers = append(r.workers, w)
	r.inbox.put(WorkerChange{Name: name, State: Idle})
	r.wg.Add(2)
	go func() { defer r.wg.Done(); r.watchSession(ctx, w, events, gen) }()
	go func() { defer r.wg.Done(); defer close(w.done); r.work(ctx, w, part, gen) }()
	return nil
}

// work is one worker's life: lock, hold, unlock, rest, again. Pausing
// stops it at the next step, so a holder keeps holding while paused.
func (r *runtime) work(ctx context.Context, w *runWorker, part scene.Part, gen int64) {
	say := func(format string, args ...any) {
		if !w.dead.Load() && r.gen.Load() == gen {
			r.inbox.put(Notice{Text: w.name + " " + fmt.Sprintf(format, args...)})
		}
	}
	for {
		if !r.paused.wait(ctx) {
			return
		}
		err := r.protect(w.name, func() error { return part.Lock(ctx) })
		if errors.As(err, new(*PanicError)) {
			r.fail(err) // a TODO(workshop) stub, or a bug: the view ends and says it
			return
		}
		if ctx.Err() != nil {
			if err == nil && !w.dead.Load() {
				r.unlock(w, part, say)
			}
			return
		}
		if err != nil {
			say("lock: %v", err)
			sleep(ctx, r.holdTime())
			continue
		}
		sleep(ctx, r.holdTime())
		r.paused.wait(ctx)
		if w.dead.Load() {
			return // killed while holding: no Unlock, the session just dies
		}
		if !r.unlock(w, part, say) {
			return
		}
		if !sleep(ctx, r.holdTime()/2) {
			return
		}
	}
}

// unlock releases; false if the lock panicked (the view then ends).
func (r *runtime) unlock(w *runWorker, part scene.Part, say func(string, ...any)) bool {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 5*time.Second)
	defer cancel()
	err := r.protect(w.name, func() error { return part.Unlock(uctx) })
	if errors.As(err, new(*PanicError)) {
		r.fail(err)
		return false
	}
	if err != nil {
		say("unlock: %v", err)
	}
	return true
}

// watchSession reports what the worker's session goes through.
func (r *runtime) watchSession(ctx context.Context, w *runWorker, events <-chan zk.Event, gen int64) {
	for {
		var ev zk.Event
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			ev = e
		case <-ctx.Done():
			return
		}
		if w.dead.Load() || r.gen.Load() != gen {
			continue
		}
		switch ev.State {
		case zk.StateExpired:
			w.cut.Store(false)
			r.inbox.put(expired(w.name))
		case zk.StateHasSession:
			r.sessMu.Lock()
			r.sessions[w.conn.SessionID()] = w.name
			r.sessMu.Unlock()
		}
	}
}

// putQueue hands a queue snapshot to the model, unless the chapter changed
// since the watch began.
func (r *runtime) putQueue(gen int64) func(QueueSnapshot) {
	return func(s QueueSnapshot) {
		if r.gen.Load() == gen {
			r.inbox.put(s)
		}
	}
}

// watchDirs is watchDir on several subdirectories of dir at once (09's
// semaphore: its gate queue and its leases): one queue panel, each
// subdirectory's nodes in turn, named "sub/node".
func (r *runtime) watchDirs(ctx context.Context, gen int64, dir string, subs []string, tag func(string) string) {
	var mu sync.Mutex
	parts := make([]QueueSnapshot, len(subs))
	put := r.putQueue(gen)
	var wg sync.WaitGroup
	for i, sub := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.watchDir(ctx, gen, dir+"/"+sub, "", tag, func(s QueueSnapshot) {
				mu.Lock()
				defer mu.Unlock()
				for j := range s.Nodes {
					s.Nodes[j].Name = sub + "/" + s.Nodes[j].Name
				}
				parts[i] = s
				merged := QueueSnapshot{Dir: dir}
				for _, p := range parts {
					merged.Nodes = append(merged.Nodes, p.Nodes...)
				}
				put(merged)
			})
		}()
	}
	wg.Wait()
}

// watchDir keeps the queue panel true to ZooKeeper: a children watch on
// dir, re-set after each change; each new child is read once for its owner.
// Each snapshot goes to put.
func (r *runtime) watchDir(ctx context.Context, gen int64, dir, only string, tag func(string) string, put func(QueueSnapshot)) {
	known := map[string]QueueNode{}
	for ctx.Err() == nil {
		children, _, changed, err := r.admin.ChildrenW(dir)
		if errors.Is(err, zk.ErrNoNode) {
			put(QueueSnapshot{Dir: dir, Missing: true})
			ok, _, created, err := r.admin.ExistsW(dir)
			if err != nil || ok {
				if !sleep(ctx, 100*time.Millisecond) {
					return
				}
				continue
			}
			select {
			case <-created:
			case <-ctx.Done():
				return
			}
			continue
		}
		if err != nil {
			if !sleep(ctx, 200*time.Millisecond) {
				return
			}
			continue
		}
		snap := QueueSnapshot{Dir: dir}
		seen := map[string]bool{}
		for _, c := range children {
			if only != "" && c != only {
				continue
			}
			seen[c] = true
			q, ok := known[c]
			if !ok || only != "" || q.Owner == "" {
				if q, ok = r.readNode(dir, c, tag); !ok {
					continue // gone already
				}
				known[c] = q
			}
			snap.Nodes = append(snap.Nodes, q)
		}
		for c := range known {
			if !seen[c] {
				delete(known, c)
			}
		}
		sort.Slice(snap.Nodes, func(i, j int) bool {
			a, b := snap.Nodes[i], snap.Nodes[j]
			if a.Seq != b.Seq {
				return a.Seq < b.Seq
			}
			return a.Name < b.Name
		})
		put(snap)
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// readNode reads one child for the queue: its owner (the worker whose
// session created it), kind and data.
func (r *runtime) readNode(dir, name string, tag func(string) string) (QueueNode, bool) {
	data, st, err := r.admin.Get(dir + "/" + name)
	if err != nil {
		return QueueNode{}, false
	}
	q := QueueNode{Name: name, Seq: sequenceOf(name), Persistent: st.EphemeralOwner == 0}
	r.sessMu.Lock()
	q.Owner = r.sessions[st.EphemeralOwner]
	r.sessMu.Unlock()
	if s := string(data); len(s) <= 24 && printable(s) {
		q.Data = s
		if q.Owner == "" && r.isWorker(s) {
			q.Owner = s // a persistent node (02) names its creator in its data
		}
	}
	if tag != nil {
		q.Kind = tag(name)
	}
	return q, true
}

// sequenceOf is the 10-digit suffix ZooKeeper appends (zkpath.SequenceOf),
// or -1: the view sorts and shortens by it.
func sequenceOf(name string) int64 {
	if seq, ok := zkpath.SequenceOf(name); ok {
		return seq
	}
	return -1
}

// isWorker says whether name is one of ours (a node's data may name its
// owner when no session does).
func (r *runtime) isWorker(name string) bool {
	r.sessMu.Lock()
	defer r.sessMu.Unlock()
	for _, n := range r.sessions {
		if n == name {
			return true
		}
	}
	return false
}

func printable(s string) bool {
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}

func (r *runtime) holdTime() time.Duration { return time.Duration(r.hold.Load()) }

// --- Controller ---

func (r *runtime) SetPaused(p bool)        { r.paused.set(p) }
func (r *runtime) SetHold(d time.Duration) { r.hold.Store(int64(d)) }

func (r *runtime) AddWorker() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.addWorker(r.gen.Load()); err != nil {
		r.inbox.put(Notice{Text: "add worker: " + err.Error()})
	}
}

// RemoveWorker stops the newest live worker cleanly: it unlocks if it
// holds and closes its session, so its node goes at once.
func (r *runtime) RemoveWorker() {
	r.mu.Lock()
	var w *runWorker
	for i := len(r.workers) - 1; i >= 0; i-- {
		if !r.workers[i].dead.Load() {
			w = r.workers[i]
			break
		}
	}
	r.mu.Unlock()
	if w == nil {
		return
	}
	r.inbox.put(WorkerChange{Name: w.name, State: Stopped, Detail: "unlocks and closes its session"})
	r.stopWorker(w)
	w.dead.Store(true)
}

func (r *runtime) stopWorker(w *runWorker) {
	w.cancel()
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
	}
	w.close()
	w.proxy.Close()
}

// Kill closes a worker abruptly: the proxy goes first, so the close never
// reaches the server and the session (with its ephemeral node) lives on
// until the server times it out.
func (r *runtime) Kill(name string) {
	w := r.find(name)
	if w == nil || w.dead.Swap(true) {
		return
	}
	r.inbox.put(WorkerChange{Name: name, State: Crashed,
		Detail: fmt.Sprintf("its node stays until the server expires the session (%v)", w.session)})
	w.proxy.Close()
	w.cancel()
	w.close()
}

// Expire cuts a worker off until the server expires its session for real.
func (r *runtime) Expire(name string) {
	w := r.find(name)
	if w == nil || w.dead.Load() {
		return
	}
	r.inbox.put(WorkerChange{Name: name, State: CutOff,
		Detail: fmt.Sprintf("link cut; the server expires the session after %v", w.session)})
	w.cut.Store(true)
	err := w.proxy.Expire(r.ctx, w.conn, w.session)
	if err != nil && r.ctx.Err() == nil {
		r.inbox.put(Notice{Text: name + " expire: " + err.Error()})
		return
	}
	// The session is gone (the conn has a new one). Usually the conn's
	// StateExpired event said so already; if go-zookeeper dropped it, say
	// it here.
	if w.cut.Swap(false) && !w.dead.Load() {
		r.inbox.put(expired(name))
	}
}

func expired(name string) WorkerChange {
	return WorkerChange{Name: name, State: Expired,
		Detail: "the server dropped its session: its ephemeral node and watches are gone"}
}

func (r *runtime) find(name string) *runWorker {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.workers {
		if w.name == name {
			return w
		}
	}
	return nil
}

// Switch stops this chapter's workers cleanly and starts the other chapter
// with as many workers.
func (r *runtime) Switch(key string) {
	ch, ok := lookup(r.scenes, key)
	if !ok {
		r.inbox.put(Notice{Text: "no chapter " + key})
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.stopAll()
	if err := r.start(ch, max(n, 1)); err != nil {
		r.inbox.put(Notice{Text: "start " + ch.Name + ": " + err.Error()})
	}
}

// stopAll stops every worker and the dir watch, removes the chapter's
// znodes, and returns how many workers were alive. r.mu must be held.
func (r *runtime) stopAll() int {
	r.gen.Add(1) // from now on nothing of this chapter reaches the view
	alive := 0
	var wg sync.WaitGroup
	for _, w := range r.workers {
		if !w.dead.Load() {
			alive++
		}
		wg.Add(1)
		go func() { defer wg.Done(); r.stopWorker(w) }()
	}
	wg.Wait()
	r.workers = nil
	if r.stopDir != nil {
		r.stopDir()
		<-r.dirDone
		r.stopDir = nil
	}
	if r.chapter.Name != "" {
		// Also after ctx ended (Ctrl-C, SIGHUP): the admin session is
		// still open, and nothing we created may stay behind.
		r.cleanup(path.Join(r.base, r.chapter.Name))
	}
	return alive
}

// cleanup deletes the tree at p with the admin session, bounded in time
// in case the server went away.
func (r *runtime) cleanup(p string) {
	done := make(chan struct{})
	go func() { defer close(done); deleteTree(r.admin, p) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
}

// Close stops everything the runtime started.
func (r *runtime) Close() {
	r.mu.Lock()
	r.stopAll()
	r.mu.Unlock()
	if r.ownBase {
		// The run's own root, then its parents while they are empty
		// (another run may still be under /lockstep/visualizer).
		r.cleanup(r.base)
		for d := path.Dir(r.base); d != "/"; d = path.Dir(d) {
			if r.admin.Delete(d, -1) != nil {
				break
			}
		}
	}
	r.cancel()
	r.paused.set(false)
	r.admin.Close()
	r.inbox.close()
	r.wg.Wait()
}

// --- plumbing ---

// gate blocks workers while paused.
type gate struct {
	mu sync.Mutex
	ch chan struct{} // closed while running
}

func (g *gate) set(paused bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	open := g.ch != nil && isClosed(g.ch)
	switch {
	case paused && (open || g.ch == nil):
		g.ch = make(chan struct{})
	case !paused && !open:
		if g.ch == nil {
			g.ch = make(chan struct{})
		}
		close(g.ch)
	}
}

func (g *gate) wait(ctx context.Context) bool {
	g.mu.Lock()
	ch := g.ch
	g.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// inbox collects what happens between two frames; Next hands it over at
// most once per frame, so 64 busy workers cause 30 renders a second, not
// one per event.
type inbox struct {
	mu     sync.Mutex
	items  []any
	last   time.Time
	frame  time.Duration
	wake   chan struct{}
	done   chan struct{}
	closed bool
}

func newInbox(frame time.Duration) *inbox {
	return &inbox{frame: frame, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (b *inbox) put(it any) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.items = append(b.items, it)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Next blocks until something happened and a frame has passed since the
// last batch; nil once closed.
func (b *inbox) Next() []any {
	for {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return nil
		}
		if len(b.items) > 0 {
			if wait := time.Until(b.last.Add(b.frame)); wait > 0 {
				b.mu.Unlock()
				select {
				case <-time.After(wait):
				case <-b.done:
				}
				continue
			}
			items := b.items
			b.items, b.last = nil, time.Now()
			b.mu.Unlock()
			return items
		}
		b.mu.Unlock()
		select {
		case <-b.wake:
		case <-b.done:
		}
	}
}

// take returns what is there without waiting (the -frames mode).
func (b *inbox) take() []any {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = nil
	return items
}

func (b *inbox) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}

func deleteTree(conn *zk.Conn, p string) error {
	// A worker may still be creating its node while the chapter is torn
	// down: best effort, a node that is not empty is left for next time.
	if err := znode.DeleteTree(conn, p); err != nil && !errors.Is(err, zk.ErrNotEmpty) {
		return err
	}
	return nil
}
