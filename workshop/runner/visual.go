package runner

import (
	"fmt"
	"os"
	"os/exec"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// The visualizer, live on the learner's lock (v) or playing a recording
// of a failing run (p): the runner hands it the terminal, in the learner's
// language, and gets an ExecDone when it ends.

// visual runs the visualizer on ch's learner's lock.
func (m Model) visual(ch string) tea.Cmd {
	if m.env == nil {
		return nil
	}
	return tea.ExecProcess(m.inLang(m.env.Visual(ch)), func(err error) tea.Msg { return ExecDone{err} })
}

// replayOrRecord replays the test the check named; if that test left no
// recording, it runs it again, recording (the replay follows, from done).
func (m Model) replayOrRecord(ch string) (tea.Model, tea.Cmd) {
	cs := m.verdict(ch)
	if cs == nil || cs.Kind == course.Pass || cs.Kind == course.Todo || cs.Kind == course.NoBuild {
		m.note = news(ch, m.say().NoReplay)
		return m, nil
	}
	if m.replays[ch].Named {
		return m, m.replay(ch)
	}
	// The test the check named left no recording (this run was
	// stopped at the first failure, or it was a rule's table test):
	// run it again, recording.
	m.note = news(ch, fmt.Sprintf(m.say().Recording, ch, cs.Test))
	return m, m.start(ch, course.Record)
}

// replay plays ch's recording: the named test's when there is one.
func (m Model) replay(ch string) tea.Cmd {
	rd := m.replays[ch]
	if m.env == nil || len(rd.Replays) == 0 {
		return nil
	}
	return tea.ExecProcess(m.inLang(m.env.Replay(rd.Replays[0])), func(err error) tea.Msg { return ExecDone{err} })
}

// LangEnv names the variable that tells a program the runner starts (the
// visualizer) the learner's language: it opens in Chinese after l.
const LangEnv = "LOCKSTEP_LANG"

// inLang gives c the runner's language in LangEnv.
func (m Model) inLang(c *exec.Cmd) *exec.Cmd {
	if c == nil {
		return nil
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	c.Env = append(c.Env, LangEnv+"="+m.lang)
	return c
}
