package world

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkpath"
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

// watchDir keeps the queue panel true to ZooKeeper: a children watch on
// dir, re-set after each change; each new child is read once for its owner.
// Each snapshot goes to put.
func (w *World) watchDir(ctx context.Context, dir, only string, tag func(string) string, put func(worldmsg.QueueSnapshot)) {
	known := map[string]worldmsg.QueueNode{}
	for ctx.Err() == nil {
		children, _, changed, err := w.admin.ChildrenW(dir)
		if errors.Is(err, zk.ErrNoNode) {
			put(worldmsg.QueueSnapshot{Dir: dir, Missing: true})
			ok, _, created, err := w.admin.ExistsW(dir)
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
		snap := worldmsg.QueueSnapshot{Dir: dir}
		seen := map[string]bool{}
		for _, c := range children {
			if only != "" && c != only {
				continue
			}
			seen[c] = true
			q, ok := known[c]
			if !ok || only != "" || q.Owner == "" {
				if q, ok = w.readNode(dir, c, tag); !ok {
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
		snap.Sort()
		put(snap)
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// readNode reads one child for the queue: its owner (the worker whose
// session created it), kind and data. The read happens before mu is taken.
func (w *World) readNode(dir, name string, tag func(string) string) (worldmsg.QueueNode, bool) {
	data, st, err := w.admin.Get(dir + "/" + name)
	if err != nil {
		return worldmsg.QueueNode{}, false
	}
	q := worldmsg.QueueNode{Name: name, Seq: -1, Persistent: st.EphemeralOwner == 0}
	if seq, ok := zkpath.SequenceOf(name); ok {
		q.Seq = seq // the view sorts and shortens by it
	}
	w.mu.Lock()
	q.Owner = w.sessions[st.EphemeralOwner]
	w.mu.Unlock()
	if s := string(data); len(s) <= 24 && !strings.ContainsFunc(s, notPrintable) {
		q.Data = s
		if q.Owner == "" && w.isWorker(s) {
			q.Owner = s // a persistent node (02) names its creator in its data
		}
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

func notPrintable(r rune) bool { return !unicode.IsPrint(r) }
