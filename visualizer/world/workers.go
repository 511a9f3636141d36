package world

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// stopWait bounds a worker's clean stop (its Unlock included) and the
// deletion of a chapter's tree: a lock or a server that hangs must not
// keep the visualizer from quitting.
const stopWait = 10 * time.Second

// worker is one worker of the running chapter. Its first fields are set
// before it is published in World.workers and never change; its session
// changes (under mu) when the server expires one and it opens the next;
// the flags are atomic.
type worker struct {
	name      string
	index     int // 1-based, as in its name
	obs       event.Observer
	onSession bool          // the chapter's lock lives on a Session (04 on): a session that ends is replaced
	events    chan zk.Event // its sessions' state changes, when onSession
	proxy     *zkproxy.Proxy
	cancel    context.CancelFunc
	done      chan struct{} // closed when its life (live) is over
	dead      atomic.Bool   // killed or removed: its events are no longer shown
	cut       atomic.Bool   // cut off by Expire, expiry not yet reported
	removing  atomic.Bool   // RemoveWorker chose it

	mu   sync.Mutex // guards the two below; never held across a dial or a wait
	sess session    // the session it works on now
	shut bool       // stop or crash closed it: the worker opens no other
}

// session is one of a worker's ZooKeeper sessions.
type session struct {
	conn    *zk.Conn
	timeout time.Duration // what the server granted
	close   func()        // closes it (and its conn)
	// ended is closed when the session ends (a chapter on a Session: the
	// server expired it, or close). nil for 01–03, whose plain conn
	// outlives its sessions: go-zookeeper opens the next one on it.
	ended <-chan struct{}
}

// current is the session wk works on now.
func (wk *worker) current() session {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	return wk.sess
}

// adopt makes s wk's session; false (s is left to the caller to close) if
// wk was stopped or killed meanwhile.
func (wk *worker) adopt(s session) bool {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if wk.shut {
		return false
	}
	wk.sess = s
	return true
}

// addWorker starts one more worker: its proxy, its session, its part of
// the chapter's lock, its life. The director's: nothing is locked while it
// dials; the worker is published under mu once it exists.
func (w *World) addWorker(gen int64) error {
	w.nextID++
	i := w.nextID
	name := fmt.Sprintf("%s-%d", w.chapter.Words.WithDefaults().Worker, i)
	proxy, err := zkproxy.New(w.cfg.Servers[0])
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(w.ctx)
	wk := &worker{name: name, index: i, proxy: proxy, cancel: cancel, done: make(chan struct{}),
		onSession: w.chapter.Open != nil}
	wk.obs = event.Observer(func(e event.Event) {
		if !wk.dead.Load() && w.gen.Load() == gen {
			w.inbox.Put(worldmsg.LockEvent{Event: e})
		}
	}).WithOwner(name)
	if wk.onSession {
		wk.events = make(chan zk.Event, 16)
	}
	s, part, events, err := w.open(ctx, wk)
	if err != nil {
		cancel()
		proxy.Close()
		return fmt.Errorf("%s: new lock: %w", name, err)
	}
	wk.sess = s
	w.mu.Lock()
	w.sessions[s.conn.SessionID()] = name
	w.workers = append(w.workers, wk)
	w.mu.Unlock()
	w.inbox.Put(worldmsg.WorkerChange{Name: name, State: worldmsg.Idle})
	w.wg.Add(2)
	go func() { defer w.wg.Done(); w.watchSession(ctx, wk, events, gen) }()
	go func() { defer w.wg.Done(); defer close(wk.done); w.live(ctx, wk, part, gen) }()
	return nil
}

