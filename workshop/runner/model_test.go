package runner

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// fakeEnv records what the model asked the world to do.
type fakeEnv struct{ runs, resets, diffs []string }

func (f *fakeEnv) Run(ch string, tier course.Tier) tea.Cmd {
	f.runs = append(f.runs, ch+" "+tier.String())
	return nil
}
func (f *fakeEnv) Watch() tea.Cmd               { return nil }
func (f *fakeEnv) Reset(ch string) tea.Cmd      { f.resets = append(f.resets, ch); return nil }
func (f *fakeEnv) Diff(ch string) tea.Cmd       { f.diffs = append(f.diffs, ch); return nil }
func (f *fakeEnv) Visual(ch string) *exec.Cmd   { return exec.Command("true") }
func (f *fakeEnv) Replay(file string) *exec.Cmd { return exec.Command("true") }
func (f *fakeEnv) Save(state []byte) tea.Cmd    { return nil }

var exercises = []course.Exercise{
	{Chapter: "02", Dir: "02-naive-lock"}, {Chapter: "03", Dir: "03-watch-lock"},
	{Chapter: "04", Dir: "04-sequential-lock"}, {Chapter: "05", Dir: "05-rwlock"},
	{Chapter: "06", Dir: "06-reentrant"}, {Chapter: "07", Dir: "07-leader"}, {Chapter: "09", Dir: "09-semaphore"},
}

func newModel(t *testing.T, env Env, lang string) Model {
	t.Helper()
	untouched := map[string]bool{}
	for _, e := range exercises {
		untouched[e.Chapter] = true
	}
	return New(env, hint.MustLoad(), exercises, nil, untouched, lang)
}

func update(m Model, msgs ...tea.Msg) Model {
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	return m
}

func key(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func herd() course.Result {
	return course.Result{Tier: course.Lesson, Kind: course.Mistake, Failed: []string{"TestFirst/third,_we_watch_the_second,_not_the_holder"},
		First: "First(queue of 5, ours 2) watches the lowest node", Mistake: hint.MustLoad().Find("04", "herd"), Elapsed: 4 * time.Second}
}

func TestAPassingLessonStartsTheFullSuite(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, key("down"), key("down"), key("enter"))
	if strings.Join(env.runs, ",") != "04 lesson" {
		t.Fatalf("enter on 04 ran %v, want the lesson's tests of 04", env.runs)
	}
	m = update(m, RunDone{Chapter: "04", Result: course.Result{Tier: course.Lesson, Kind: course.Pass}})
	if strings.Join(env.runs, ",") != "04 lesson,04 full suite" {
		t.Fatalf("after the lesson passed: runs %v, want the full suite next", env.runs)
	}
	if got := m.Status("04"); !strings.Contains(got, "running the full suite") {
		t.Errorf("status while the full suite runs = %q", got)
	}
	m = update(m, RunDone{Chapter: "04", Result: course.Result{Tier: course.Full, Kind: course.Pass}})
	if m.Passed() != 1 || !strings.Contains(m.Status("04"), "passing") {
		t.Errorf("after the full suite passed: %d passed, status %q", m.Passed(), m.Status("04"))
	}
}

func TestAFailingLessonDoesNotRunTheFullSuiteAndHintsComeInStages(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, key("down"), key("down"), key("enter"), RunDone{Chapter: "04", Result: herd()})
	if len(env.runs) != 1 {
		t.Fatalf("runs %v: a failing lesson must not start the full suite", env.runs)
	}
	if !strings.Contains(m.Status("04"), "the herd") {
		t.Errorf("status = %q, want the mistake's name", m.Status("04"))
	}
	if strings.Contains(m.View(), "hint 1/3") {
		t.Error("a hint is shown before it was asked for")
	}
	m = update(m, key("h"))
	if v := m.View(); !strings.Contains(v, "hint 1/3") || strings.Contains(v, "hint 2/3") {
		t.Errorf("after one h, want the first hint only:\n%s", v)
	}
	m = update(m, key("h"), key("h"), key("h"))
	if v := m.View(); !strings.Contains(v, "hint 3/3") {
		t.Errorf("after four h, want all three hints:\n%s", v)
	}
	m = update(m, key("l"))
	if v := m.View(); !strings.Contains(v, "羊群效应") {
		t.Errorf("after l, want the hints in Chinese:\n%s", v)
	}
}

