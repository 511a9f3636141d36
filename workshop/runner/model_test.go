package runner

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// fakeEnv records what the model asked the world to do.
type fakeEnv struct {
	runs, resets, diffs []string
	checks              []Check
	saved               [][]byte // every state the model saved
	reports             []Report // what the model told the class
}

func (f *fakeEnv) Run(c Check) tea.Cmd {
	f.runs = append(f.runs, c.Chapter+" "+c.Tier.String())
	f.checks = append(f.checks, c)
	return nil
}
func (f *fakeEnv) Watch() tea.Cmd               { return nil }
func (f *fakeEnv) Progress() tea.Cmd            { return nil }
func (f *fakeEnv) Reset(ch string) tea.Cmd      { f.resets = append(f.resets, ch); return nil }
func (f *fakeEnv) Diff(ch string) tea.Cmd       { f.diffs = append(f.diffs, ch); return nil }
func (f *fakeEnv) Visual(ch string) *exec.Cmd   { return exec.Command("true") }
func (f *fakeEnv) Replay(file string) *exec.Cmd { return exec.Command("true") }
func (f *fakeEnv) Save(state []byte) tea.Cmd    { f.saved = append(f.saved, state); return nil }
func (f *fakeEnv) Report(r Report) tea.Cmd      { f.reports = append(f.reports, r); return nil }
func (f *fakeEnv) Class() tea.Cmd               { return nil }

var exercises = []course.Exercise{
	{Chapter: "02", Dir: "02-naive-lock", Files: []string{"02-naive-lock/naivelock/lock_workshop.go"}},
	{Chapter: "03", Dir: "03-watch-lock", Files: []string{"03-watch-lock/watchlock/lock_workshop.go"}},
	{Chapter: "04", Dir: "04-sequential-lock", Files: []string{"04-sequential-lock/seqlock/acquire_workshop.go"}},
	{Chapter: "05", Dir: "05-rwlock", Files: []string{"05-rwlock/rwlock/rule_workshop.go"}},
	{Chapter: "06", Dir: "06-reentrant", Files: []string{"06-reentrant/reentrant/count_workshop.go"}},
	{Chapter: "07", Dir: "07-leader", Files: []string{"07-leader/leader/election_workshop.go"}},
	{Chapter: "09", Dir: "09-semaphore", Files: []string{"09-semaphore/semaphore/acquire_workshop.go"}},
}

func newModel(t *testing.T, env Env, lang string) Model {
	t.Helper()
	disk := map[string]Disk{}
	for _, e := range exercises {
		disk[e.Chapter] = Disk{Hash: "skeleton-" + e.Chapter, Untouched: true}
	}
	return New(env, hint.MustLoad(), exercises, nil, disk, lang)
}

// judged is a result about the version of ch that is on disk in m.
func judged(m Model, ch string, r course.Result) course.Result {
	r.Hash = m.disk[ch].Hash
	return r
}

// doneMsg is the end of the run of ch in progress, with r about the file on
// disk (when no run is in progress: a run the model never asked for).
func doneMsg(m Model, ch string, r course.Result, replays ...string) RunDone {
	return RunDone{Chapter: ch, ID: m.running[ch].ID, Result: judged(m, ch, r), Replays: replays}
}

func update(m Model, msgs ...tea.Msg) Model {
	for _, msg := range msgs {
		if d, ok := msg.(RunDone); ok && d.ID == 0 {
			if _, busy := m.running[d.Chapter]; !busy {
				m.start(d.Chapter, d.Result.Tier)
			}
			// RunDone{Chapter, Result}: the run in progress, about the file on disk.
			msg = doneMsg(m, d.Chapter, d.Result, d.Replays...)
			nd := msg.(RunDone)
			nd.Named = d.Named
			msg = nd
		}
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	return m
}

// built is the news that ch's check in progress is compiled.
func built(m Model, ch string) Built { return Built{Chapter: ch, ID: m.running[ch].ID} }

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
	if got := m.Status("04"); !strings.Contains(got, "compiling") {
		t.Errorf("status while the full suite's build runs = %q", got)
	}
	m = update(m, built(m, "04"))
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
	m = update(m, key("h"), key("h"))
	if v := m.View(); !strings.Contains(v, "hint 3/3") {
		t.Errorf("after three h, want all three hints:\n%s", v)
	}
	m = update(m, key("h"))
	if v := m.View(); strings.Contains(v, "hint 1/3") {
		t.Errorf("an h after the last hint must hide them:\n%s", v)
	}
	m = update(m, key("h"))
	if v := m.View(); !strings.Contains(v, "hint 1/3") || strings.Contains(v, "hint 2/3") {
		t.Errorf("and the next h must start again at hint 1:\n%s", v)
	}
	m = update(m, key("h"), key("h"))
	m = update(m, key("l"))
	if v := m.View(); !strings.Contains(v, "惊群效应") {
		t.Errorf("after l, want the hints in Chinese:\n%s", v)
	}
}

