package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// A frame is what a person sees: a replay printed with -frames and no size
// given is, byte for byte, the screen of the replay in a terminal of the
// frame size after b (the breaking event).
func TestAFrameIsTheScreenOfATerminalOfTheFrameSize(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	var out bytes.Buffer
	if err := RunReplay(context.Background(), herdRecording(t), sceneOf(t, "04"), ReplayOptions{Frames: 1, Out: &out}); err != nil {
		t.Fatal(err)
	}
	frame, ok := strings.CutPrefix(out.String(), "── frame 1/1 ──\n")
	if !ok {
		t.Fatalf("the frame has no frame line:\n%s", out.String())
	}
	m := NewReplayModel(herdReplay(t))
	m.playing = false
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(FrameWidth, FrameHeight))
	tm.Send(keyMsg("b"))
	tm.Send(keyMsg("q"))
	live := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(ReplayModel).View()
	if frame != live+"\n" {
		t.Errorf("the -frames replay at its default size:\n%s\ndiffers from the terminal's %dx%d screen:\n%s", frame, FrameWidth, FrameHeight, live)
	}
	if n := strings.Count(live, "\n") + 1; n != FrameHeight {
		t.Errorf("the screen has %d lines, want %d", n, FrameHeight)
	}
}

// The live view, the replay and the observe mode print their frames at
// one size and pace when none is given: FrameWidth×FrameHeight, one every
// FrameInterval.
func TestEveryFrameModeHasTheSameDefaults(t *testing.T) {
	o := Options{Scenes: []scene.Scene{sceneOf(t, "04")}}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if o.Width != FrameWidth || o.Height != FrameHeight || o.Interval != FrameInterval {
		t.Errorf("the live view's frames: %dx%d every %v, want %dx%d every %v", o.Width, o.Height, o.Interval, FrameWidth, FrameHeight, FrameInterval)
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	for name, print := range map[string]func(*bytes.Buffer) error{
		"the replay": func(b *bytes.Buffer) error {
			return RunReplay(context.Background(), herdRecording(t), sceneOf(t, "04"), ReplayOptions{Frames: 1, Out: b})
		},
		"the observe mode": func(b *bytes.Buffer) error {
			return RunObserve(context.Background(), noNews{}, ObserveOptions{Dir: "/locks/x", Frames: 1, Out: b})
		},
	} {
		var b bytes.Buffer
		start := time.Now()
		if err := print(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:] // under "── frame 1/1 ──"
		wide := 0
		for _, l := range lines {
			wide = max(wide, visibleWidth(l))
		}
		if len(lines) != FrameHeight || wide > FrameWidth {
			t.Errorf("%s prints a frame of %d lines, %d wide, want %d lines at most %d wide", name, len(lines), wide, FrameHeight, FrameWidth)
		}
		if name == "the observe mode" && time.Since(start) < FrameInterval {
			t.Errorf("the observe mode printed its first frame after %v, before FrameInterval (%v)", time.Since(start), FrameInterval)
		}
	}
}

// noNews is an observed directory where nothing happens.
type noNews struct{}

func (noNews) Next() []worldmsg.Msg    { return nil }
func (noNews) Pending() []worldmsg.Msg { return nil }

// One help bar for every screen: too narrow for all its keys, the live
// view's, a replay's and the observe mode's still end in the legend and
// quit keys (where they have them), never cut away.
func TestEveryHelpBarKeepsItsQuitKeyWhenNarrow(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	live := started(t, nil).apply(handOff())
	replay := NewReplayModel(herdReplay(t)).shown
	observe := NewObserveModel(nil, "/locks/x", "en")
	observe.view.width, observe.view.height = 40, FrameHeight
	for _, w := range []int{40, 56} {
		for name, bar := range map[string]string{"the live view": live.helpView(w), "a replay": replay.helpView(w)} {
			if visibleWidth(bar) > w || !strings.Contains(bar, "? legend") || !strings.Contains(bar, "q quit") {
				t.Errorf("%s at %d columns: help bar %q, want ? legend and q quit within %d columns", name, w, bar, w)
			}
		}
	}
	lines := strings.Split(observe.View(), "\n")
	if last := lines[len(lines)-1]; visibleWidth(last) > 40 || !strings.HasPrefix(last, "q quit") {
		t.Errorf("the observe mode at 40 columns ends in %q, want q quit first", last)
	}
}
