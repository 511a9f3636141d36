package tui

import (
	"fmt"
	"sort"
	"strings"
)

// workersView is the WORKERS panel: one row per worker with its state,
// what it watches, and its counters. A worker that was just notified shows
// NOTIFIED for a moment: in chapter 03 many rows flash at once, in 04 one.
func (m Model) workersView(w, h int) []string {
	lines := make([]string, 0, h)
	showWatch := w >= 60
	head := fmt.Sprintf("  %-9s %-10s", "WORKERS", "state")
	if showWatch {
		head += fmt.Sprintf(" %-17s", "watches")
	}
	head += " acq  req ntf wst"
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
			lines = append(lines, dimStyle.Render(fmt.Sprintf("  … %d more", len(m.order)-i)))
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
		state := m.chapter.label(wk.state)
		if wk.state == Expired {
			state = "expired"
		}
		style := stateStyle(wk.state)
		flashing := wk.flashUntil.After(m.now)
		if flashing {
			state, style = "NOTIFIED", flashStyle
		}
		watch := ""
		if showWatch {
			var ns []string
			for n := range wk.watching {
				if !own[lastElem(n)] || wk.state == Holding { // a waiter's watch on its own node is not what it waits for
					ns = append(ns, shortNode(lastElem(n)))
				}
			}
			sort.Strings(ns)
			watch = " " + pad(fit(strings.Join(ns, ","), 17), 17)
		}
		name := fit(wk.name, 9)
		counters := fmt.Sprintf(" %3d %4d %3d %3d", wk.acquired, wk.requests, wk.notified, wk.wasted)
		row := cursor + pad(name, 9) + " " + style.Render(pad(fit(state, 10), 10)) + watch + counters
		if flashing && wk.lastNotice != "" && w >= 58+len(wk.lastNotice) {
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

func lastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
