package runner

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/course"
)

// The arena (issue 34): in a class, once the learner's 04 passes, A enters
// the class's arena with their own lock — their acquire_workshop.go built
// as the check builds it, in a worker process the env starts — and A again
// leaves it. The header shows the worker's rounds, the count it last wrote
// and what the arena caught of it. Quitting the runner ends the worker.

// ArenaChapter is the chapter whose lock enters the arena.
const ArenaChapter = "04"

// ArenaEnv is what the runner asks of the world for the arena. The env of
// a runner in a class has it; without it A does nothing.
type ArenaEnv interface {
	// EnterArena builds ArenaChapter's files as the check does and starts
	// a worker with them in the class's arena; it reports ArenaNews
	// (ArenaIn, or ArenaOut with the error).
	EnterArena() tea.Cmd
	// LeaveArena stops the worker (its lock node goes with its session)
	// and reports ArenaNews{Kind: ArenaOut}.
	LeaveArena() tea.Cmd
	// ArenaNext waits for the worker's next news.
	ArenaNext() tea.Cmd
}

// ArenaKind says what an ArenaNews reports.
type ArenaKind int

const (
	ArenaIn    ArenaKind = iota + 1 // the worker runs: it queues for the class lock
	ArenaRound                      // a round is over: Wrote, Count, Caught
	ArenaOut                        // the worker ended (left, or Err)
)

// ArenaNews is what the env learned of the worker.
type ArenaNews struct {
	Kind   ArenaKind
	Wrote  bool   // ArenaRound: the increment landed
	Count  int64  // ArenaRound: the count it wrote (or would have)
	Caught string // ArenaRound: the write was refused; what that proved
	Err    error  // ArenaOut: why it ended, if not by A
}

// arenaSeen is the worker as the header shows it.
type arenaSeen struct {
	kind           ArenaKind // 0: not in the arena; ArenaIn: entering or in
	rounds, caught int
	count          int64
	last           string // the last catch
}

// arenaOpen: the arena is offered in a class once 04 passes, for the file
// on disk.
func (m Model) arenaOpen() bool {
	if m.class.Kind == 0 || m.env == nil {
		return false
	}
	if _, ok := m.env.(ArenaEnv); !ok {
		return false
	}
	cs := m.state.Chapters[ArenaChapter]
	return cs != nil && cs.Kind == course.Pass && cs.Holds(m.disk[ArenaChapter].Hash)
}

// arenaKey is A: enter the arena, or leave it.
func (m Model) arenaKey() (tea.Model, tea.Cmd) {
	t := m.say()
	ae, _ := m.env.(ArenaEnv)
	switch {
	case m.arena.kind != 0 && ae != nil:
		m.note = news("", t.ArenaLeaving)
		return m, ae.LeaveArena()
	case m.class.Kind == 0 || ae == nil:
		return m, nil // not in a class: there is no arena
	case !m.arenaOpen():
		m.note = news(ArenaChapter, fmt.Sprintf(t.ArenaLocked, ArenaChapter))
		return m, nil
	}
	m.arena = arenaSeen{kind: ArenaIn}
	m.note = news(ArenaChapter, t.ArenaEntering)
	return m, ae.EnterArena()
}

// arenaNews: the header follows the worker; its end is news.
func (m Model) arenaNews(msg ArenaNews) (tea.Model, tea.Cmd) {
	ae, _ := m.env.(ArenaEnv)
	switch msg.Kind {
	case ArenaIn:
		m.arena.kind = ArenaIn
	case ArenaRound:
		m.arena.rounds++
		m.arena.count = msg.Count
		if msg.Caught != "" {
			m.arena.caught++
			m.arena.last = msg.Caught
			m.note = news(ArenaChapter, fmt.Sprintf(m.say().ArenaCaught, msg.Caught))
		}
	case ArenaOut:
		m.arena = arenaSeen{}
		m.note = news(ArenaChapter, m.say().ArenaLeft)
		if msg.Err != nil {
			m.note = news(ArenaChapter, fmt.Sprintf(m.say().ArenaEnded, msg.Err))
		}
		return m, nil
	}
	if ae == nil {
		return m, nil
	}
	return m, ae.ArenaNext()
}

// arenaLine is the header's word on the arena ("" when there is none to
// show): the offer once 04 passes, the worker's rounds while it plays.
func (m Model) arenaLine() string {
	t := m.say()
	switch {
	case m.arena.kind == ArenaIn && m.arena.rounds == 0:
		return t.ArenaQueued
	case m.arena.kind != 0:
		return fmt.Sprintf(t.ArenaPlaying, m.arena.rounds, m.arena.count, m.arena.caught)
	case m.arenaOpen():
		return t.ArenaOffer
	}
	return ""
}
