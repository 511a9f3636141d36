package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// workersView is the WORKERS panel: one row per worker with its state,
// what it watches, and its counters. A worker that was just notified shows
// NOTIFIED for a moment: in chapter 03 many rows flash at once, in 04 one.
func (m Model) workersView(w, h int) []string {
	lines := make([]string, 0, h)
	showWatch := w >= 60
	nameW, stateW := m.columns()
	t := m.say()
	head := "  " + pad(fmt.Sprintf(t.Workers, strings.ToUpper(m.words.Worker)), nameW) + " " + pad(t.State, stateW)
	if showWatch {
		head += " " + pad(t.Watches, 17)
	}
	// The first counter is named as the counters line names it: acq, or
	// writes (01), terms (07).
	acqW := max(3, visibleWidth(m.words.Acquired))
	head += " " + strings.Repeat(" ", acqW-visibleWidth(m.words.Acquired)) + m.words.Acquired + t.Columns
	lines = append(lines, titleStyle.Render(fit(head, w)))

	rows := h - 1
	start := 0
	sel := m.selected()
	selIdx := -1
	for i, n := range m.order {
		if n == sel {
			selIdx = i
		}
	}
	if selIdx >= rows {
		start = selIdx - rows + 1
	}
	for i := start; i < len(m.order) && len(lines) < h; i++ {
		if len(lines) == h-1 && i < len(m.order)-1 {
			lines = append(lines, dimStyle.Render("  "+fmt.Sprintf(t.More, len(m.order)-i)))
			break
		}
		wk := m.workers[m.order[i]]
		own := map[string]bool{} // the worker's own nodes in the queue
		for _, q := range m.queue.Nodes {
			if q.Owner == wk.name {
				own[q.Name] = true
			}
		}
		cursor := "  "
		if wk.name == sel {
			cursor = "» "
		}
		state := m.label(wk.state)
		style := stateStyle(wk.state)
		// A notification flashes on a worker that was woken and has not
		// got the lock (yet, or again): a holder's row says it holds, as
		// its node's row in the queue does.
		flashing := wk.flashUntil.After(m.now) && wk.state != worldmsg.Holding
		if flashing {
			state, style = m.words.Notified, flashStyle
		}
		watch := ""
		if showWatch {
			var ns []string
			for n := range wk.watching {
				if !own[lastElem(n)] || wk.state == worldmsg.Holding { // a waiter's watch on its own node is not what it waits for
					ns = append(ns, shortNode(lastElem(n)))
				}
			}
			sort.Strings(ns)
			watch = " " + pad(fit(strings.Join(ns, ","), 17), 17)
		}
		name := fit(wk.name, nameW)
		counters := fmt.Sprintf(" %*d"+t.Counters, acqW, wk.acquired, wk.requests, wk.notified, wk.wasted)
		row := cursor + pad(name, nameW) + " " + style.Render(pad(fit(state, stateW), stateW)) + watch + counters
		if flashing && wk.lastNotice != "" && w >= visibleWidth(row)+1+len(wk.lastNotice) {
			row += " " + wk.lastNotice
		}
		if wk.name == sel {
			row = selectedStyle.Render(cursor) + row[len(cursor):]
		}
		lines = append(lines, row)
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

// columns are the widths of the name column, which fits the longest name
// ("candidate-12" in 07), and of the state column, which fits the
// chapter's longest word for a state.
func (m Model) columns() (nameW, stateW int) {
	nameW = 9
	for _, n := range m.order {
		nameW = max(nameW, len(n))
	}
	stateW = visibleWidth(m.say().Expired)
	for _, l := range []string{m.words.Idle, m.words.Requesting, m.words.Waiting, m.words.Holding, m.words.Notified} {
		stateW = max(stateW, visibleWidth(l))
	}
	return min(nameW, 14), min(stateW, 12)
}

// workersWidth is the width of a row without the watches column.
func (m Model) workersWidth() int {
	nameW, stateW := m.columns()
	return 2 + nameW + 1 + stateW + 1 + max(3, visibleWidth(m.words.Acquired)) + visibleWidth(m.say().Columns)
}

func lastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