func TestASaveReRunsTheCheckWhileWatching(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, Saved{Chapter: "05", Hash: "skeleton-05"})
	if strings.Join(env.runs, ",") != "05 lesson" {
		t.Fatalf("a save of 05 ran %v", env.runs)
	}
	m = update(m, RunDone{Chapter: "05", Result: course.Result{Tier: course.Lesson, Kind: course.Todo, Todo: "TODO(workshop): x", Step: 1}})
	m = update(m, key("w"))
	if len(env.runs) != 1 {
		t.Errorf("with watch off a save ran %v", env.runs)
	}
	if !strings.Contains(m.Status("05"), "to write: x") {
		t.Errorf("status = %q", m.Status("05"))
	}
}

func TestResetAsksTwiceAndDiffIsOnRequest(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, key("R"))
	if len(env.resets) != 0 {
		t.Fatal("one R reset the file")
	}
	m = update(m, key("R"))
	if strings.Join(env.resets, ",") != "02" {
		t.Fatalf("resets %v", env.resets)
	}
	if len(env.diffs) != 0 {
		t.Fatal("the reference was shown unasked")
	}
	m = update(m, key("d"))
	if len(env.diffs) != 0 || !strings.Contains(m.View(), "d again shows the reference") {
		t.Fatalf("one d showed the reference, or did not say what a second one does:\n%s", m.View())
	}
	m = update(m, key("d"), DiffReady{Chapter: "02", Text: "--- a\n+++ b\n"})
	if m.screen != Diff || len(env.diffs) != 1 {
		t.Fatal("d twice did not show the diff")
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
		RunDone{Chapter: "05", Result: course.Result{Tier: course.Lesson, Kind: course.Todo, Todo: "TODO(workshop): writeRule — a writer holds alone, and waits for exactly one node", Step: 1}},
	}
	for _, c := range []struct {
		name string
		lang string
		keys []string
	}{
		{"list 80x24", "en", nil},
		{"herd with two hints 80x24", "en", []string{"down", "down", "h", "h"}},
		{"herd with a hint in Chinese 80x24", "zh", []string{"down", "down", "h"}},
		{"a step's goal and what must hold 80x24", "en", []string{"down", "down", "down"}},
		{"a step's goal and what must hold in Chinese 80x24", "zh", []string{"down", "down", "down", "h"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := teatest.NewTestModel(t, update(newModel(t, nil, c.lang), progress...), teatest.WithInitialTermSize(80, 24))
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

func TestReplayRecordsTheTestTheCheckNamed(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	// The herd is named by TestFirst, a table test that records nothing.
	m = update(m, key("down"), key("down"), key("enter"), RunDone{Chapter: "04", Result: herd()})
	m = update(m, key("p"))
	if strings.Join(env.runs, ",") != "04 lesson,04 recording" {
		t.Fatalf("p with no recording of the named test ran %v, want it run once more, recording", env.runs)
	}
	if c := env.checks[1]; c.Test != herd().Failed[0] || c.Message != herd().First {
		t.Fatalf("the recording run is of %q (%q), want the test the check named, %q", c.Test, c.Message, herd().Failed[0])
	}
	next, cmd := m.Update(doneMsg(m, "04", course.Result{Tier: course.Record, Kind: course.Mistake},
		"/tmp/x/TestQueue_one_release.events.jsonl"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("a recording run that left a replay did not open it")
	}
	if !strings.Contains(m.Status("04"), "the herd") {
		t.Errorf("status after the recording run = %q: it must keep the lesson's verdict", m.Status("04"))
	}
	if v := m.View(); !strings.Contains(v, "replaying TestQueue_one_release") {
		t.Errorf("a replay of another test than the named one must say so:\n%s", v)
	}
	m = update(m, key("p"), RunDone{Chapter: "04", Result: course.Result{Tier: course.Record, Kind: course.Mistake}})
	if !strings.Contains(m.View(), "no lesson test recorded your lock") {
		t.Errorf("a recording run that left nothing must say so:\n%s", m.View())
	}
}

func TestAReplayOfTheNamedTestPlaysAtOnce(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, key("down"), key("down"), key("enter"),
		RunDone{Chapter: "04", Result: herd(), Replays: []string{"/tmp/x/TestFirst_third.events.jsonl"}, Named: true})
	_, cmd := m.Update(key("p"))
	if cmd == nil || len(env.runs) != 1 {
		t.Fatalf("p with the named test's recording: runs %v, cmd %v; want it played, no new run", env.runs, cmd)
	}
}

// A save while the full suite runs: that run judged the old version. Its
// pass, should it come, is neither shown nor saved; a check of the new
// version starts at once (the env stops the old one first).
func TestASaveDuringTheFullSuiteNeverEndsInAPass(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, Saved{Chapter: "04", Hash: "right"}, RunDone{Chapter: "04", Result: course.Result{Tier: course.Lesson, Kind: course.Pass}})
	full := m.running["04"]
	if full.Tier != course.Full {
		t.Fatalf("after the lesson passed, running %v, want the full suite", m.running)
	}
	m = update(m, Saved{Chapter: "04", Hash: "herd"})
	if got := env.runs[len(env.runs)-1]; got != "04 lesson" || m.running["04"].ID == full.ID {
		t.Fatalf("a save during the full suite ran %v: want a new check of the new version", env.runs)
	}
	saves := len(env.saved)
	// The old run ends with a pass of the old version.
	m = update(m, RunDone{Chapter: "04", ID: full.ID, Result: course.Result{Tier: course.Full, Kind: course.Pass, Hash: "right"}})
	if strings.Contains(m.Status("04"), "passing") || m.Passed() != 0 {
		t.Errorf("the old version's pass is shown: %q", m.Status("04"))
	}
	if len(env.saved) != saves {
		t.Errorf("the old version's pass was saved: %s", env.saved[len(env.saved)-1])
	}
	// A run of the right ID that judged another version than the disk's
	// (the file changed under it, no save event yet) is no verdict either.
	m = update(m, RunDone{Chapter: "04", ID: m.running["04"].ID, Result: course.Result{Tier: course.Lesson, Kind: course.Pass, Hash: "right"}})
	if _, running := m.running["04"]; strings.Contains(m.Status("04"), "pass") || !running {
		t.Errorf("a pass of another version than the disk's: status %q, running %v", m.Status("04"), m.running)
	}
	for _, b := range env.saved[saves:] {
		if strings.Contains(string(b), `"04"`) && strings.Contains(string(b), `"kind": 0`) {
			t.Errorf("a pass of 04 was saved: %s", b)
		}
	}
	// Now the new version's verdict: it counts.
	m = update(m, RunDone{Chapter: "04", Result: herd()})
	if !strings.Contains(m.Status("04"), "the herd") {
		t.Errorf("the new version's verdict: status %q", m.Status("04"))
	}
}

func TestAVerdictAboutAnotherVersionIsNotShown(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, key("w"), Saved{Chapter: "02", Hash: "v1"}, key("enter"), RunDone{Chapter: "02", Result: course.Result{Tier: course.Lesson, Kind: course.Pass}})
	m = update(m, RunDone{Chapter: "02", Result: course.Result{Tier: course.Full, Kind: course.Pass}})
	if m.Passed() != 1 {
		t.Fatalf("02 passes on disk: %q", m.Status("02"))
	}
	m = update(m, Saved{Chapter: "02", Hash: "v2"}) // not watching: no check runs
	if m.Passed() != 0 || strings.Contains(m.Status("02"), "passing") || !strings.Contains(m.Status("02"), "changed since") {
		t.Errorf("after a save, not watching: %d pass, status %q", m.Passed(), m.Status("02"))
	}
}

func TestEveryFaultKeyNamesAMistakeOfTheTableInBothLanguages(t *testing.T) {
	table := hint.MustLoad()
	for k, says := range faultKeys {
		ch, id, _ := strings.Cut(k, "/")
		if table.Find(ch, id) == nil {
			t.Errorf("faultKeys has %s, which is no mistake of hints.json", k)
		}
		if says["en"] == "" || says["zh"] == "" || says["en"] == says["zh"] {
			t.Errorf("faultKeys[%s] must say it in English and in Chinese: %q", k, says)
		}
	}
}

func TestAfterAPassTheNextChapterIsOffered(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, RunDone{Chapter: "02", Result: course.Result{Tier: course.Full, Kind: course.Pass, Elapsed: 12 * time.Second}})
	if v := m.View(); !strings.Contains(v, "02 passes every test of the chapter (12.0s) · n: on to 03-watch-lock") {
		t.Fatalf("after 02 passed:\n%s", v)
	}
	m = update(m, key("n"))
	if m.selected() != "03" || !strings.Contains(m.View(), "your file: 03-watch-lock/watchlock/lock_workshop.go") {
		t.Errorf("n went to %s:\n%s", m.selected(), m.View())
	}
}

