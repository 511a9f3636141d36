package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// protectedAnywhere finds the protected prefix's GUID (zkpath.ProtectedPrefix,
// which a lost create reply is recovered by) anywhere inside a log line.
var protectedAnywhere = regexp.MustCompile(strings.TrimPrefix(zkpath.ProtectedPrefix.String(), "^"))

// shortNode is a node name as the queue shows it, without its directory
// and protected prefix: "lock-0000000012" (also for
// "leases/_c_…-lease-0000000012", a node of a scene with Dirs).
func shortNode(name string) string {
	return zkpath.ProtectedPrefix.ReplaceAllString(name[strings.LastIndexByte(name, '/')+1:], "")
}

// sequenceOf is the 10-digit suffix ZooKeeper appends (zkpath.SequenceOf),
// or -1: the view sorts and shortens by it.
func sequenceOf(name string) int64 {
	if seq, ok := zkpath.SequenceOf(name); ok {
		return seq
	}
	return -1
}

// compactNode drops the sequence's leading zeros ("lock-12") for narrow
// terminals; the log keeps the full name.
func compactNode(name string) string {
	name = shortNode(name)
	if seq := sequenceOf(name); seq >= 0 {
		return name[:len(name)-zkpath.SequenceDigits] + strconv.FormatInt(seq, 10)
	}
	return name
}

// shortDir keeps the end of a long path: "…/04-sequential-lock/lock".
func shortDir(p string, w int) string {
	if len(p) <= w {
		return p
	}
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		if s := "…/" + strings.Join(parts[i:], "/"); len([]rune(s)) <= w {
			return s
		}
	}
	return fit(p, w)
}

// queueView is the QUEUE panel: the children of the lock dir as ZooKeeper
// has them, in sequence order, with the holder marked and, after each
// node, who watches it.
func (m Model) queueView(w, h int) []string {
	lines := make([]string, 0, h)
	title := m.words.Queue
	count := fmt.Sprintf(" (%d)", len(m.queue.Nodes))
	lines = append(lines, titleStyle.Render(fit(title+" "+shortDir(m.queue.Dir, w-visibleWidth(title)-len(count)-1)+count, w)))
	name := shortNode
	if w < 46 {
		name = compactNode
	}

	watchers := map[string][]string{} // node → workers watching it
	for _, n := range m.order {
		for node := range m.workers[n].watching {
			watchers[node] = append(watchers[node], n)
		}
	}
	switch {
	case m.queue.Missing:
		lines = append(lines, dimStyle.Render(fit(m.say().NoZnode, w)))
	case len(m.queue.Nodes) == 0:
		lines = append(lines, dimStyle.Render(fit(m.say().Empty, w)))
	}
	for i, q := range m.queue.Nodes {
		if len(lines) >= h {
			break
		}
		if len(lines) == h-1 && i < len(m.queue.Nodes)-1 {
			lines = append(lines, dimStyle.Render(fit(fmt.Sprintf(m.say().More, len(m.queue.Nodes)-i), w)))
			break
		}
		owner := q.Owner
		if owner == "" {
			// A persistent node has no owning session: the worker that
			// acquired it is its owner.
			for _, n := range m.order {
				if m.workers[n].node == m.queue.Dir+"/"+q.Name {
					owner = n
				}
			}
		}
		st := worldmsg.Idle
		if wk, ok := m.workers[owner]; ok {
			st = wk.state
			// A holder holds one node: an older one of its own that the
			// snapshot still lists is not marked.
			if st == worldmsg.Holding && wk.node != "" && wk.node != m.queue.Dir+"/"+q.Name {
				st = worldmsg.Idle
			}
		}
		if owner == "" {
			owner = "?"
		}
		if m.chapter.Watch {
			owner, q.Persistent = m.say().WatchedNode, false
		}
		mark, tag, style := "  ", "", stateStyle(st)
		switch {
		case st == worldmsg.Holding:
			mark, tag = "▶ ", " "+m.words.Holds
			if m.chapter.Watch {
				mark, tag = "  ", ""
			}
		case !st.Alive() || st == worldmsg.Expired || st == worldmsg.CutOff:
			tag = " (" + m.label(st) + ")"
		}
		if q.Kind != "" {
			tag = " " + q.Kind + tag
		}
		if q.Persistent {
			tag += " PERSISTENT"
			style = persistStyle
		}
		row := mark + name(q.Name) + " " + owner + tag
		lines = append(lines, m.queueRow(row, q, tag, style, watchers, w, h-len(lines))...)
		// Whoever else holds this very node (a broken lock: a second holder
		// that never created it) is shown under it: the queue shows who holds.
		if m.chapter.Watch {
			continue
		}
		for _, n := range m.order {
			if wk := m.workers[n]; n != owner && wk.state == worldmsg.Holding && wk.node == m.queue.Dir+"/"+q.Name && len(lines) < h {
				lines = append(lines, holderStyle.Render(fit(fmt.Sprintf(m.say().AlsoHolds, n, m.words.Holds), w)))
			}
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

// queueRow is a node's row, with after it (or under it) the workers that
// watch the node, in at most room lines.
func (m Model) queueRow(row string, q worldmsg.QueueNode, tag string, style lipgloss.Style, watchers map[string][]string, w, room int) []string {
	// The arrows: every waiter that set a watch on this node. (A
	// holder may watch its own node to learn of its loss: not an arrow.)
	var ws []string
	for _, wn := range watchers[m.queue.Dir+"/"+q.Name] {
		if wn != q.Owner {
			ws = append(ws, wn)
		}
	}
	if len(ws) == 0 {
		return []string{style.Render(fit(row, w))}
	}
	arrow := " ← " + strings.Join(ws, " ")
	fits := visibleWidth(row+arrow) <= w
	if len(ws) == 1 && !fits && tag != "" && room > 1 {
		// The tag (HOLDS, LEADS, crashed) says more than the arrow:
		// the arrow goes under the row rather than cut it off.
		return []string{style.Render(fit(row, w)), waitingStyle.Render(fit("   "+arrow, w))}
	}
	if len(ws) == 1 || fits {
		width := max(w-visibleWidth(arrow), w/2)
		row = fit(row, width)
		return []string{style.Render(row) + waitingStyle.Render(fit(arrow, w-visibleWidth(row)))}
	}
	// One node watched by many (chapter 03's herd): the watchers get
	// their own lines under it.
	return append([]string{style.Render(fit(row, w))}, wrapNames(fmt.Sprintf(m.say().WatchedBy, len(ws)), ws, w, room-1)...)
}

// wrapNames lays names out after prefix over at most maxLines lines of
// width w, ending with "+N" when they don't fit.
func wrapNames(prefix string, names []string, w, maxLines int) []string {
	var out []string
	cur := prefix
	indent := strings.Repeat(" ", 5)
	for i, n := range names {
		if visibleWidth(cur)+visibleWidth(n)+1 > w {
			if len(out)+1 >= maxLines {
				cur += fmt.Sprintf("+%d", len(names)-i)
				break
			}
			out = append(out, waitingStyle.Render(fit(cur, w)))
			cur = indent
		}
		cur += n + " "
	}
	if maxLines > 0 {
		out = append(out, waitingStyle.Render(fit(strings.TrimRight(cur, " "), w)))
	}
	return out
}
