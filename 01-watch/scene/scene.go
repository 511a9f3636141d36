// Package scene is chapter 01 in the visualizer. There is no lock: worker-1
// writes the znode "config" once per round and every other worker sets a
// data watch on it (GetW), is notified once, and then has NO watch until it
// reads again one hold later. A write made meanwhile reaches nobody, and
// the next read skips a version. Expire a watcher (e): its watch dies with
// the session and it must set it again on its new session.
//
// The workers talk to go-zookeeper directly: watch.Loop re-reads at once,
// which would hide the gap this view is about.
package scene

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 01's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "01",
		Name:  "01-watch",
		Title: "watches fire once: worker-1 writes, the others watch",
		Look:  "after each write the fired watches vanish (no ←) until set again; e: expire",
		Words: scene.Words{Queue: "ZNODE", Requesting: "no watch", Waiting: "watching",
			Holding: "writing", Acquired: "writes", Woken: "fired/write", PerAcq: "write"},
		ZH: scene.Chinese{Title: "监听只触发一次：worker-1 写，其他客户端监听",
			Look: "每次写之后，触发过的监听就消失了（没有 ←），直到重新设置；e：会话过期",
			Words: scene.Words{Queue: "ZNODE", Requesting: "无监听", Waiting: "监听中",
				Holding: "写入中", Acquired: "写入", Woken: "触发/写入", PerAcq: "写入"},
			Describe: describeZH},
		Single: true,
		Leaf:   "config",
		Watch:  true,
		Setup: func(_ context.Context, admin *zk.Conn, path string) error {
			auth, err := zksession.AuthFromEnv() // the visualizer's sessions authenticate with ZK_AUTH
			if err != nil {
				return err
			}
			_, err = admin.Create(path, []byte("v0"), 0, zksession.ACL(auth)) // creator-only under ZK_AUTH
			return err
		},
		NewWorker: func(w scene.Worker) (scene.Part, error) {
			if w.Index == 1 {
				return &writer{conn: w.Conn, path: w.Path, obs: w.Observer}, nil
			}
			return &watcher{conn: w.Conn, path: w.Path, obs: w.Observer}, nil
		},
		Describe: describe,
	}
}

// describe says what happened in the words of chapter 01: writes, reads
// and watches, not acquisitions.
func describe(e event.Event) string {
	node := event.Short(e.Node)
	switch e.Kind {
	case event.Acquired: // the writer's write
		return e.Owner + " wrote " + e.Detail + " to " + node
	case event.Released:
		return ""
	case event.Notified:
		return e.Owner + " notified: " + strings.TrimPrefix(e.Detail, "Event") + " " + node + " (watch used up)"
	case event.WatchSet:
		return e.Owner + " watches " + node + " (" + string(e.Op) + ")"
	case event.Info:
		return e.Owner + " " + e.Detail
	}
	return e.String()
}

// describeZH is describe in Chinese.
func describeZH(e event.Event) string {
	node := event.Short(e.Node)
	switch e.Kind {
	case event.Acquired:
		return e.Owner + " 把 " + e.Detail + " 写入 " + node
	case event.Released:
		return ""
	case event.Notified:
		return e.Owner + " 收到通知：" + strings.TrimPrefix(e.Detail, "Event") + " " + node + "（监听已用掉）"
	case event.Info:
		return e.Owner + " " + scene.ChineseDetail(e.Detail)
	}
	return scene.ChineseLine(e)
}

// writer sets the node's data: each Lock is one write, shown as a short
// "hold" so the view has time to show it.
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
	w.obs.Emit(event.Event{Kind: event.Acquired, Node: w.path, Detail: data})
	return nil
}

func (w *writer) Unlock(context.Context) error {
	w.obs.Emit(event.Event{Kind: event.Released, Node: w.path})
	return nil
}

// watcher reads with a data watch once per round and returns when the
// watch fires.
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