func TestTheFullSuiteShowsItsElapsedTimeAndTheLastRunsDuration(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, key("down"), key("down"), RunDone{Chapter: "04", Result: course.Result{Tier: course.Full, Kind: course.Pass, Elapsed: 54 * time.Second}})
	m = update(m, key("f"))
	m = update(m, built(m, "04"))
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	m = update(m, spinner.TickMsg{Time: t0}, spinner.TickMsg{Time: t0.Add(17 * time.Second)})
	if got := m.Status("04"); !strings.Contains(got, "running the full suite 17.0s") || !strings.Contains(got, "(last run 54.0s)") {
		t.Errorf("status while 04's full suite runs: %q", got)
	}
}

func TestANoteGoesWithTheNextKeyAndItsTipGoesFirstWhenNarrow(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, key("down"), key("down"), RunDone{Chapter: "04", Result: herd()})
	if !strings.Contains(m.View(), "h a hint") {
		t.Fatalf("the note after the herd:\n%s", m.View())
	}
	m = update(m, tea.WindowSizeMsg{Width: 40, Height: 24})
	for _, l := range strings.Split(m.View(), "\n") {
		if lipgloss.Width(l) > 40 {
			t.Errorf("a line wider than 40: %q", l)
		}
	}
	if v := m.View(); strings.Contains(v, "h a hint") || !strings.Contains(v, "04: the check named a mistake (4.0s)") {
		t.Errorf("at 40 columns the tip must go before the news is cut:\n%s", v)
	}
	if v := m.View(); !strings.Contains(v, "acquire_workshop.go") {
		t.Errorf("at 40 columns the file to edit must keep its name:\n%s", v)
	}
	m = update(m, key("up"))
	if strings.Contains(m.View(), "04: the check named") {
		t.Errorf("the note outlived the next key:\n%s", m.View())
	}
}

