package classroom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ChangeKind says what a Change reports.
type ChangeKind int

const (
	Progressed ChangeKind = iota + 1 // Progress holds the learner's progress now
	Online                           // the presence node exists
	Offline                          // the presence node is gone: session closed or expired
	Left                             // the learner's subtree is gone (the host removed it)
)

func (k ChangeKind) String() string {
	switch k {
	case Progressed:
		return "progressed"
	case Online:
		return "online"
	case Offline:
		return "offline"
	case Left:
		return "left"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// Change is one thing the host's screen learns about one learner.
type Change struct {
	Name     string
	Kind     ChangeKind
	Progress Progress  // Progressed
	Seen     time.Time // when the watch brought it (the host's clock)
}

// Watch sends a Change for every learner's state, then one for every
// change, until ctx ends or the host's session does. It is built on
// watches only: a children watch on learners, and per learner a data
// watch on the progress node and an exists watch on the presence node,
// each set again with the read that follows its notification (a watch
// fires once). So the latest state is never missed; an intermediate one
// that came and went between a notification and the read is.
func (h *Host) Watch(ctx context.Context, changes chan<- Change) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &roster{h: h, changes: changes, each: map[string]context.CancelFunc{}, failed: make(chan error, 1)}
	defer w.wg.Wait()
	defer cancel()
	err := w.learners(ctx)
	select {
	case e := <-w.failed:
		err = e
	default:
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return ctx.Err()
	}
	return err
}

type roster struct {
	h       *Host
	changes chan<- Change
	each    map[string]context.CancelFunc // per learner, the watchers' context
	wg      sync.WaitGroup
	failed  chan error
}

func (w *roster) send(ctx context.Context, c Change) error {
	c.Seen = time.Now()
	select {
	case w.changes <- c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fail records a watcher's error; the first one ends Watch.
func (w *roster) fail(err error) {
	select {
	case w.failed <- err:
	default:
	}
}

// fired waits for a watch's event and says whether to read again.
func fired(ctx context.Context, ch <-chan zk.Event) error {
	select {
	case ev := <-ch:
		if ev.Type == zk.EventNotWatching {
			return fmt.Errorf("classroom: watch ended: %w", ev.Err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// learners keeps a children watch on learners and starts or stops the
// watchers of each name.
func (w *roster) learners(ctx context.Context) error {
	for {
		names, _, ch, err := w.h.conn.ChildrenW(ctx, learnersPath(w.h.root))
		if err != nil {
			return fmt.Errorf("classroom: list the learners: %w", err)
		}
		now := map[string]bool{}
		for _, n := range names {
			now[n] = true
			if _, ok := w.each[n]; !ok {
				lctx, stop := context.WithCancel(ctx)
				w.each[n] = stop
				w.wg.Add(2)
				go w.watchProgress(lctx, n)
				go w.watchPresence(lctx, n)
			}
		}
		for n, stop := range w.each {
			if !now[n] {
				stop()
				delete(w.each, n)
				if err := w.send(ctx, Change{Name: n, Kind: Left}); err != nil {
					return err
				}
			}
		}
		select {
		case err := <-w.failed:
			return err
		default:
		}
		if err := firedOrFailed(ctx, ch, w.failed); err != nil {
			return err
		}
	}
}

func firedOrFailed(ctx context.Context, ch <-chan zk.Event, failed <-chan error) error {
	select {
	case err := <-failed:
		return err
	default:
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fired(ctx, ch) }()
	select {
	case err := <-done:
		return err
	case err := <-failed:
		return err
	}
}

// watchProgress reads the progress node with a data watch, sends what it
// holds, and reads again when the watch fires.
func (w *roster) watchProgress(ctx context.Context, name string) {
	defer w.wg.Done()
	for {
		data, _, ch, err := w.h.conn.GetW(ctx, progressPath(w.h.root, name))
		if errors.Is(err, zk.ErrNoNode) || ctx.Err() != nil {
			return // the learner is leaving: the children watch says so
		}
		if err != nil {
			w.fail(fmt.Errorf("classroom: read the progress of %q: %w", name, err))
			return
		}
		var p Progress
		if json.Unmarshal(data, &p) == nil && p.check() == nil {
			if w.send(ctx, Change{Name: name, Kind: Progressed, Progress: p}) != nil {
				return
			}
		}
		if err := fired(ctx, ch); err != nil {
			if ctx.Err() == nil {
				w.fail(err)
			}
			return
		}
	}
}

// watchPresence keeps an exists watch on the presence node.
func (w *roster) watchPresence(ctx context.Context, name string) {
	defer w.wg.Done()
	last := ChangeKind(0)
	for {
		ok, _, ch, err := w.h.conn.ExistsW(ctx, presencePath(w.h.root, name))
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.fail(fmt.Errorf("classroom: presence of %q: %w", name, err))
			return
		}
		kind := Offline
		if ok {
			kind = Online
		}
		if kind != last {
			if w.send(ctx, Change{Name: name, Kind: kind}) != nil {
				return
			}
			last = kind
		}
		if err := fired(ctx, ch); err != nil {
			if ctx.Err() == nil {
				w.fail(err)
			}
			return
		}
	}
}
