package world

import (
	"context"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/visualizer/observe"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The queue panel shows the lock directory as ZooKeeper has it, never as
// the events suggest: a children watch on it, re-set after each change,
// sends a worldmsg.QueueSnapshot each time.

// watchChapter starts the directory watch of chapter ch (the director's).
func (w *World) watchChapter(gen int64, ch scene.Scene) {
	dir, only := w.path, ""
	if ch.Single {
		dir, only = path.Dir(w.path), path.Base(w.path)
	}
	dctx, stop := context.WithCancel(w.ctx)
	w.stopDir, w.dirDone = stop, make(chan struct{})
	done := w.dirDone
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(done)
		if len(ch.Dirs) > 0 {
			w.watchDirs(dctx, gen, dir, ch.Dirs, ch.Tag)
			return
		}
		w.watchDir(dctx, dir, only, ch.Tag, w.putQueue(gen))
	}()
}

// watchSession reports what the worker's sessions go through. A worker on
// a Session reports its session's end and its next session itself (live);
// here we hear a plain conn's (01–03), on which go-zookeeper opens the
// next session by itself once the server expired one.
func (w *World) watchSession(ctx context.Context, wk *worker, events <-chan zk.Event, gen int64) {
	last := wk.current().conn.SessionID()
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
		if wk.onSession || wk.dead.Load() || w.gen.Load() != gen {
			continue
		}
		switch ev.State {
		case zk.StateExpired:
			wk.cut.Store(false)
			w.inbox.Put(expired(wk.name))
		case zk.StateHasSession:
			id := wk.current().conn.SessionID()
			if id == 0 || id == last {
				continue // back in the same session
			}
			last = id
			w.mu.Lock()
			w.sessions[id] = wk.name
			w.mu.Unlock()
			w.inbox.Put(worldmsg.Notice{Of: worldmsg.NoticeNewSession, Worker: wk.name, Arg: fmt.Sprintf("%#x", id)})
		}
	}
}

// putQueue hands a queue snapshot to the view, unless the chapter changed
// since the watch began.
func (w *World) putQueue(gen int64) func(worldmsg.QueueSnapshot) {
	return func(s worldmsg.QueueSnapshot) {
		if w.gen.Load() == gen {
			w.inbox.Put(s)
		}
	}
}

// watchDirs is watchDir on several subdirectories of dir at once (09's
// semaphore: its gate queue and its leases): one queue panel, each
// subdirectory's nodes in turn, named "sub/node".
func (w *World) watchDirs(ctx context.Context, gen int64, dir string, subs []string, tag func(string) string) {
	var mu sync.Mutex // guards parts; held only to merge, never across a ZooKeeper call
	parts := make([]worldmsg.QueueSnapshot, len(subs))
	put := w.putQueue(gen)
	var wg sync.WaitGroup
	for i, sub := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.watchDir(ctx, dir+"/"+sub, "", tag, func(s worldmsg.QueueSnapshot) {
				mu.Lock()
				defer mu.Unlock()
				for j := range s.Nodes {
					s.Nodes[j].Name = sub + "/" + s.Nodes[j].Name
				}
				parts[i] = s
				merged := worldmsg.QueueSnapshot{Dir: dir}
				for _, p := range parts {
					merged.Nodes = append(merged.Nodes, p.Nodes...)
				}
				put(merged)
			})
		}()
	}
	wg.Wait()
}

// watchDir keeps the queue panel true to ZooKeeper (observe.Dir): a
// children watch on dir, re-set after each change; each new child is read
// once for its owner, or on every change when only names the one node
// watched, or while its owner is not known yet. Each snapshot goes to put.
func (w *World) watchDir(ctx context.Context, dir, only string, tag func(string) string, put func(worldmsg.QueueSnapshot)) {
	read := func(name string, cached *worldmsg.QueueNode) (worldmsg.QueueNode, bool) {
		if only != "" && name != only {
			return worldmsg.QueueNode{}, false
		}
		if cached != nil && only == "" && cached.Owner != "" {
			return *cached, true
		}
		return w.readNode(dir, name, tag)
	}
	observe.Dir(ctx, w.admin, dir, read, put, func(error) bool { return sleep(ctx, 200*time.Millisecond) })
}

// readNode reads one child for the queue: its owner (the worker whose
// session created it), kind and data. The read happens before mu is taken.
func (w *World) readNode(dir, name string, tag func(string) string) (worldmsg.QueueNode, bool) {
	q, st, ok := observe.Node(w.admin, dir, name, 24)
	if !ok {
		return q, false
	}
	w.mu.Lock()
	q.Owner = w.sessions[st.EphemeralOwner]
	w.mu.Unlock()
	if q.Owner == "" && q.Data != "" && w.isWorker(q.Data) {
		q.Owner = q.Data // a persistent node (02) names its creator in its data
	}
	if tag != nil {
		q.Kind = tag(name)
	}
	return q, true
}

// isWorker says whether name is one of ours (a node's data may name its
// owner when no session does).
func (w *World) isWorker(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.sessions {
		if n == name {
			return true
		}
	}
	return false
}
