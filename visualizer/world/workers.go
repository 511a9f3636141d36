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
	"github.com/lockstep-zk/lockstep/internal/scene"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/internal/zkproxy"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

// stopWait bounds a worker's clean stop (its Unlock included) and the
// deletion of a chapter's tree: a lock or a server that hangs must not
// keep the visualizer from quitting.
const stopWait = 10 * time.Second

// worker is one worker of the running chapter. Its fields are set before
// it is published in World.workers and never change; the flags are atomic.
type worker struct {
	name     string
	session  time.Duration // what the server granted
	conn     *zk.Conn
	close    func() // closes its session (and conn)
	proxy    *zkproxy.Proxy
	cancel   context.CancelFunc
	done     chan struct{} // closed when its life (work) is over
	shut     sync.Once     // its session and proxy are closed once: by stop or by crash
	dead     atomic.Bool   // killed or removed: its events are no longer shown
	cut      atomic.Bool   // cut off by Expire, expiry not yet reported
	removing atomic.Bool   // RemoveWorker chose it
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
	wk := &worker{name: name, proxy: proxy, cancel: cancel, done: make(chan struct{})}
	obs := event.Observer(func(e event.Event) {
		if !wk.dead.Load() && w.gen.Load() == gen {
			w.inbox.put(tui.LockEvent{Event: e})
		}
	}).WithOwner(name)
	part, events, err := w.open(wk, i, obs)
	if err != nil {
		cancel()
		proxy.Close()
		return fmt.Errorf("%s: new lock: %w", name, err)
	}
	w.mu.Lock()
	w.sessions[wk.conn.SessionID()] = name
	w.workers = append(w.workers, wk)
	w.mu.Unlock()
	w.inbox.put(tui.WorkerChange{Name: name, State: tui.Idle})
	w.wg.Add(2)
	go func() { defer w.wg.Done(); w.watchSession(ctx, wk, events, gen) }()
	go func() { defer w.wg.Done(); defer close(wk.done); w.work(ctx, wk, part, gen) }()
	return nil
}

// open dials wk's session through its proxy and builds its part of the
// chapter's lock on it. The server grants a session timeout between its
// bounds (a stock server: at least 4 s), whatever we asked for: the lock,
// the kill and expire messages go by what it granted.
func (w *World) open(wk *worker, i int, obs event.Observer) (scene.Part, <-chan zk.Event, error) {
	servers := []string{wk.proxy.Addr()}
	if w.chapter.Open != nil {
		// A chapter whose lock lives on a Session opens it itself; we hear
		// its state changes through a callback that never blocks.
		evs := make(chan zk.Event, 16)
		onEvent := func(c *zksession.Config) {
			c.Timeout = w.cfg.Session
			c.Auth, _ = zkconn.AuthFromEnv()
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
			sess, part, err = w.chapter.Open(w.ctx, servers,
				scene.Worker{Path: w.path, Index: i, Name: wk.name, Observer: obs}, onEvent)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		wk.conn, wk.close, wk.session = sess.Conn(), sess.Close, sess.Timeout()
		return part, evs, nil
	}
	d, err := zkconn.DialGranted(w.ctx, servers, w.cfg.Session)
	if err != nil {
		return nil, nil, err
	}
	wk.conn, wk.close, wk.session = d.Conn, d.Conn.Close, d.Timeout()
	var part scene.Part
	err = w.protect(wk.name, func() (err error) {
		part, err = w.chapter.NewWorker(scene.Worker{Conn: d.Conn, Path: w.path, Index: i, Name: wk.name,
			Observer: obs, Session: wk.session})
		return err
	})
	if err != nil {
		d.Conn.Close()
		return nil, nil, err
	}
	return part, d.Events, nil
}

// work is one worker's life: lock, hold, unlock, rest, again. Pausing
// stops it at the next step, so a holder keeps holding while paused.
func (w *World) work(ctx context.Context, wk *worker, part scene.Part, gen int64) {
	say := func(format string, args ...any) {
		if !wk.dead.Load() && w.gen.Load() == gen {
			w.inbox.put(tui.Notice{Text: wk.name + " " + fmt.Sprintf(format, args...)})
		}
	}
	for {
		if !w.paused.wait(ctx) {
			return
		}
		err := w.protect(wk.name, func() error { return part.Lock(ctx) })
		if errors.As(err, new(*PanicError)) {
			w.fail(err) // a TODO(workshop) stub, or a bug: the view ends and says it
			return
		}
		if ctx.Err() != nil {
			if err == nil && !wk.dead.Load() {
				w.unlock(wk, part, say)
			}
			return
		}
		if err != nil {
			say("lock: %v", err)
			sleep(ctx, w.holdTime())
			continue
		}
		sleep(ctx, w.holdTime())
		w.paused.wait(ctx)
		if wk.dead.Load() {
			return // killed while holding: no Unlock, the session just dies
		}
		if !w.unlock(wk, part, say) {
			return
		}
		if !sleep(ctx, w.holdTime()/2) {
			return
		}
	}
}

// unlock releases; false if the lock panicked (the view then ends).
func (w *World) unlock(wk *worker, part scene.Part, say func(string, ...any)) bool {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), 5*time.Second)
	defer cancel()
	err := w.protect(wk.name, func() error { return part.Unlock(uctx) })
	if errors.As(err, new(*PanicError)) {
		w.fail(err)
		return false
	}
	if err != nil {
		say("unlock: %v", err)
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
	wk.shut.Do(func() {
		wk.close()
		wk.proxy.Close()
	})
}

// crash ends wk abruptly: the proxy goes first, so that the close never
// reaches the server, and the worker's lock is cancelled with no link to
// clean up over.
func (wk *worker) crash() {
	wk.shut.Do(func() {
		wk.proxy.Close()
		wk.cancel()
		wk.close()
	})
}
