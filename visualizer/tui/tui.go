// Package tui is lockstep's visualizer engine: K workers, each with its own
// ZooKeeper session, run a chapter's real lock against a real server, and
// the terminal shows the queue of lock nodes as ZooKeeper has it, who
// watches whom, which watchers a deletion wakes, and what each worker is
// doing. Keys kill or expire a worker, add or remove one, pause, change the
// pace, or switch chapter.
//
// The engine knows no chapter: it shows the scenes (internal/scene) it is
// given, and visualizer/main.go is the one place that lists them:
//
//	err := tui.Run(ctx, tui.Options{Scenes: scenes, Chapter: "04"})
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
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/scene"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
)

// Options says what to run. Scenes is required; the other zero values run
// the first scene with 5 workers against a server from zkserver.Start.
type Options struct {
	Scenes  []scene.Scene // every chapter that can be shown, in key order
	Chapter string        // "04", "4" or "04-sequential-lock"; default: the first scene
	Servers string        // host:port,…; empty: $ZK_SERVERS, else Docker, else a local install
	Workers int           // default 5
	Hold    time.Duration // time inside the critical section; default 300ms
	Session time.Duration // session timeout; default zkconn.DefaultSessionTimeout
	// Base is the znode under which each chapter gets its own. Default: a
	// root of this run's own, /lockstep/visualizer/run-<random>, deleted on
	// the way out, so that learners sharing one server never meet.
	Base string
	// Workshop: the scenes run the learner's lock (the visualizer was built
	// with -tags workshop and an -overlay); the header says "your lock".
	Workshop bool

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
	keys := map[string]bool{}
	for _, s := range o.Scenes {
		if err := s.Check(); err != nil {
			return fmt.Errorf("tui: %w", err)
		}
		if keys[s.Key] {
			return fmt.Errorf("tui: two scenes for chapter %s", s.Key)
		}
		keys[s.Key] = true
	}
	if len(o.Scenes) == 0 {
		return errors.New("tui: no scenes to show")
	}
	if o.Chapter == "" {
		o.Chapter = o.Scenes[0].Key
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
	case o.Base != "" && !strings.HasPrefix(o.Base, "/") || strings.HasSuffix(o.Base, "/") || strings.Contains(o.Base, "//"):
		return fmt.Errorf("tui: path %q: want an absolute znode path like /lockstep/visualizer", o.Base)
	}
	if _, ok := lookup(o.Scenes, o.Chapter); !ok {
		return fmt.Errorf("tui: chapter %q: want one of %s", o.Chapter, strings.Join(keysOf(o.Scenes), ", "))
	}
	_, err := parseScript(o.Script)
	return err
}

// Run starts the workers and shows them until the learner quits, ctx ends
// (Ctrl-C, SIGTERM, SIGHUP in the visualizer's main) or a scene's code
// panics; then it closes every session, deletes what it created and stops
// the server it started. A panic is returned as a *PanicError, after the
// terminal was restored.
func Run(ctx context.Context, opts Options) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	ch, _ := lookup(opts.Scenes, opts.Chapter)
	script, _ := parseScript(opts.Script)
	servers, stopServer, err := demo.Servers(ctx, opts.Servers, io.Discard)
	defer stopServer()
	if err != nil {
		return err
	}
	base, own := opts.Base, opts.Base == ""
	if own {
		base = "/lockstep/visualizer/run-" + randhex.String(4)
	}
	rt, err := newRuntime(ctx, servers, base, opts.Session, opts.Hold)
	if err != nil {
		return err
	}
	rt.scenes, rt.workshop, rt.ownBase = opts.Scenes, opts.Workshop, own
	defer rt.Close()

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
	p := tea.NewProgram(NewModel(rt, rt, keysOf(opts.Scenes)), tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(30))
	go func() {
		select {
		case <-rt.failed: // a worker panicked: end the view the normal way
			p.Quit()
		case <-rt.ctx.Done():
		}
	}()
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
	if perr := rt.panicked(); perr != nil {
		return perr
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// runFrames renders frames to opts.Out instead of running a terminal UI.
func runFrames(ctx context.Context, rt *runtime, ch scene.Scene, opts Options, script []scripted) error {
	lipgloss.SetColorProfile(termenv.Ascii)
	rt.mu.Lock()
	err := rt.start(ch, opts.Workers)
	rt.mu.Unlock()
	if perr := rt.panicked(); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}
	m := NewModel(rt, nil, keysOf(opts.Scenes))
	m.width, m.height = opts.Width, opts.Height
	start := time.Now()
	for i := range opts.Frames {
		select {
		case <-time.After(opts.Interval):
		case <-rt.failed:
			return rt.panicked()
		case <-ctx.Done():
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