// open dials a session for wk through its proxy and builds its part of
// the chapter's lock on it. The server grants a session timeout between its
// bounds (a stock server: at least 4 s), whatever we asked for: the lock,
// the kill and expire messages go by what it granted.
func (w *World) open(ctx context.Context, wk *worker) (session, scene.Part, <-chan zk.Event, error) {
	servers := []string{wk.proxy.Addr()}
	worker := scene.Worker{Path: w.path, Index: wk.index, Name: wk.name, Observer: wk.obs}
	if wk.onSession {
		// A chapter whose lock lives on a Session opens it itself; we hear
		// its state changes through a callback that never blocks.
		evs := wk.events
		onEvent := func(c *zksession.Config) {
			c.Timeout = w.cfg.Session
			c.Auth, _ = zksession.AuthFromEnv()
			c.OnEvent = func(ev zk.Event) {
				select {
				case evs <- ev:
				default:
				}
			}
		}
		var sess scene.Session
		var part scene.Part
		err := w.protect(wk.name, func() (err error) {
			sess, part, err = w.chapter.Open(ctx, servers, worker, onEvent)
			return err
		})
		if err != nil {
			return session{}, nil, nil, err
		}
		return session{conn: sess.Conn(), timeout: sess.Timeout(), close: sess.Close, ended: sess.Done()}, part, evs, nil
	}
	d, err := zksession.ConnectGranted(ctx, servers, w.cfg.Session)
	if err != nil {
		return session{}, nil, nil, err
	}
	s := session{conn: d.Conn, timeout: d.Timeout(), close: d.Conn.Close}
	worker.Conn, worker.Session = d.Conn, s.timeout
	var part scene.Part
	err = w.protect(wk.name, func() (err error) {
		part, err = w.chapter.NewWorker(worker)
		return err
	})
	if err != nil {
		d.Conn.Close()
		return session{}, nil, nil, err
	}
	return s, part, d.Events, nil
}

// live is one worker's life. It works on its session until the session
// ends; then, as an etcd program does when its session's Done fires, it
// opens a new session, builds its part of the lock on it, and works on,
// until the worker is stopped. (In 01–03 the session never "ends" for the
// worker: go-zookeeper opens the next one on the same conn by itself.)
func (w *World) live(ctx context.Context, wk *worker, part scene.Part, gen int64) {
	for {
		s := wk.current()
		w.work(ctx, s.ended, wk, part, gen)
		if ctx.Err() != nil || s.ended == nil || wk.dead.Load() {
			return
		}
		// The server expired it (work said so): everything built on it
		// is gone.
		if part = w.reopen(ctx, wk, gen); part == nil {
			return
		}
	}
}

