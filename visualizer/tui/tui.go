// Package tui is lockstep's visualizer engine: the view of K workers, each
// with its own ZooKeeper session, running a chapter's real lock against a
// real server. It shows the queue of lock nodes as ZooKeeper has it, who
// watches whom, which watchers a deletion wakes, and what each worker is
// doing; its keys kill or expire a worker, add or remove one, pause,
// change the pace, or switch chapter.
//
// The engine knows no chapter and no server: it shows the scenes
// (visualizer/scene) it is given, and a World (visualizer/world is the live
// one) tells it what happens and does what its keys ask.
// visualizer/main.go is the one place that lists the scenes and builds
// the world:
//
//	w, err := world.New(ctx, world.Config{Servers: servers, Scenes: scenes})
//	…
//	err = tui.Run(ctx, w, tui.Options{Scenes: scenes, Chapter: "04"})
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// World is what Run shows: the keys act on it (Controller) and it tells
// what happened (Source). visualizer/world is the real one.
type World interface {
	Controller
	Source
	// Start runs chapter ch with n workers, the first chapter shown.
	Start(ch scene.Scene, n int) error
	// Pending is what happened so far, without waiting (-frames).
	Pending() []worldmsg.Msg
	// Failed is closed when the scenes' code panicked; Err then returns
	// the panic (nil before).
	Failed() <-chan struct{}
	Err() error
}

// Options says what to show. Scenes is required; the other zero values
// show the first scene with 5 workers.
type Options struct {
	Scenes  []scene.Scene // every chapter that can be shown, in key order
	Chapter string        // "04", "4" or "04-sequential-lock"; default: the first scene
	Workers int           // default 5
	// Lang is the view's language: "zh" for Chinese, else English (the
	// engine's Texts, and each scene's Chinese words).
	Lang string

	// Script presses keys at given times: "2s:k,5s:e,8s:3" (key names as in
	// the help bar; "space", "up", "down" spelled out).
	Script string

	// Frames > 0: no terminal UI; render that many frames, one every
	// Interval, colour off, Width×Height, to Out (default os.Stdout), then
	// return. For docs and tests.
	Frames        int
	Interval      time.Duration // default FrameInterval
	Width, Height int           // default FrameWidth×FrameHeight
	Out           io.Writer
}

// Every frame mode (Run's, RunReplay's, RunObserve's: the visualizer's
// -frames) prints at this size and pace unless told otherwise, and a view
// has this size until its terminal says its own.
const (
	FrameWidth    = 100
	FrameHeight   = 30
	FrameInterval = 500 * time.Millisecond
)

// frameDefaults fills in the zero values of a frame mode's size, pace and
// output.
func frameDefaults(width, height *int, interval *time.Duration, out *io.Writer) {
	if *width == 0 {
		*width = FrameWidth
	}
	if *height == 0 {
		*height = FrameHeight
	}
	if interval != nil && *interval == 0 {
		*interval = FrameInterval
	}
	if *out == nil {
		*out = os.Stdout
	}
}

// Check fills in o's defaults and says what is wrong with it, before
// anything connects.
func (o *Options) Check() error { return o.defaults() }

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
	frameDefaults(&o.Width, &o.Height, &o.Interval, &o.Out)
	switch {
	case o.Workers < 1 || o.Workers > 256:
		return fmt.Errorf("tui: %d workers: want 1 to 256", o.Workers)
	case o.Width < 40 || o.Height < 12:
		return fmt.Errorf("tui: %dx%d: want at least 40x12", o.Width, o.Height)
	}
	if _, ok := lookup(o.Scenes, o.Chapter); !ok {
		return fmt.Errorf("tui: chapter %q: want one of %s", o.Chapter, strings.Join(keysOf(o.Scenes), ", "))
	}
	_, err := parseScript(o.Script)
	return err
}

// Run starts opts.Chapter in w and shows it until the learner quits, ctx
// ends (Ctrl-C, SIGTERM, SIGHUP in the visualizer's main) or a scene's code
// panics, which Run returns (w.Err()) after the terminal was restored.
// The caller closes w afterwards: its sessions, its nodes.
func Run(ctx context.Context, w World, opts Options) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	ch, _ := lookup(opts.Scenes, opts.Chapter)
	script, _ := parseScript(opts.Script)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Frames > 0 {
		return runFrames(ctx, w, ch, opts, script)
	}
	m := NewModel(w, w, keysOf(opts.Scenes)).inLang(opts.Lang)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(30))
	go func() {
		if err := w.Start(ch, opts.Workers); err != nil {
			p.Send(lockEventMsg{[]worldmsg.Msg{worldmsg.Notice{Text: "start: " + err.Error()}}})
		}
	}()
	go func() {
		select {
		case <-w.Failed(): // a worker panicked: end the view the normal way
			p.Quit()
		case <-ctx.Done():
		}
	}()
	go func() {
		start := time.Now()
		for _, s := range script {
			select {
			case <-time.After(time.Until(start.Add(s.at))):
			case <-ctx.Done():
				return
			}
			p.Send(s.key)
		}
	}()
	_, err := p.Run()
	if perr := w.Err(); perr != nil {
		return perr
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// runFrames renders frames to opts.Out instead of running a terminal UI.
// The keys' commands run on goroutines of their own, as in the terminal,
// and are waited for before it returns.
func runFrames(ctx context.Context, w World, ch scene.Scene, opts Options, script []scripted) error {
	lipgloss.SetColorProfile(termenv.Ascii)
	err := w.Start(ch, opts.Workers)
	if perr := w.Err(); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}
	var cmds sync.WaitGroup
	defer cmds.Wait()
	m := NewModel(w, nil, keysOf(opts.Scenes)).inLang(opts.Lang)
	m.width, m.height = opts.Width, opts.Height
	start := time.Now()
	for i := range opts.Frames {
		select {
		case <-time.After(opts.Interval):
		case <-w.Failed():
			return w.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
		now := time.Now()
		m = m.apply(w.Pending())
		for len(script) > 0 && now.Sub(start) >= script[0].at {
			next, cmd := m.key(script[0].key)
			m = next.(Model)
			if cmd != nil {
				cmds.Add(1)
				go func() { defer cmds.Done(); cmd() }()
			}
			script = script[1:]
		}
		m = m.apply(w.Pending())
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
