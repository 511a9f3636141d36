package runner

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// A check's life: a save (or enter, or f) starts one, numbered; its
// verdict comes back as a RunDone and is kept only if it is about the file
// on disk, which the runner knows by its hash.

// Disk is what an exercise's files are on disk.
type Disk struct {
	Hash      string // course.Hash
	Untouched bool   // the skeleton as shipped
	Todo      string // the first TODO(workshop) stub left: the step h hints at before any check
}

// run is a check in progress.
type run struct {
	Check
	since time.Time // the first spinner tick after it started
	built bool      // compiled: its tests run (before: the build, long on a cold cache)
}

// verdict is chapter ch's last verdict if it is about the files on disk,
// else nil: a verdict about another version of the file says nothing.
func (m Model) verdict(ch string) *course.ChapterState {
	if cs := m.state.Chapters[ch]; cs.Holds(m.disk[ch].Hash) {
		return cs
	}
	return nil
}

// Passed counts the chapters whose last run passed the full suite.
func (m Model) Passed() int {
	n := 0
	for _, e := range m.exercises {
		if m.passes(e.Chapter) {
			n++
		}
	}
	return n
}

// passes: chapter ch's files on disk pass its full suite.
func (m Model) passes(ch string) bool {
	cs := m.verdict(ch)
	return cs != nil && cs.Kind == course.Pass && cs.Tier == course.Full
}

// next is the index of the first chapter after the cursor (then from the
// top) that does not pass yet, -1 if every one does.
func (m Model) next() int {
	for i := 1; i <= len(m.exercises); i++ {
		j := (m.cursor + i) % len(m.exercises)
		if !m.passes(m.exercises[j].Chapter) {
			return j
		}
	}
	return -1
}

// saved: an exercise file changed on disk. Whatever was said about the old
// version no longer holds; a check of the old version still running is
// stopped (the env stops it when it starts the new one) and its verdict,
// should it come, is dropped.
func (m Model) saved(msg Saved) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	if m.env != nil {
		cmds = append(cmds, m.env.Watch())
	}
	ch := msg.Chapter
	m.disk[ch] = Disk{Hash: msg.Hash, Untouched: msg.Untouched, Todo: msg.Todo}
	_, busy := m.running[ch]
	switch {
	case m.watch && busy:
		m.note = news(ch, fmt.Sprintf(m.say().SavedDuring, ch))
		cmds = append(cmds, m.start(ch, course.Lesson))
	case m.watch && m.note.chapter == ch && m.note.text == fmt.Sprintf(m.say().ResetDone, ch):
		// The reset's own write: keep saying where the backup is.
		cmds = append(cmds, m.start(ch, course.Lesson))
	case m.watch:
		m.note = news(ch, fmt.Sprintf(m.say().Saved, ch))
		cmds = append(cmds, m.start(ch, course.Lesson))
	case busy:
		// Not watching: the running check goes on, but its verdict will
		// be about the old version, so it will not count.
		m.note = news(ch, fmt.Sprintf(m.say().ChangedDuring, ch), m.say().EnterChecks)
	}
	return m, tea.Batch(cmds...)
}

// start runs a tier of ch; a run of ch still going is stopped for it.
func (m *Model) start(ch string, tier course.Tier) tea.Cmd {
	m.lastID++
	c := Check{Chapter: ch, Tier: tier, ID: m.lastID}
	if tier == course.Record {
		if cs := m.state.Chapters[ch]; cs != nil {
			c.Test, c.Message = cs.Test, cs.Message
		}
	}
	m.running[ch] = run{Check: c}
	if m.env == nil {
		return nil
	}
	return tea.Batch(m.env.Run(c), m.spin.Tick)
}

// built: a check's chapter is compiled, its tests run now.
func (m Model) built(msg Built) (tea.Model, tea.Cmd) {
	if r, ok := m.running[msg.Chapter]; ok && r.ID == msg.ID {
		r.built = true
		m.running[msg.Chapter] = r
	}
	if m.env == nil {
		return m, nil
	}
	return m, m.env.Progress()
}

