package main

// The demo's printing and small helpers: not the lesson, read main.go first.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
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
