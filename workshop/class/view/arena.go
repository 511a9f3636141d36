package view

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

// The arena on the host's screen: the counter, rounds per second, who
// holds the class lock and who waits, paused or not, and every refused
// write with both learners' names. It learns the arena from
// arena.Snapshots (arena.Follow: watches) and counts rounds per second on
// the screen's own clock.

// ArenaMsg is the arena at one moment (arena.Follow's).
type ArenaMsg arena.Snapshot

// rateWindow is how far back rounds per second look.
const rateWindow = 10 * time.Second

// count is the counter as the screen saw it at a moment.
type count struct {
	at time.Time
	n  int64
}

// WithArena feeds the screen the arena's snapshots from ch.
func (m Model) WithArena(ch <-chan arena.Snapshot) Model {
	m.arenaCh = ch
	return m
}

// ApplyArena is Update's part for one snapshot, for callers without a
// program (frames, tests).
func (m Model) ApplyArena(s arena.Snapshot) Model {
	m.arena = &s
	at := s.Seen
	if at.IsZero() {
		at = m.Now
	}
	counts := make([]count, 0, len(m.counts)+1)
	for _, c := range m.counts {
		if c.n <= s.Counter.N && at.Sub(c.at) <= 2*rateWindow {
			counts = append(counts, c)
		}
	}
	m.counts = append(counts, count{at: at, n: s.Counter.N})
	return m
}

// Arena is the last snapshot of the arena (nil: none read yet).
func (m Model) Arena() *arena.Snapshot { return m.arena }

// RoundsPerSecond is how fast the counter grew over the last rateWindow,
// up to the screen's clock (Now): a still arena falls to 0.
func (m Model) RoundsPerSecond() float64 {
	if len(m.counts) == 0 {
		return 0
	}
	now := m.Now
	last := m.counts[len(m.counts)-1]
	if now.Before(last.at) {
		now = last.at
	}
	base := m.counts[0]
	for _, c := range m.counts {
		if now.Sub(c.at) >= rateWindow {
			base = c // the last seen before the window began
		}
	}
	span := now.Sub(base.at)
	if len(m.counts) < 2 || span <= 0 {
		return 0 // one reading: no rate yet
	}
	return float64(last.n-base.n) / span.Seconds()
}

func (m Model) waitArena() tea.Cmd {
	if m.arenaCh == nil {
		return nil
	}
	ch := m.arenaCh
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return ArenaMsg(s)
	}
}