// ticked: the spinner turns while a check runs, and the list shows how
// long each one has run.
func (m Model) ticked(msg spinner.TickMsg) (tea.Model, tea.Cmd) {
	if len(m.running) == 0 {
		return m, nil
	}
	m.now = msg.Time
	for ch, r := range m.running {
		if r.since.IsZero() {
			r.since = msg.Time
			m.running[ch] = r
		}
	}
	var cmd tea.Cmd
	m.spin, cmd = m.spin.Update(msg)
	return m, cmd
}

// done: a check finished. Its verdict is kept only if it is the run in
// progress and about the file on disk; a lesson that passes starts the
// full suite.
func (m Model) done(msg RunDone) (tea.Model, tea.Cmd) {
	ch := msg.Chapter
	if r, ok := m.running[ch]; !ok || r.ID != msg.ID {
		return m, nil // a run that was stopped for a newer one: it judged nothing on disk
	}
	delete(m.running, ch)
	r := msg.Result
	if r.Tier == course.Record {
		// A run made only for its recordings: the verdict stands as it was.
		m.replays[ch] = msg
		if len(msg.Replays) == 0 || m.env == nil {
			m.note = news(ch, fmt.Sprintf(m.say().NoRecording, ch))
			return m, nil
		}
		if !msg.Named {
			m.note = news(ch, fmt.Sprintf(m.say().ReplayingOther, strings.TrimSuffix(filepath.Base(msg.Replays[0]), ".events.jsonl")),
				m.say().OtherTip)
		}
		return m, m.replay(ch)
	}
	if r.Hash == "" || r.Hash != m.disk[ch].Hash {
		// The file changed while it was judged: this verdict is about
		// a version that is gone. Never record it, above all a pass.
		m.note = news(ch, fmt.Sprintf(m.say().ChangedWhile, ch))
		if m.watch {
			return m, m.start(ch, course.Lesson)
		}
		m.note.tip = m.say().EnterChecks
		return m, nil
	}
	m.outputs[ch] = r.Output
	prev := m.state.Chapters[ch]
	cs := m.state.Record(ch, r)
	if prev == nil || prev.Mistake != cs.Mistake || prev.Todo != cs.Todo {
		m.hints[ch] = 0
	}
	cs.Hints = m.hints[ch]
	m.replays[ch] = msg
	cmds := []tea.Cmd{m.save(), m.report(ch, cs)}
	switch {
	case r.Kind == course.Pass && r.Tier == course.Lesson:
		// The lesson holds: the full suite, in the background.
		m.note = news(ch, fmt.Sprintf(m.say().LessonPass, ch, secs(r.Elapsed)))
		cmds = append(cmds, m.start(ch, course.Full))
	case r.Kind == course.Pass:
		m.note = news(ch, fmt.Sprintf(m.say().Pass, ch, secs(r.Elapsed)))
		if next := m.next(); next >= 0 {
			m.note.tip = fmt.Sprintf(m.say().OnTo, m.exercises[next].Dir)
		}
		if m.Passed() == len(m.exercises) {
			m.screen = Done
		}
	case r.Kind == course.Mistake:
		// The mistake's name is above, in full: the news is when, the tip what next.
		m.note = news(ch, fmt.Sprintf(m.say().Named, ch, secs(r.Elapsed)), m.say().HintTip)
	case r.Kind == course.Todo:
		m.note = news(ch, fmt.Sprintf(m.say().StillToWrite, ch, course.StubName(r.Todo)), m.say().HintTip)
	default:
		m.note = news(ch, fmt.Sprintf(m.say().Other, ch, r.Kind))
	}
	if len(msg.Replays) > 0 {
		m.note.tip = strings.TrimPrefix(m.note.tip+" · "+m.say().Replays, " · ")
	}
	return m, tea.Batch(cmds...)
}