// Three hints on an 80×24 terminal made the page taller than the screen and
// scrolled the title and the progress bar away: the list folds to the
// selected chapter then, and every hint but the last takes one line.
func TestThreeHintsFitTheLearnersTerminal(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		m := newModel(t, &fakeEnv{}, lang)
		m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
		noRelist := course.Result{Tier: course.Lesson, Kind: course.Mistake,
			Failed:  []string{"TestQueue/a_predecessor_gone_before_our_watch_leaves_no_watch_behind"},
			First:   "waits 0, listings 1: want no wait and a second listing",
			Mistake: hint.MustLoad().Find("04", "no-relist")}
		m = update(m, key("down"), key("down"), key("enter"), RunDone{Chapter: "04", Result: noRelist}, key("h"), key("h"), key("h"))
		v := m.View()
		if n := strings.Count(v, "\n") + 1; n > 24 {
			t.Errorf("%s: three hints take %d lines on a 24-line terminal:\n%s", lang, n, v)
		}
		title := map[string]string{"en": "lockstep workshop", "zh": "lockstep 工作坊"}[lang]
		if !strings.HasPrefix(v, title) && !strings.Contains(strings.SplitN(v, "\n", 2)[0], title) {
			t.Errorf("%s: the title is not the first line:\n%s", lang, v)
		}
		for _, stage := range []string{"1/3", "2/3", "3/3"} {
			if !strings.Contains(v, stage) {
				t.Errorf("%s: hint %s is not on the page:\n%s", lang, stage, v)
			}
		}
		if !strings.Contains(v, "04-sequential-lock") {
			t.Errorf("%s: the selected chapter is not on the page:\n%s", lang, v)
		}
	}
}

