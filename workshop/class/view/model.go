// Package view is the host's screen: one row per learner, sorted so that
// whoever needs help comes first, and above it the class by chapter. Its
// Update is pure: it learns what happens from classroom.Change messages
// (the host's watches) and from a clock tick, and re-arms the wait for the
// next change after each one.
package view

import (
	"sort"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

// Lang is the language of the screen.
type Lang int

const (
	English Lang = iota
	Chinese
)

// code is the language's code, as the course's other screens take it.
func (l Lang) code() string {
	if l == Chinese {
		return "zh"
	}
	return "en"
}

// ParseLang reads "en" or "zh".
func ParseLang(s string) (Lang, bool) {
	switch s {
	case "en", "":
		return English, true
	case "zh", "zh-CN", "cn":
		return Chinese, true
	}
	return English, false
}

// Row is what the screen knows of one learner.
type Row struct {
	Name     string
	Online   bool
	Known    bool // a progress has been read
	Progress classroom.Progress
}

// Model is the host's screen.
type Model struct {
	Title  string // the join line, shown for the learners to copy
	Lang   Lang
	Now    time.Time
	Width  int
	Height int
	Err    error // the watch ended: the screen says so

	rows    map[string]Row
	changes <-chan classroom.Change

	arena   *arena.Snapshot // the class's arena, once read (arena.go)
	counts  []count         // the counter over the last rateWindow, for rounds per second
	arenaCh <-chan arena.Snapshot
}

// New is an empty screen fed by changes (nil: only what Update is given).
func New(title string, lang Lang, now time.Time, changes <-chan classroom.Change) Model {
	return Model{Title: title, Lang: lang, Now: now, Width: 100, Height: 30, rows: map[string]Row{}, changes: changes}
}

// Messages besides classroom.Change.
type (
	// TickMsg moves the screen's clock: time on a chapter grows.
	TickMsg time.Time
	// ErrMsg ends the watch; the screen shows why.
	ErrMsg struct{ Err error }
)

// Init waits for the first change and starts the clock.
func (m Model) Init() tea.Cmd { return tea.Batch(m.wait(), m.waitArena(), tick()) }

// Update applies one message. It does no I/O: a change's effect is a new
// row, a key's a new language or the end.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case classroom.Change:
		m = m.Apply(msg)
		return m, m.wait()
	case ArenaMsg:
		m = m.ApplyArena(arena.Snapshot(msg))
		return m, m.waitArena()
	case TickMsg:
		m.Now = time.Time(msg)
		return m, tick()
	case ErrMsg:
		m.Err = msg.Err
		return m, nil
	case tea.WindowSizeMsg:
		m.Width, m.Height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		case "l":
			m.Lang = 1 - m.Lang
		}
	}
	return m, nil
}

// Apply is Update's part for one change, for callers without a program
// (frames, tests).
func (m Model) Apply(c classroom.Change) Model {
	rows := make(map[string]Row, len(m.rows)+1)
	for k, v := range m.rows {
		rows[k] = v
	}
	r := rows[c.Name]
	r.Name = c.Name
	switch c.Kind {
	case classroom.Progressed:
		r.Progress, r.Known = c.Progress, true
	case classroom.Online:
		r.Online = true
	case classroom.Offline:
		r.Online = false
	case classroom.Left:
		delete(rows, c.Name)
		m.rows = rows
		return m
	}
	rows[c.Name] = r
	m.rows = rows
	return m
}

// Row returns what the screen shows of name.
func (m Model) Row(name string) (Row, bool) {
	r, ok := m.rows[name]
	return r, ok
}

// wait is the command that brings the next change: re-armed after each.
func (m Model) wait() tea.Cmd {
	if m.changes == nil {
		return nil
	}
	ch := m.changes
	return func() tea.Msg {
		c, ok := <-ch
		if !ok {
			return ErrMsg{Err: errWatchEnded}
		}
		return c
	}
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return TickMsg(t) })
}

// rank orders learners by how much they need help: online and failing
// first, then online and not started, then passing, then those gone.
func rank(r Row) int {
	if !r.Online {
		return 3
	}
	switch r.Progress.State {
	case classroom.Failing:
		return 0
	case classroom.Untouched:
		return 1
	}
	return 2
}

// Rows are the learners in the screen's order: by rank, then longest on
// their chapter first, then by name.
func (m Model) Rows() []Row {
	out := make([]Row, 0, len(m.rows))
	for _, r := range m.rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		if !a.Progress.ChapterStart.Equal(b.Progress.ChapterStart) {
			return a.Progress.ChapterStart.Before(b.Progress.ChapterStart)
		}
		return a.Name < b.Name
	})
	return out
}

// Chapter is the class on one chapter.
type Chapter struct {
	Chapter  string
	Learners int
	Passing  int
	Mistakes []Mistake // most named first
}

// Mistake is how many learners of a chapter a check named it for.
type Mistake struct {
	Name  string
	Count int
}

// Chapters sums the class up by chapter, in chapter order.
func (m Model) Chapters() []Chapter {
	by := map[string]*Chapter{}
	mistakes := map[string]map[string]int{}
	for _, r := range m.rows {
		if !r.Known {
			continue
		}
		c := by[r.Progress.Chapter]
		if c == nil {
			c = &Chapter{Chapter: r.Progress.Chapter}
			by[r.Progress.Chapter] = c
			mistakes[r.Progress.Chapter] = map[string]int{}
		}
		c.Learners++
		if r.Progress.State == classroom.Passing {
			c.Passing++
		}
		if r.Progress.State == classroom.Failing && r.Progress.Mistake != "" {
			mistakes[r.Progress.Chapter][r.Progress.Mistake]++
		}
	}
	var out []Chapter
	for name, c := range by {
		for mistake, n := range mistakes[name] {
			c.Mistakes = append(c.Mistakes, Mistake{mistake, n})
		}
		sort.Slice(c.Mistakes, func(i, j int) bool {
			if c.Mistakes[i].Count != c.Mistakes[j].Count {
				return c.Mistakes[i].Count > c.Mistakes[j].Count
			}
			return c.Mistakes[i].Name < c.Mistakes[j].Name
		})
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Chapter < out[j].Chapter })
	return out
}
