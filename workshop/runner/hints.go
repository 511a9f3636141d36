package runner

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
	"github.com/lockstep-zk/lockstep/workshop/hint"
)

// hint shows one more stage of the hints for what the check said of ch;
// after the last one, h hides them, and the next h starts at hint 1 again.
// A new mistake, or a new step to write, starts at no hint (done, in
// checks.go); view.go shows the stages reached. A failure no mistake row
// knows gets the hints of the step its test checks (failedStep).
func (m Model) hint(ch string) (tea.Model, tea.Cmd) {
	stages := 0
	cs := m.verdict(ch)
	if cs != nil && cs.Mistake != "" && m.table.Find(ch, cs.Mistake) != nil {
		stages = m.table.Find(ch, cs.Mistake).Stages()
	} else if s := m.failedStep(ch, cs); s != nil {
		stages = s.Stages()
	} else if cs != nil && cs.Kind == course.Todo && m.table.StepOf(ch, cs.Todo) != nil {
		stages = m.table.StepOf(ch, cs.Todo).Stages()
	} else if cs == nil && m.table.StepOf(ch, m.disk[ch].Todo) != nil {
		// No check yet of the file on disk: the hints of the step it is on.
		stages = m.table.StepOf(ch, m.disk[ch].Todo).Stages()
	}
	if stages == 0 {
		m.note = news(ch, m.say().NoHint, m.say().EnterChecks)
		return m, nil
	}
	more := m.hints[ch] < stages
	if more {
		m.hints[ch]++
	} else {
		m.hints[ch] = 0
		m.note = news(ch, m.say().HintsHidden, m.say().HintsAgain)
	}
	if cs == nil {
		return m, nil // nothing saved to count them in: the first verdict starts afresh
	}
	cs.Hints = m.hints[ch]
	if more {
		// In a class, the host sees the stage reached at once (hiding
		// the hints again is no news).
		return m, tea.Batch(m.save(), m.report(ch, cs))
	}
	return m, m.save()
}

// failedStep is the exercise step whose contract the failing test of cs
// checks (tests.json's "step"), when the check failed and no mistake row
// knows why; nil otherwise.
func (m Model) failedStep(ch string, cs *course.ChapterState) *hint.Step {
	if cs == nil || cs.Kind != course.Failing || cs.Test == "" || m.table.Find(ch, cs.Mistake) != nil {
		return nil
	}
	return m.table.StepOfTest(ch, cs.Test)
}
