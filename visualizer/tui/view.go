package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// View draws the whole screen: header, the queue and workers panels side
// by side, the event log, a status line and the help bar. Every line is
// cut to the terminal width and the total to its height, so a small
// terminal shows less, never a broken frame.
func (m Model) View() string {
	w, h := max(m.width, 40), max(m.height, 12)
	var b strings.Builder
	b.Grow(w * h * 2)

	footer := []string{fit(m.statusLine(), w), m.helpView(w)}
	if m.legend {
		lines := append(m.legendView(w, h-len(footer)), footer...)
		for i, l := range lines {
			lines[i] = ansi.Truncate(l, w, "…")
		}
		return strings.Join(lines, "\n")
	}
	header := m.headerLines(w)
	// The panels take what they need (up to all but four log lines);
	// the log gets the rest.
	need := max(len(m.queue.Nodes)+4, len(m.order)+1, 6)
	panelH := max(3, min(need, h-len(header)-len(footer)-5))
	logLines := h - len(header) - len(footer) - panelH - 1

	// The workers panel gets what its rows need (longer names in 07), the
	// queue the rest, up to 48 columns.
	leftW := max(w*2/5, min(48, w/2, w-1-m.workersWidth()))
	rightW := w - leftW - 1
	left := m.queueView(leftW, panelH)
	right := m.workersView(rightW, panelH)

	lines := append([]string{}, header...)
	for i := range panelH {
		lines = append(lines, pad(ansi.Truncate(left[i], leftW, "…"), leftW)+" "+right[i])
	}
	lines = append(lines, m.logView(w, logLines+1)...)
	lines = append(lines, footer...)
	for i, l := range lines {
		if i >= h {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(l, w, "…"))
	}
	return b.String()
}

func (m Model) headerLines(w int) []string {
	if m.replay != nil {
		lines := m.replayHeader(w)
		if m.chapter.Expect.Claims() {
			lines = append(lines, m.expectLine(w))
		}
		return append(lines, m.counters(w))
	}
	t := m.say()
	run := t.Running
	if m.paused {
		run = pausedStyle.Render(t.Paused)
	}
	alive := 0
	for _, n := range m.order {
		if m.workers[n].state.Alive() {
			alive++
		}
	}
	name := m.chapter.Name
	if name == "" {
		name = t.Starting
	}
	if m.workshop {
		name += t.YourLock
	}
	h1 := fmt.Sprintf(t.Header, name, alive, m.words.Worker, m.hold)
	h1 = titleStyle.Render(fit(h1, w-visibleWidth(run)-1)) + run
	look := dimStyle.Render(fit(m.look, w))
	if m.chapter.Expect.Claims() {
		look = m.expectLine(w)
	}
	return []string{h1, look, m.counters(w)}
}

// expectLine sets what the lock measured beside what the chapter expects
// of it (scene.Expect), marked ✓ or ✗: a learner's lock that wakes the
// herd says so here, where a fixed sentence would have said it did not.
// Two holders at once is the worse news, so it comes first.
func (m Model) expectLine(w int) string {
	x, t := m.expect, m.say()
	waiters := func(n int) string {
		if n == 1 {
			return t.Waiter
		}
		return fmt.Sprintf(t.Waiters, n)
	}
	var measured, says string
	ok := true
	switch {
	case x.Holders > 0 && m.maxHolders > x.Holders:
		measured, says, ok = fmt.Sprintf(t.HeldAtOnce, m.maxHolders), x.HoldersSays, false
	case x.Woken != 0:
		says = x.WokenSays
		switch {
		case m.releases == 0 && m.wokeNow == 0:
			return dimStyle.Render(fit(fmt.Sprintf(t.NoRelease, says), w))
		case m.wakes == 0 && m.wokeNow == 0:
			n := fmt.Sprintf(t.Releases, m.releases)
			if m.releases == 1 {
				n = t.Release
			}
			return dimStyle.Render(fit(fmt.Sprintf(t.NobodyWoken, n, says), w))
		case m.releases == 0:
			measured = fmt.Sprintf(t.ThisReleaseWoke, waiters(m.wokeNow))
		default:
			measured = fmt.Sprintf(t.EachReleaseWoke, float64(m.wakes)/float64(m.releases), m.lastWoken())
		}
		if x.Woken == scene.All {
			// Every waiter is told: more than one, once more than one waited.
			ok = m.maxWaiting < 2 || m.maxWoken >= 2
		} else {
			ok = m.maxWoken <= x.Woken
		}
	case x.Holders > 0:
		measured, says = fmt.Sprintf(t.AtMostHeld, m.maxHolders), x.HoldersSays
	}
	line := "✓ " + fmt.Sprintf(t.Says, measured, says)
	if !ok {
		return pausedStyle.Render(fit("✗ "+fmt.Sprintf(t.Says, measured, says), w))
	}
	return dimStyle.Render(fit(line, w))
}

// counters is the line of totals in the chapter's words. It must fit the
// terminal without cutting a number: the least telling parts are left out
// first when it does not.
func (m Model) counters(w int) string {
	perAcq := "-"
	if m.acquired > 0 {
		perAcq = fmt.Sprintf("%.1f", float64(m.requests)/float64(m.acquired))
	}
	perRel := "-"
	if m.releases > 0 {
		perRel = fmt.Sprintf("%.1f", float64(m.wakes)/float64(m.releases))
	}
	t := m.say()
	type part struct {
		text string
		keep int // higher stays longer
	}
	parts := []part{
		{fmt.Sprintf("%s %d", m.words.Acquired, m.acquired), 5},
		{fmt.Sprintf(t.Woken, m.words.Woken, perRel, m.lastWoken()), 4},
		{fmt.Sprintf(t.Requests, m.requests, perAcq, m.words.PerAcq), 3},
		{fmt.Sprintf(t.NotifiedN, m.notified), 1},
	}
	if !m.chapter.Watch { // in 01 nobody competes: nothing is wasted
		parts = append(parts[:3], part{fmt.Sprintf(t.WastedN, m.wasted), 2}, parts[3])
	}
	for drop := 0; ; drop++ {
		var kept []string
		for _, p := range parts {
			if p.keep > drop {
				kept = append(kept, p.text)
			}
		}
		line := strings.Join(kept, " · ")
		if ansi.StringWidth(line) <= w || len(kept) <= 1 {
			return fit(line, w)
		}
	}
}

// lastWoken is how many waiters the latest release woke: counted live, so
// the herd of chapter 03 shows as soon as it happens.
func (m Model) lastWoken() int {
	if m.wokeNow > 0 {
		return m.wokeNow
	}
	return m.wokeLast
}

func (m Model) statusLine() string {
	if m.status != "" {
		return "» " + m.status
	}
	return ""
}

// fit cuts s to at most w terminal cells: a CJK character takes two, so
// a Chinese line is measured as the terminal draws it, never by len().
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// pad fills a plain or styled line with spaces up to w columns.
func pad(s string, w int) string {
	n := visibleWidth(s)
	if n >= w {
		return s
	}
	return s + strings.Repeat(" ", w-n)
}

// visibleWidth is the cells s takes on the terminal, ANSI escape
// sequences left out and a CJK character counted as two.
func visibleWidth(s string) int { return ansi.StringWidth(s) }