// reopen opens wk's next session and builds its part on it. While the
// server cannot be reached it tries again each second, until ctx ends; nil
// then, or if the chapter's code panicked.
func (w *World) reopen(ctx context.Context, wk *worker, gen int64) scene.Part {
	for {
		s, part, _, err := w.open(ctx, wk)
		if err == nil {
			if !wk.adopt(s) {
				s.close() // stopped or killed while it dialled
				return nil
			}
			id := s.conn.SessionID()
			w.mu.Lock()
			w.sessions[id] = wk.name
			w.mu.Unlock()
			w.tell(wk, gen, worldmsg.WorkerChange{Name: wk.name, State: worldmsg.Idle, Session: id})
			return part
		}
		if errors.As(err, new(*PanicError)) {
			w.fail(err)
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		w.tell(wk, gen, worldmsg.Notice{Of: worldmsg.NoticeNewSessionFailed, Worker: wk.name, Arg: err.Error()})
		if !sleep(ctx, time.Second) {
			return nil
		}
	}
}

// hasEnded says whether ended is closed.
func hasEnded(ended <-chan struct{}) bool {
	select {
	case <-ended:
		return true
	default:
		return false
	}
}

// tell hands the view m, unless wk is dead or the chapter changed.
func (w *World) tell(wk *worker, gen int64, m worldmsg.Msg) {
	if !wk.dead.Load() && w.gen.Load() == gen {
		w.inbox.Put(m)
	}
}

// work is the worker's round on one session: lock, hold, unlock, rest,
// again, until ctx ends or the session does (ended; nil: never). Pausing
// stops it at the next step, so a holder keeps holding while paused.
func (w *World) work(ctx context.Context, ended <-chan struct{}, wk *worker, part scene.Part, gen int64) {
	say := func(of worldmsg.NoticeKind, err error) {
		w.tell(wk, gen, worldmsg.Notice{Of: of, Worker: wk.name, Arg: err.Error()})
	}
	// sctx ends with ctx or with the session: a Lock or an Unlock on a
	// session that ended returns, and so do the waits between steps. The
	// view hears of the end at once, whatever the worker was doing.
	sctx := ctx
	if ended != nil {
		var cancel context.CancelFunc
		sctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-ended:
				if ctx.Err() == nil && !wk.dead.Load() { // not our own stop or kill
					wk.cut.Store(false)
					w.tell(wk, gen, expired(wk.name))
				}
				cancel()
			case <-sctx.Done():
			}
		}()
	}
	for {
		if !w.paused.wait(sctx) {
			return
		}
		err := w.protect(wk.name, func() error { return part.Lock(sctx) })
		if errors.As(err, new(*PanicError)) {
			w.fail(err) // a TODO(workshop) stub, or a bug: the view ends and says it
			return
		}
		if sctx.Err() != nil {
			// Stopped: unlock what we got. The session ended: whatever we
			// got is gone with it, and so is the part.
			if err == nil && ctx.Err() != nil && !wk.dead.Load() {
				w.unlock(nil, wk, part, say) // stopped: ended has not fired
			}
			return
		}
		if err != nil {
			if ended != nil && hasEnded(ended) {
				return // the session's end reached Lock before sctx
			}
			say(worldmsg.NoticeLockFailed, err)
			sleep(sctx, w.holdTime())
			continue
		}
		sleep(sctx, w.holdTime())
		w.paused.wait(sctx)
		if wk.dead.Load() {
			return // killed while holding: no Unlock, the session just dies
		}
		if sctx.Err() != nil && ctx.Err() == nil {
			return // the session ended while we held: the hold went with it
		}
		if !w.unlock(ended, wk, part, say) {
			return
		}
		if !sleep(sctx, w.holdTime()/2) {
			return
		}
	}
}

// unlock releases; false if the lock panicked (the view then ends). It
// takes up to 5 s, even once the world is closing (a clean stop unlocks),
// but no longer than the session lives (ended; nil: no end to wait for):
// once it has ended there is nothing left to release.
func (w *World) unlock(ended <-chan struct{}, wk *worker, part scene.Part, say func(worldmsg.NoticeKind, error)) bool {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), 5*time.Second)
	defer cancel()
	if ended != nil {
		go func() {
			select {
			case <-ended:
				cancel()
			case <-uctx.Done():
			}
		}()
	}
	err := w.protect(wk.name, func() error { return part.Unlock(uctx) })
	if errors.As(err, new(*PanicError)) {
		w.fail(err)
		return false
	}
	if err != nil && (ended == nil || !hasEnded(ended)) {
		say(worldmsg.NoticeUnlockFailed, err)
	}
	return true
}

// stop ends wk's life cleanly: it unlocks if it holds (up to stopWait),
// then closes its session, so that its nodes go at once.
func (wk *worker) stop() {
	wk.cancel()
	select {
	case <-wk.done:
	case <-time.After(stopWait):
	}
	if s, ok := wk.shutdown(); ok {
		s.close()
		wk.proxy.Close()
	}
}

// crash ends wk abruptly: the proxy goes first, so that the close never
// reaches the server, and the worker's lock is cancelled with no link to
// clean up over.
func (wk *worker) crash() {
	if s, ok := wk.shutdown(); ok {
		wk.proxy.Close()
		wk.cancel()
		s.close()
	}
}

// shutdown marks wk shut and returns its session to close; false if stop
// or crash did so already.
func (wk *worker) shutdown() (session, bool) {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if wk.shut {
		return session{}, false
	}
	wk.shut = true
	return wk.sess, true
}