// Every hint of the table, shown whole with the hints before it, fits the
// learner's 80×24 terminal with the title and the progress bar in sight:
// the near-solution of a long stub (07's lookup) included.
func TestEveryHintFitsTheLearnersTerminal(t *testing.T) {
	table := hint.MustLoad()
	chapterIndex := map[string]int{}
	for i, e := range exercises {
		chapterIndex[e.Chapter] = i
	}
	for _, lang := range []string{"en", "zh"} {
		for _, s := range table.Steps {
			m := newModel(t, &fakeEnv{}, lang)
			m = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
			for range chapterIndex[s.Chapter] {
				m = update(m, key("down"))
			}
			m = update(m, RunDone{Chapter: s.Chapter, Result: course.Result{Tier: course.Lesson, Kind: course.Todo, Todo: "TODO(workshop): " + s.Todo, Step: 1}})
			for range s.Stages() {
				m = update(m, key("h"))
			}
			v := m.View()
			if n := strings.Count(v, "\n") + 1; n > 24 {
				t.Errorf("%s %s %s: %d hints take %d lines on a 24-line terminal:\n%s", lang, s.Chapter, s.Todo, s.Stages(), n, v)
				continue
			}
			title := map[string]string{"en": "lockstep workshop", "zh": "lockstep 工作坊"}[lang]
			if !strings.Contains(strings.SplitN(v, "\n", 2)[0], title) {
				t.Errorf("%s %s %s: the title is not the first line:\n%s", lang, s.Chapter, s.Todo, v)
			}
			if last := fmt.Sprintf("%d/%d", s.Stages(), s.Stages()); !strings.Contains(v, last) {
				t.Errorf("%s %s %s: hint %s is not on the page:\n%s", lang, s.Chapter, s.Todo, last, v)
			}
		}
	}
}

// o shows the last check's whole output, a page at a time; esc goes back.
func TestOShowsTheLastChecksWholeOutput(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, key("o"))
	if m.screen != List || !strings.Contains(m.View(), "no check yet") {
		t.Fatalf("o before any check:\n%s", m.View())
	}
	var out []string
	for i := 1; i <= 60; i++ {
		out = append(out, fmt.Sprintf("    lock_test.go:%d: line %d", i, i))
	}
	r := herd()
	r.Output = strings.Join(out, "\n")
	m = update(m, key("down"), key("down"), RunDone{Chapter: "04", Result: r}, key("o"))
	if m.screen != Output || !strings.Contains(m.View(), "line 1\n") || strings.Contains(m.View(), "line 60") || !strings.Contains(m.View(), "of 60") {
		t.Fatalf("o after a check: want the output's first page:\n%s", m.View())
	}
	m = update(m, key("end"))
	if !strings.Contains(m.View(), "line 60") {
		t.Errorf("end: want the output's last line:\n%s", m.View())
	}
	m = update(m, key("esc"))
	if m.screen != List {
		t.Error("esc did not go back to the list")
	}
}

// h before any check gives the hints of the step the file on disk is on.
func TestHBeforeAnyCheckGivesTheStepsHints(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m.disk["04"] = Disk{Hash: "skeleton-04", Untouched: true, Todo: "TODO(workshop): First — who holds"}
	m = update(m, key("down"), key("down"), key("h"))
	v := m.View()
	for _, want := range []string{"goal: First", "hint 1/3"} {
		if !strings.Contains(v, want) {
			t.Errorf("h before a check: no %q in\n%s", want, v)
		}
	}
}

// A failure no row of the table knows: the sentence of what its test
// checks, in the learner's language, above the test's own words.
func TestAFailureNoRowKnowsSaysWhatItsTestChecks(t *testing.T) {
	r := course.Result{Tier: course.Lesson, Kind: course.Failing, Failed: []string{"TestQueue/one_release_wakes_exactly_one_waiter"}, First: "release 1 woke 2 waiters"}
	for lang, want := range map[string]string{"en": "one release wakes exactly one waiter", "zh": "一次释放只唤醒一个等待者"} {
		m := newModel(t, &fakeEnv{}, lang)
		m = update(m, key("down"), key("down"), RunDone{Chapter: "04", Result: r})
		if v := m.View(); !strings.Contains(v, want) || !strings.Contains(v, "release 1 woke 2 waiters") {
			t.Errorf("%s: want %q and the test's words in\n%s", lang, want, v)
		}
	}
}

