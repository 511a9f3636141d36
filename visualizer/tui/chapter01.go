package tui

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Chapter 01 has no lock: it shows what a watch is. Worker 1 writes the
// znode "config" once per round; every other worker sets a data watch on
// it (GetW), is notified once, and then has NO watch until it sets it
// again one hold later — a change made meanwhile reaches nobody who is
// not watching. Expire a watcher (e): its watch dies with the session
// (EventNotWatching) and it must set it again on its new session.
//
// This adapter talks to go-zookeeper directly: chapter 01's own Loop
// re-registers at once, which would hide the gap this view is about.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "01", Name: "01-watch",
			Title:  "watches fire once: worker-1 writes, the others watch",
			Look:   "after each write the fired watches vanish (no ←) until set again; e: expire",
			Watch:  true,
			Labels: map[State]string{Waiting: "watching", Requesting: "no watch", Holding: "writing"}},
		Single: true,
		Leaf:   "config",
		Setup: func(_ context.Context, admin *zk.Conn, path string) error {
			_, err := admin.Create(path, []byte("v0"), 0, zk.WorldACL(zk.PermAll))
			return err
		},
		NewWorker: func(w Worker) (Locker, error) {
			if w.Index == 1 {
				return &writer{conn: w.Conn, path: w.Path, obs: w.Observer}, nil
			}
			return &watcher{conn: w.Conn, path: w.Path, obs: w.Observer}, nil
		},
	})
}

// writer sets the node's data; Lock is one write, shown as a short hold.
type writer struct {
	conn *zk.Conn
	path string
	obs  event.Observer
	n    int
}

func (w *writer) Lock(ctx context.Context) error {
	w.n++
	data := fmt.Sprintf("v%d", w.n)
	w.obs.Emit(event.Event{Kind: event.Request, Op: "set", Node: w.path, Detail: data})
	if _, err := w.conn.Set(w.path, []byte(data), -1); err != nil {
		return fmt.Errorf("set %s: %w", w.path, err)
	}
	w.obs.Emit(event.Event{Kind: event.Acquired, Node: w.path, Detail: "wrote " + data})
	return nil
}

func (w *writer) Unlock(context.Context) error {
	w.obs.Emit(event.Event{Kind: event.Released, Node: w.path})
	return nil
}

// watcher sets one data watch per round and returns when it fires.
type watcher struct {
	conn *zk.Conn
	path string
	obs  event.Observer
	seen string
}

func (w *watcher) Lock(ctx context.Context) error {
	w.obs.Emit(event.Event{Kind: event.Request, Op: "get", Node: w.path})
	data, _, ch, err := w.conn.GetW(w.path)
	if err != nil {
		return fmt.Errorf("watch %s: %w", w.path, err)
	}
	// The read that sets the watch is also how we learn the value: the
	// event will carry none.
	if v := string(data); v != w.seen {
		w.obs.Emit(event.Event{Kind: event.Info, Node: w.path, Detail: "reads " + v})
		w.seen = v
	}
	w.obs.Emit(event.Event{Kind: event.WatchSet, Op: "get", Node: w.path})
	select {
	case ev := <-ch:
		w.obs.Emit(event.Event{Kind: event.Notified, Node: w.path, Detail: ev.Type.String()})
		if ev.Err != nil && !errors.Is(ev.Err, zk.ErrSessionExpired) {
			return ev.Err
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *watcher) Unlock(context.Context) error { return nil }