func TestASaveReRunsTheCheckWhileWatching(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, Saved{Chapter: "05"})
	if strings.Join(env.runs, ",") != "05 lesson" {
		t.Fatalf("a save of 05 ran %v", env.runs)
	}
	m = update(m, RunDone{Chapter: "05", Result: course.Result{Tier: course.Lesson, Kind: course.Todo, Todo: "TODO(workshop): x", Step: 1}})
	m = update(m, key("w"), Saved{Chapter: "05"})
	if len(env.runs) != 1 {
		t.Errorf("with watch off a save ran %v", env.runs)
	}
	if !strings.Contains(m.Status("05"), "TODO at step 1") {
		t.Errorf("status = %q", m.Status("05"))
	}
}

func TestResetAsksTwiceAndDiffIsOnRequest(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, key("x"))
	if len(env.resets) != 0 {
		t.Fatal("one x reset the file")
	}
	m = update(m, key("x"))
	if strings.Join(env.resets, ",") != "02" {
		t.Fatalf("resets %v", env.resets)
	}
	if len(env.diffs) != 0 {
		t.Fatal("the reference was shown unasked")
	}
	m = update(m, key("d"), DiffReady{Chapter: "02", Text: "--- a\n+++ b\n"})
	if m.screen != Diff {
		t.Fatal("d did not show the diff")
	}
	m = update(m, key("esc"))
	if m.screen != List {
		t.Fatal("esc did not go back")
	}
}

func TestEveryChapterPassingShowsTheCompletionScreen(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	for _, e := range exercises {
		m = update(m, RunDone{Chapter: e.Chapter, Result: course.Result{Tier: course.Full, Kind: course.Pass}})
	}
	if m.screen != Done || !strings.Contains(m.View(), "Every chapter passes") {
		t.Errorf("after every chapter passed:\n%s", m.View())
	}
}

// The golden frames are what a learner sees at 80×24 with colour off.
// Regenerate with: go test ./workshop/runner -run Golden -update
func TestGoldenFrames(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	progress := []tea.Msg{
		RunDone{Chapter: "02", Result: course.Result{Tier: course.Full, Kind: course.Pass}},
		RunDone{Chapter: "03", Result: course.Result{Tier: course.Full, Kind: course.Pass}},
		RunDone{Chapter: "04", Result: herd()},
		RunDone{Chapter: "05", Result: course.Result{Tier: course.Lesson, Kind: course.Todo, Todo: "TODO(workshop): hold if first; else watch the node just before ours", Step: 1}},
	}
	for _, c := range []struct {
		name string
		lang string
		keys []string
	}{
		{"list 80x24", "en", nil},
		{"herd with two hints 80x24", "en", []string{"down", "down", "h", "h"}},
		{"herd with a hint in Chinese 80x24", "zh", []string{"down", "down", "h"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := teatest.NewTestModel(t, newModel(t, nil, c.lang), teatest.WithInitialTermSize(80, 24))
			for _, msg := range progress {
				tm.Send(msg)
			}
			for _, k := range c.keys {
				tm.Send(key(k))
			}
			tm.Send(key("q"))
			m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
			m.quitting = false
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
}

func TestWrapBreaksAtSpacesAndBetweenChineseCharacters(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"the herd is back", 8, "the herd\nis back"},
		{"hint 2/3: 一次释放会唤醒所有等待者", 16, "hint 2/3: 一次释\n放会唤醒所有等待\n者"},
	} {
		if got := wrap(c.in, c.w); got != c.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		for _, l := range strings.Split(wrap(c.in, c.w), "\n") {
			if lipgloss.Width(l) > c.w {
				t.Errorf("line %q is wider than %d", l, c.w)
			}
		}
	}
}

func TestReplayOfAMistakeNoTestRecordedRecordsOneFirst(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	// The herd is named by TestFirst, a table test that records nothing.
	m = update(m, key("down"), key("down"), key("enter"), RunDone{Chapter: "04", Result: herd()})
	m = update(m, key("p"))
	if strings.Join(env.runs, ",") != "04 lesson,04 recording" {
		t.Fatalf("p with no recording ran %v, want the lesson's tests once more, recording", env.runs)
	}
	next, cmd := m.Update(RunDone{Chapter: "04", Result: course.Result{Tier: course.Record, Kind: course.Mistake},
		Replays: []string{"/tmp/x/TestQueue_one_release.events.jsonl"}})
	m = next.(Model)
	if cmd == nil {
		t.Fatal("a recording run that left a replay did not open it")
	}
	if !strings.Contains(m.Status("04"), "the herd") {
		t.Errorf("status after the recording run = %q: it must keep the lesson's verdict", m.Status("04"))
	}
	m = update(m, RunDone{Chapter: "04", Result: course.Result{Tier: course.Record, Kind: course.Mistake}})
	if !strings.Contains(m.View(), "no lesson test recorded") {
		t.Errorf("a recording run that left nothing must say so:\n%s", m.View())
	}
}