// An Example's got/want is taller than a terminal of 24 lines: the title
// stays in sight, and the page says where the rest is.
func TestALongFailureKeepsTheTitleInSight(t *testing.T) {
	var got []string
	for i := 1; i <= 30; i++ {
		got = append(got, fmt.Sprintf("bob event %d", i))
	}
	r := course.Result{Tier: course.Full, Kind: course.Failing, Failed: []string{"ExampleLock"}, First: "got:\n" + strings.Join(got, "\n")}
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, key("down"), RunDone{Chapter: "03", Result: r})
	v := m.View()
	if lines(v) > 24 || !strings.HasPrefix(v, "lockstep workshop") || !strings.Contains(v, "more lines: o shows the whole output") || !strings.Contains(v, "bob event 1\n") {
		t.Errorf("a 31-line failure at 80×24 (%d lines):\n%s", lines(v), v)
	}
}

// In a class, every verdict is reported, and the header says where the
// runner stands: online, its session lost, joined again.
func TestInAClassEveryVerdictIsReportedAndTheHeaderSaysWhereTheRunnerStands(t *testing.T) {
	env := &fakeEnv{}
	m := newModel(t, env, "en")
	m = update(m, doneMsg(m, "04", herd()))
	if len(env.reports) != 0 {
		t.Fatalf("not in a class, the model reported %v", env.reports)
	}
	m = m.InClass("ada")
	if !strings.Contains(m.View(), "class: ada") {
		t.Fatalf("the header does not say the class:\n%s", m.View())
	}
	m = update(m, doneMsg(m, "04", herd()))
	m = update(m, key("down"), key("down"), key("h"))
	if n := len(env.reports); n != 2 || env.reports[1].Verdict.Hints != 1 {
		t.Fatalf("after h on 04, reports = %+v, want a second, at hint 1", env.reports)
	}
	env.reports = env.reports[:1]
	m.disk["04"] = Disk{Hash: "mine", Untouched: false}
	m = update(m, RunDone{Chapter: "04", Result: course.Result{Tier: course.Lesson, Kind: course.Pass}})
	if len(env.reports) != 2 {
		t.Fatalf("reports = %+v, want one per verdict", env.reports)
	}
	if r := env.reports[0]; r.Chapter != "04" || r.Verdict.Mistake != "herd" || !r.Untouched {
		t.Errorf("first report = %+v, want 04, the herd, on the skeleton's hash", r)
	}
	if r := env.reports[1]; r.Verdict.Kind != course.Pass || r.Untouched {
		t.Errorf("second report = %+v, want a pass on the learner's own file", r)
	}
	m = update(m, ClassNews{Kind: ClassLost})
	if v := m.View(); !strings.Contains(v, "session lost, joining again") {
		t.Errorf("a lost session is not on the header:\n%s", v)
	}
	m = update(m, ClassNews{Kind: ClassOnline, Again: true})
	if v := m.View(); !strings.Contains(v, "class: ada (joined again)") {
		t.Errorf("joined again is not on the header:\n%s", v)
	}
	m = update(m, ClassNews{Kind: ClassNotSent, Err: errors.New("no server answered")})
	if v := m.View(); !strings.Contains(v, "class: ada (joined again)") || !strings.Contains(v, "did not reach the class: no server answered") {
		t.Errorf("a report that failed is not news, or it changed the header:\n%s", v)
	}
}

// Issue 30: when the runner's shared ZooKeeper is lost, the learner reads
// why, in their language, under the list, once (the env tells it once).
func TestALostSharedServerIsSaidInTheLearnersLanguage(t *testing.T) {
	for lang, want := range map[string]string{"en": "each check starts one of its own", "zh": "单独启动一个服务器"} {
		m := newModel(t, &fakeEnv{}, lang)
		next, _ := m.Update(ZKLost{Err: errors.New("connection refused")})
		got := next.(Model).note.text
		if !strings.Contains(got, want) || !strings.Contains(got, "connection refused") {
			t.Errorf("%s: the note says %q, want %q and why", lang, got, want)
		}
	}
}
