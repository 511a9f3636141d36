package runner

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// The class (go run ./workshop -class <join line>): after every verdict
// the runner tells the class where the learner stands, and its header says
// whether the host sees it online. The env does the talking (Report, Class);
// the model only says when, and shows what the env learned.

// ClassKind says what a ClassNews reports.
type ClassKind int

const (
	ClassOnline  ClassKind = iota + 1 // joined, or joined again: the host sees the runner online
	ClassLost                         // the session ended (a lid closed, the Wi-Fi gone): the env joins again
	ClassRetry                        // joining again failed; the env tries again
	ClassNotSent                      // a report did not reach the class
)

// ClassNews is what the env learned of the class.
type ClassNews struct {
	Kind  ClassKind
	Name  string // the learner's name in the class
	Again bool   // ClassOnline: after a lost session
	Err   error  // ClassRetry, ClassNotSent: why
}

// Report is what the runner tells the class after a verdict: the chapter,
// the verdict as the state file keeps it, and whether the files are the
// skeleton as handed out.
type Report struct {
	Chapter   string
	Verdict   course.ChapterState
	Untouched bool
}

// InClass is the model of a runner that has joined a class as name.
func (m Model) InClass(name string) Model {
	m.class = ClassNews{Kind: ClassOnline, Name: name}
	return m
}

// classNews: the header shows where the runner stands in the class; a
// report that failed is news under the list.
func (m Model) classNews(msg ClassNews) (tea.Model, tea.Cmd) {
	if msg.Kind == ClassNotSent {
		m.note = news("", fmt.Sprintf(m.say().ClassNotSent, msg.Err))
	} else {
		if msg.Name == "" {
			msg.Name = m.class.Name
		}
		m.class = msg
	}
	if m.env == nil {
		return m, nil
	}
	return m, m.env.Class()
}

// report tells the class about ch's verdict, if the runner is in one.
func (m Model) report(ch string, cs *course.ChapterState) tea.Cmd {
	if m.class.Kind == 0 || m.env == nil || cs == nil {
		return nil
	}
	return m.env.Report(Report{Chapter: ch, Verdict: *cs, Untouched: m.disk[ch].Untouched})
}

// classLine is the header's word on the class ("" when not in one).
func (m Model) classLine() string {
	t := m.say()
	switch m.class.Kind {
	case ClassOnline:
		if m.class.Again {
			return fmt.Sprintf(t.ClassAgain, m.class.Name)
		}
		return fmt.Sprintf(t.ClassOnline, m.class.Name)
	case ClassLost:
		return t.ClassLost
	case ClassRetry:
		return fmt.Sprintf(t.ClassRetry, m.class.Err)
	}
	return ""
}
