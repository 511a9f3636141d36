// Package tui is lockstep's visualizer: K workers, each with its own
// ZooKeeper session, contend with a chapter's real lock against a real
// server, and the terminal shows the queue of lock nodes as ZooKeeper has
// it, who watches whom, which watchers a deletion wakes, and what each
// worker is doing. Keys kill or expire a worker, add or remove one, pause,
// change the pace, or switch chapter.
//
// A chapter's main.go can open it for that chapter:
//
//	err := tui.Run(ctx, tui.Options{Chapter: "04"})
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
)

// Options says what to run. The zero value runs chapter 04 with 5 workers
// against a server from zkserver.Start.
type Options struct {
	Chapter    string        // "04", "4" or "04-sequential-lock"; default 04
	Servers    string        // host:port,…; empty: $ZK_SERVERS, else Docker, else a local install
	Workers    int           // default 5
	Hold       time.Duration // time inside the critical section; default 300ms
	Session    time.Duration // session timeout; default zkconn.DefaultSessionTimeout
	Base       string        // znode under which each chapter gets its own lock; default /lockstep/visualizer
	Persistent bool          // chapter 02: the persistent-node variant
	// Impl is "reference" (default) or "exercise": the learner's lock in
	// NN-name/exercise. The program's main must call PreflightChild first.
	Impl string

	// Script presses keys at given times: "2s:k,5s:e,8s:3" (key names as in
	// the help bar; "space", "up", "down" spelled out).
	Script string

	// Frames > 0: no terminal UI; render that many frames, one every
	// Interval, colour off, Width×Height, to Out (default os.Stdout), then
	// return. For docs and tests.
	Frames        int
	Interval      time.Duration // default 500ms
	Width, Height int           // default 100×30
	Out           io.Writer
}

func (o *Options) defaults() error {
	if o.Chapter == "" {
		o.Chapter = "04"
	}
	if o.Workers == 0 {
		o.Workers = 5
	}
	if o.Hold == 0 {
		o.Hold = 300 * time.Millisecond
	}
	if o.Session == 0 {
		o.Session = zkconn.DefaultSessionTimeout
	}
	if o.Base == "" {
		o.Base = "/lockstep/visualizer"
	}
	if o.Interval == 0 {
		o.Interval = 500 * time.Millisecond
	}
	if o.Width == 0 {
		o.Width = 100
	}
	if o.Height == 0 {
		o.Height = 30
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	switch {
	case o.Workers < 1 || o.Workers > 256:
		return fmt.Errorf("tui: %d workers: want 1 to 256", o.Workers)
	case o.Hold < 0:
		return fmt.Errorf("tui: hold %v: want ≥ 0", o.Hold)
	case o.Session < 0:
		return fmt.Errorf("tui: session %v: want > 0", o.Session)
	case o.Width < 40 || o.Height < 12:
		return fmt.Errorf("tui: %dx%d: want at least 40x12", o.Width, o.Height)
	}
	switch o.Impl {
	case "", "reference", "exercise":
	default:
		return fmt.Errorf("tui: impl %q: want reference or exercise", o.Impl)
	}
	if _, ok := lookup(o.Chapter); !ok {
		return fmt.Errorf("tui: chapter %q: want one of %s", o.Chapter, strings.Join(Chapters(), ", "))
	}
	_, err := parseScript(o.Script)
	return err
}

// Run starts the workers and shows them until the learner quits (or ctx
// ends), then closes every session and the server it started.
func Run(ctx context.Context, opts Options) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	ch, _ := lookup(opts.Chapter)
	script, _ := parseScript(opts.Script)
	servers, stopServer, err := demo.Servers(ctx, opts.Servers, io.Discard)
	defer stopServer()
	if err != nil {
		return err
	}
	rt, err := newRuntime(ctx, servers, opts.Base, opts.Session, opts.Hold)
	if err != nil {
		return err
	}
	rt.persistent = opts.Persistent
	rt.exercise = opts.Impl == "exercise"
	defer rt.Close()
	if rt.exercise {
		if err := preflight(ctx, rt, ch); err != nil {
			return err
		}
	}

	if opts.Frames > 0 {
		return runFrames(ctx, rt, ch, opts, script)
	}
	go func() {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if err := rt.start(ch, opts.Workers); err != nil {
			rt.inbox.put(Notice{Text: "start: " + err.Error()})
		}
	}()
	p := tea.NewProgram(NewModel(rt, rt, Chapters()), tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(30))
	go func() {
		start := time.Now()
		for _, s := range script {
			if !sleep(rt.ctx, time.Until(start.Add(s.at))) {
				return
			}
			p.Send(s.key)
		}
	}()
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// runFrames renders frames to opts.Out instead of running a terminal UI.
func runFrames(ctx context.Context, rt *runtime, ch Chapter, opts Options, script []scripted) error {
	lipgloss.SetColorProfile(termenv.Ascii)
	rt.mu.Lock()
	err := rt.start(ch, opts.Workers)
	rt.mu.Unlock()
	if err != nil {
		return err
	}
	m := NewModel(rt, nil, Chapters())
	m.width, m.height = opts.Width, opts.Height
	start := time.Now()
	for i := range opts.Frames {
		if !sleep(ctx, opts.Interval) {
			return ctx.Err()
		}
		now := time.Now()
		m = m.apply(rt.inbox.take())
		for len(script) > 0 && now.Sub(start) >= script[0].at {
			next, cmd := m.key(script[0].key)
			m = next.(Model)
			if cmd != nil {
				rt.wg.Add(1)
				go func() { defer rt.wg.Done(); cmd() }()
			}
			script = script[1:]
		}
		m = m.apply(rt.inbox.take())
		m.now = now
		fmt.Fprintf(opts.Out, "── frame %d/%d ──\n%s\n", i+1, opts.Frames, m.View())
	}
	return nil
}

type scripted struct {
	at  time.Duration
	key tea.KeyMsg
}

// parseScript reads "2s:k,5s:e" into timed key presses, in time order.
func parseScript(s string) ([]scripted, error) {
	var out []scripted
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		at, k, ok := strings.Cut(part, ":")
		d, err := time.ParseDuration(at)
		if !ok || err != nil || k == "" {
			return nil, fmt.Errorf("tui: script %q: want DURATION:KEY, like 2s:k", part)
		}
		if len(out) > 0 && d < out[len(out)-1].at {
			return nil, fmt.Errorf("tui: script %q: times must not go backwards", part)
		}
		out = append(out, scripted{at: d, key: keyMsg(k)})
	}
	return out, nil
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// FromDemo turns a lock chapter's demo flags into Options for that chapter,
// for "go run ./NN-name -tui". Only the flags given on the command line are
// carried over; the others keep the visualizer's defaults (the timeline's
// 50 ms hold is too fast to watch).
func FromDemo(chapter string, cfg demo.Config) Options {
	o := Options{Chapter: chapter, Servers: cfg.Servers}
	if cfg.Set["workers"] {
		o.Workers = cfg.Workers
	}
	if cfg.Set["hold"] {
		o.Hold = cfg.Hold
	}
	if cfg.Set["session"] {
		o.Session = cfg.Session
	}
	return o
}
