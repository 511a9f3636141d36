package world

import (
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The keys' calls (the view's Controller) return at once, whatever the world is
// doing: the view runs each in a command of its own, and none may wait
// behind another's dial or stop. Changing the cast (a chapter, a new
// worker) is the director's job: one goroutine that makes one change at a
// time, in the order asked, so that two quick chapter keys never start two
// chapters and a worker added during a switch joins the new chapter.

// direct runs the director until Close.
func (w *World) direct() {
	defer close(w.directed)
	for {
		select {
		case job := <-w.jobs:
			job()
		case <-w.ctx.Done():
			return
		}
	}
}

// ask hands the director a change; false if the world is closing.
func (w *World) ask(job func()) bool {
	select {
	case w.jobs <- job:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// Start runs chapter ch with n workers and returns once they are started
// (or could not be): the first chapter, before the view shows anything.
func (w *World) Start(ch scene.Scene, n int) error {
	done := make(chan error, 1)
	if !w.ask(func() { done <- w.start(ch, n) }) {
		return w.ctx.Err()
	}
	select {
	case err := <-done:
		return err
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
}

// Switch stops this chapter's workers cleanly and starts chapter key with
// as many.
func (w *World) Switch(key string) {
	var ch scene.Scene
	for _, sc := range w.cfg.Scenes {
		if sc.Key == key {
			ch = sc
		}
	}
	if ch.Key == "" {
		w.inbox.Put(worldmsg.Notice{Of: worldmsg.NoticeNoChapter, Arg: key})
		return
	}
	w.ask(func() {
		n := w.stopAll()
		if err := w.start(ch, max(n, 1)); err != nil {
			w.inbox.Put(worldmsg.Notice{Of: worldmsg.NoticeStartFailed, Arg: ch.Name + ": " + err.Error()})
		}
	})
}

// AddWorker starts one more worker in the chapter that runs when the
// director gets to it.
func (w *World) AddWorker() {
	w.ask(func() {
		if w.chapter.Name == "" {
			return // no chapter started: nothing to join
		}
		if err := w.addWorker(w.gen.Load()); err != nil {
			w.inbox.Put(worldmsg.Notice{Of: worldmsg.NoticeAddFailed, Arg: err.Error()})
		}
	})
}

func (w *World) SetPaused(p bool)        { w.paused.set(p) }
func (w *World) SetHold(d time.Duration) { w.hold.Store(int64(d)) }

// RemoveWorker stops the newest live worker cleanly: it unlocks if it
// holds and closes its session, so its node goes at once. The view hears
// "stopped" once it is: after what its lock said on the way out (its
// delete, its Released), never before, or those would bring its row back.
func (w *World) RemoveWorker() {
	gen := w.gen.Load()
	w.mu.Lock()
	var wk *worker
	for i := len(w.workers) - 1; i >= 0; i-- {
		if c := w.workers[i]; !c.dead.Load() && !c.removing.Swap(true) {
			wk = c
			break
		}
	}
	w.mu.Unlock()
	if wk == nil {
		return
	}
	wk.stop()
	wk.dead.Store(true)
	if w.gen.Load() == gen { // a chapter switched meanwhile: its workers of the same names are others
		w.inbox.Put(worldmsg.WorkerChange{Name: wk.name, State: worldmsg.Stopped})
	}
}

// Kill closes a worker abruptly: the proxy goes first, so the close never
// reaches the server and the session (with its ephemeral node) lives on
// until the server times it out.
func (w *World) Kill(name string) {
	wk := w.find(name)
	if wk == nil || wk.dead.Swap(true) {
		return
	}
	w.inbox.Put(worldmsg.WorkerChange{Name: name, State: worldmsg.Crashed, Timeout: wk.current().timeout})
	wk.crash()
}

// Expire cuts a worker off until the server expires its session for real.
func (w *World) Expire(name string) {
	wk := w.find(name)
	if wk == nil || wk.dead.Load() {
		return
	}
	s := wk.current()
	w.inbox.Put(worldmsg.WorkerChange{Name: name, State: worldmsg.CutOff, Timeout: s.timeout})
	wk.cut.Store(true)
	err := wk.proxy.Expire(w.ctx, s.conn, s.timeout)
	if err != nil && w.ctx.Err() == nil {
		w.inbox.Put(worldmsg.Notice{Of: worldmsg.NoticeExpireFailed, Worker: name, Arg: err.Error()})
		return
	}
	// The session is gone. A worker on a Session says so itself (live)
	// and opens the next; on a plain conn, the conn's StateExpired event
	// usually said so already, and if go-zookeeper dropped it, we say it
	// here.
	if !wk.onSession && wk.cut.Swap(false) && !wk.dead.Load() {
		w.inbox.Put(expired(name))
	}
}

func expired(name string) worldmsg.WorkerChange {
	return worldmsg.WorkerChange{Name: name, State: worldmsg.Expired}
}

func (w *World) find(name string) *worker {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, wk := range w.workers {
		if wk.name == name {
			return wk
		}
	}
	return nil
}

// start runs chapter ch with n workers. The director's.
func (w *World) start(ch scene.Scene, n int) error {
	gen := w.gen.Add(1)
	w.chapter = ch
	w.path = path.Join(w.cfg.Base, ch.Name, ch.LeafOrDefault())
	// A previous run may have left nodes behind (chapter 02's persistent
	// lock does so on purpose): start from nothing.
	if err := deleteTree(w.admin, path.Join(w.cfg.Base, ch.Name)); err != nil {
		return fmt.Errorf("clean %s: %w", path.Join(w.cfg.Base, ch.Name), err)
	}
	auth, err := zksession.AuthFromEnv() // the visualizer's sessions authenticate with ZK_AUTH
	if err != nil {
		return err
	}
	if err := znode.CreateParents(w.ctx, w.admin, w.path, zksession.ACL(auth), nil); err != nil {
		return err
	}
	if ch.Setup != nil {
		err := w.protect("setup", func() error { return ch.Setup(w.ctx, w.admin, w.path) })
		if err != nil {
			return fmt.Errorf("set up chapter %s: %w", ch.Name, err)
		}
	}
	dir := w.path
	if ch.Single {
		dir = path.Dir(w.path)
	}
	w.inbox.Put(worldmsg.ChapterStarted{Scene: ch, Path: w.path, Dir: dir, Hold: w.holdTime(), Workshop: w.cfg.Workshop})
	w.watchChapter(gen, ch)
	w.nextID = 0
	for range n {
		if err := w.addWorker(gen); err != nil {
			return err
		}
	}
	return nil
}

// stopAll stops every worker and the directory watch, removes the
// chapter's znodes, and returns how many workers were alive. The
// director's (or Close's, once the director is gone). The list is taken
// under mu; the stops, up to stopWait each and side by side, run outside.
func (w *World) stopAll() int {
	w.gen.Add(1) // from now on nothing of this chapter reaches the view
	w.mu.Lock()
	workers := w.workers
	w.workers = nil
	w.mu.Unlock()
	alive := 0
	var wg sync.WaitGroup
	for _, wk := range workers {
		if !wk.dead.Load() {
			alive++
		}
		wg.Add(1)
		go func() { defer wg.Done(); wk.stop() }()
	}
	wg.Wait()
	if w.stopDir != nil {
		w.stopDir()
		<-w.dirDone
		w.stopDir = nil
	}
	if w.chapter.Name != "" {
		// Also after ctx ended (Ctrl-C, SIGHUP): the admin session is
		// still open, and nothing we created may stay behind.
		w.cleanup(path.Join(w.cfg.Base, w.chapter.Name))
	}
	return alive
}

// cleanup deletes the tree at p with the admin session, bounded in time
// in case the server went away.
func (w *World) cleanup(p string) {
	done := make(chan struct{})
	go func() { defer close(done); deleteTree(w.admin, p) }()
	select {
	case <-done:
	case <-time.After(stopWait):
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
