package tui

import (
	"fmt"
	"time"

	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The arena panel of the observe mode: when the observed directory is the
// class's arena, the observing side also sends what the arena's counter
// says (worldmsg.Arena, read on watches). The panel shows it above the
// queue — running or paused, the count, rounds per second, who wrote last —
// and the latest refused writes with both learners' names; every new one
// also goes to the log as it comes.

// maxCatchLines is how many refused writes the panel lists (the latest);
// the log has every one seen while observing.
const maxCatchLines = 3

// reading is the counter as the observer read it at a moment.
type reading struct {
	at time.Time
	n  int64
}

// applyArena folds one reading of the arena into the model.
func (m ObserveModel) applyArena(a worldmsg.Arena) ObserveModel {
	t := m.say()
	if a.At.After(m.now) {
		m.now = a.At
	}
	if m.arena != nil && a.Caught > m.arena.Caught {
		// The new refusals, oldest first, as far as the message carries them.
		n := min(a.Caught-m.arena.Caught, len(a.Catches))
		for _, c := range a.Catches[len(a.Catches)-n:] {
			m.view.addLog(fmt.Sprintf(t.CaughtLog, a.At.Format("15:04:05.000"), c.In(m.view.lang)))
		}
	}
	if m.arena != nil && a.Paused != m.arena.Paused {
		say := t.ArenaResumed
		if a.Paused {
			say = t.ArenaPaused
		}
		m.view.addLog(fmt.Sprintf(say, a.At.Format("15:04:05.000")))
	}
	m.arena = &a
	// A counter that went down was made again: its past says nothing of
	// its rate now.
	kept := make([]reading, 0, len(m.readings)+1)
	for _, r := range m.readings {
		if r.n <= a.Count && a.At.Sub(r.at) <= 2*rateWindow {
			kept = append(kept, r)
		}
	}
	m.readings = append(kept, reading{at: a.At, n: a.Count})
	return m
}

// roundsPerSecond is how fast the counter grew over the last rateWindow
// (the hand-offs' window, which the line above the panel names),
// up to the view's clock: a still arena falls to 0. One reading is no rate.
func (m ObserveModel) roundsPerSecond() float64 {
	if len(m.readings) < 2 {
		return 0
	}
	last := m.readings[len(m.readings)-1]
	now := m.now
	if now.Before(last.at) {
		now = last.at
	}
	base := m.readings[0]
	for _, r := range m.readings {
		if now.Sub(r.at) >= rateWindow {
			base = r // the last read before the window began
		}
	}
	span := now.Sub(base.at)
	if span <= 0 {
		return 0
	}
	return float64(last.n-base.n) / span.Seconds()
}

// arenaLines is the panel: nothing until the arena has been read.
func (m ObserveModel) arenaLines(w int) []string {
	if m.arena == nil {
		return nil
	}
	t, a := m.say(), m.arena
	state, style := t.ArenaRunning, titleStyle
	if a.Paused {
		state, style = t.ArenaPausedState, pausedStyle
	}
	writer := t.NoWriter
	if a.Writer != "" {
		writer = a.Writer
	}
	lines := []string{style.Render(fit(fmt.Sprintf(t.ArenaLine, state, a.Count, m.roundsPerSecond(), writer), w))}
	if a.Caught == 0 {
		return append(lines, fit(t.NoneCaught, w))
	}
	lines = append(lines, deadStyle.Render(fit(fmt.Sprintf(t.CaughtHead, a.Caught), w)))
	from := max(0, len(a.Catches)-maxCatchLines)
	for _, c := range a.Catches[from:] {
		lines = append(lines, fit("  ✗ "+c.In(m.view.lang), w))
	}
	return lines
}
