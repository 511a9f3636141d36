package main

// The demo's printing and small helpers: not the lesson, read main.go first.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

func (l *lesson) title(s string) { fmt.Fprintf(l.out, "\n== %s\n", s) }

func (l *lesson) say(format string, args ...any) {
	fmt.Fprintf(l.out, "   "+format+"\n", args...)
}

// event waits for the one event of a watch and prints it as the articles
// do: path, state, type.
func (l *lesson) event(ctx context.Context, ch <-chan zk.Event) (zk.Event, error) {
	select {
	case ev := <-ch:
		line := fmt.Sprintf("→ event: path=%s state=%s type=%s", ev.Path, ev.State, ev.Type)
		if ev.Err != nil {
			line += " err=" + ev.Err.Error()
		}
		l.say("%s", line)
		return ev, nil
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-time.After(eventWait):
		return zk.Event{}, fmt.Errorf("no watch event after %v", eventWait)
	}
}

// quiet shows that a used-up watch delivers nothing more.
func (l *lesson) quiet(ch <-chan zk.Event) error {
	select {
	case ev, ok := <-ch:
		if ok {
			return fmt.Errorf("a used-up watch fired again: %+v", ev)
		}
		l.say("→ nothing: the watch's channel is closed, it fired once and is gone")
	case <-time.After(quietWait):
		l.say("→ no event within %v: the watch fired once and is gone", quietWait)
	}
	return nil
}

func (l *lesson) create(p, data string, flags int32) error {
	if _, err := l.conn.Create(p, []byte(data), flags, zk.WorldACL(zk.PermAll)); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	l.say("create %s", p)
	return nil
}

func (l *lesson) set(p, data string, version int32) error {
	stat, err := l.conn.Set(p, []byte(data), version)
	with := ""
	if version >= 0 {
		with = fmt.Sprintf(" if version is %d", version)
	}
	if err != nil {
		l.say("set %s = %q%s → %v", p, data, with, err)
		return fmt.Errorf("set %s: %w", p, err)
	}
	if version >= 0 {
		l.say("set %s = %q%s → ok, version %d", p, data, with, stat.Version)
	} else {
		l.say("set %s = %q", p, data)
	}
	return nil
}

func (l *lesson) delete(p string) error {
	if err := l.conn.Delete(p, -1); err != nil {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	l.say("delete %s", p)
	return nil
}

// getW reads a node and sets a data watch with the same request.
func (l *lesson) getW(p string) (<-chan zk.Event, error) {
	data, _, ch, err := l.conn.GetW(p)
	if err != nil {
		return nil, fmt.Errorf("get-watch %s: %w", p, err)
	}
	l.say("get %s with a watch → %q", p, data)
	return ch, nil
}

// reset makes root an empty persistent node.
func (l *lesson) reset() error {
	if err := zkconn.DeleteTree(l.conn, root); err != nil {
		return fmt.Errorf("clean %s: %w", root, err)
	}
	for _, p := range []string{path.Dir(root), root} {
		if _, err := l.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// negotiated is the session timeout the server will grant: it clamps the
// requested one to [minSessionTimeout, maxSessionTimeout] (by default 2 and
// 20 ticks). The client cannot ask the server, so we read its config with
// the "conf" four-letter word; if that is not allowed, we trust the request.
func negotiated(ctx context.Context, addr string, requested time.Duration) time.Duration {
	conf, err := zkserver.FourLetter(ctx, addr, "conf")
	if err != nil {
		return requested
	}
	ms := func(key string) time.Duration {
		for _, line := range strings.Split(conf, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
				if n, err := strconv.Atoi(v); err == nil {
					return time.Duration(n) * time.Millisecond
				}
			}
		}
		return 0
	}
	if lo := ms("minSessionTimeout"); lo > 0 && requested < lo {
		return lo
	}
	if hi := ms("maxSessionTimeout"); hi > 0 && requested > hi {
		return hi
	}
	return requested
}

func waitState(ctx context.Context, conn *zk.Conn, want zk.State) error {
	deadline := time.Now().Add(eventWait)
	for conn.State() != want {
		if time.Now().After(deadline) {
			return fmt.Errorf("connection still %s after %v, want %s", conn.State(), eventWait, want)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

func joinStates(states []zk.State) string {
	s := make([]string, len(states))
	for i, st := range states {
		s[i] = st.String()
	}
	return strings.Join(s, " → ")
}

// compact drops a state repeated right after itself.
func compact(states []zk.State) []zk.State {
	var out []zk.State
	for _, s := range states {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}
