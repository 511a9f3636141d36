package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/go-zookeeper/zk"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// A replay plays a recording (what a failing test's locks emitted, see
// event.Recording) in the same view, without ZooKeeper. The view is a fold
// of Update over what happened, so the screen after k events is the first
// k events folded into a fresh model: stepping back is folding one fewer.
//
// A recording holds lock events only, no snapshots of the queue, so the
// replay rebuilds the queue from them: a node is there from its owner's
// create (found by the create's prefix among the later events) or from its
// first mention (a watch on it, its Acquired), until it is released, lost
// or reported deleted.

// Replay is a recording made ready to play: steps[i] is what event i brings
// the model (the event, and the queue when it changed).
type Replay struct {
	rec   event.Recording
	start worldmsg.ChapterStarted
	steps [][]worldmsg.Msg
	// seen: the test did not mark where the property broke, and the replay
	// found the first event against the chapter's expectation itself.
	seen string
	lang string // the view's language (ReplayOptions.Lang)
}

// NewReplay prepares rec to be shown with sc's words.
func NewReplay(rec event.Recording, sc scene.Scene) *Replay {
	// The queue is rebuilt from the locks' own events (a gate's Released
	// takes its node away); the view folds them as it does live (09: the
	// gate is Info, holding is holding a lease).
	raw := rec.Events
	if sc.Recast != nil {
		rec.Events = make([]event.Event, len(raw))
		for i, e := range raw {
			rec.Events[i] = sc.Recast(e)
		}
	}
	lock := ""
	for _, e := range rec.Events {
		if e.Lock != "" {
			lock = e.Lock
			break
		}
	}
	dir := lock
	if sc.Single {
		dir = path.Dir(lock)
	}
	for _, d := range sc.Dirs {
		// A lock on a subdirectory of the chapter's path (09's gate on
		// dir/locks): the queue shows every subdirectory, as live.
		if path.Base(lock) == d {
			dir = path.Dir(lock)
		}
	}
	r := &Replay{rec: rec}
	var owners []string
	for _, e := range rec.Events {
		if e.Owner != "" && !slices.Contains(owners, e.Owner) {
			owners = append(owners, e.Owner)
		}
	}
	r.start = worldmsg.ChapterStarted{Scene: sc, Path: lock, Dir: dir, Workers: owners}
	if r.rec.Header.BrokeAt < 0 {
		// The test failed without saying where (it gave up waiting, say):
		// look for the first event against what the chapter expects.
		var found int = -1
		var why string
		if sc.Expect.Holders == 1 {
			found, why = event.SecondHolder(rec.Events), "2 held at once"
		}
		if found < 0 && sc.Expect.Woken == 1 {
			found, why = event.Herd(rec.Events, 1), "a release woke more than 1"
		}
		if found >= 0 {
			r.rec.Header.BrokeAt = found
			r.seen = why + " (seen by the replay)"
		}
	}
	r.steps = queueSteps(raw, dir, sc.Tag, sc.Single, sc.Dirs)
	for _, step := range r.steps {
		for j, it := range step {
			if e, ok := it.(worldmsg.LockEvent); ok && sc.Recast != nil {
				step[j] = worldmsg.LockEvent{Event: sc.Recast(e.Event)}
			}
		}
	}
	return r
}

// queueSteps pairs each event with the queue it leaves behind, when that
// changed. single: the lock is one node (01 to 03), whose owner is whoever
// holds it.
//
// dirs: the queue is the children of these subdirectories of dir, in this
// order (09: leases, then the gate's locks), as the live view shows them.
func queueSteps(events []event.Event, dir string, tag func(string) string, single bool, dirs []string) [][]worldmsg.Msg {
	type live struct {
		worldmsg.QueueNode
		at int // order of appearance, for nodes without a sequence; one per life of a node
	}
	present := map[string]*live{} // full path → node
	n := 0
	snapshot := func() worldmsg.QueueSnapshot {
		var nodes []*live
		for _, q := range present {
			nodes = append(nodes, q)
		}
		slices.SortFunc(nodes, func(a, b *live) int {
			if da, db := dirIndex(dirs, a.Name), dirIndex(dirs, b.Name); da != db {
				return da - db
			}
			if a.Seq != b.Seq {
				return int(a.Seq - b.Seq)
			}
			return a.at - b.at
		})
		s := worldmsg.QueueSnapshot{Dir: dir}
		for _, q := range nodes {
			s.Nodes = append(s.Nodes, q.QueueNode)
		}
		return s
	}
	// under: a node of the queue (not one of dirs itself, which a
	// children watch names).
	under := func(node string) bool {
		return strings.HasPrefix(node, dir+"/") && !slices.Contains(dirs, strings.TrimPrefix(node, dir+"/"))
	}
	add := func(node, owner string) bool {
		if q, ok := present[node]; ok {
			if q.Owner == "" && owner != "" {
				q.Owner = owner
				return true
			}
			return false
		}
		name := strings.TrimPrefix(node, dir+"/")
		q := &live{QueueNode: worldmsg.QueueNode{Name: name, Seq: sequenceOf(name), Owner: owner}, at: n}
		if tag != nil {
			q.Kind = tag(event.Short(name))
		}
		n++
		present[node] = q
		return true
	}
	// ownerAhead is who will hold node, by the first Acquired of it after i
	// (before anyone reports it gone): a waiter's own node is mentioned
	// first by the one waiting behind it.
	ownerAhead := func(i int, node string) string {
		for _, e := range events[i:] {
			if e.Node != node {
				continue
			}
			switch {
			case e.Kind == event.Acquired || e.Kind == event.Released:
				return e.Owner
			case e.Kind == event.Notified && e.Fired == zk.EventNodeDeleted:
				return ""
			}
		}
		return ""
	}
	holds := map[string]string{} // owner → node it holds
	watched := map[string]int{}  // "owner node" → which of node's lives (at) owner watched
	// holder is who holds node now, by the events so far ("" for nobody).
	holder := func(node string) string {
		for o, n := range holds {
			if n == node {
				return o
			}
		}
		return ""
	}
	steps := make([][]worldmsg.Msg, len(events))
	for i, e := range events {
		var before, after bool
		switch {
		case e.Kind == event.Request && effects[e.Op] == adds && e.Detail != "container" && under(e.Node):
			// A sequential create names its prefix: the node it made is
			// the first later one that starts with it.
			for _, later := range events[i+1:] {
				if len(later.Node) > len(e.Node) && strings.HasPrefix(later.Node, e.Node) {
					before = add(later.Node, e.Owner)
					break
				}
			}
		case e.Kind == event.Acquired && under(e.Node):
			before = add(e.Node, e.Owner)
			if q := present[e.Node]; single && q.Owner != e.Owner && holds[q.Owner] != e.Node {
				// The one lock node changed hands between two snapshots.
				q.Owner, before = e.Owner, true
			}
		case (e.Kind == event.WatchSet || e.Kind == event.Waiting) && under(e.Node) && single:
			before = add(e.Node, holder(e.Node))
			watched[e.Owner+" "+e.Node] = present[e.Node].at
		case (e.Kind == event.WatchSet || e.Kind == event.Waiting) && under(e.Node):
			before = add(e.Node, ownerAhead(i, e.Node))
			watched[e.Owner+" "+e.Node] = present[e.Node].at
		case e.Kind == event.Notified && e.Fired == zk.EventNodeDeleted:
			// A watcher is told of the delete of the node it watched; one
			// told late, when the node is there again (03's one node,
			// created anew by the next holder), is told of an older one.
			q, ok := present[e.Node]
			if at, set := watched[e.Owner+" "+e.Node]; ok && (!set || at == q.at) {
				delete(present, e.Node)
				after = true
			}
		case e.Kind == event.Request && effects[e.Op] == removes:
			// Its owner deletes it: a waiter that gives up (a lease taken
			// with TryLock that is not ours to keep), or a holder letting go.
			if q, ok := present[e.Node]; ok && q.Owner == e.Owner {
				delete(present, e.Node)
				after = true
			}
		case e.Kind == event.Released || e.Kind == event.Lost:
			// Only its owner's release takes a node away: a second holder
			// of one node (a broken 03 that returns from Lock without
			// creating it) lets go of nothing.
			if q, ok := present[e.Node]; ok && (q.Owner == "" || q.Owner == e.Owner) {
				delete(present, e.Node)
				after = true
			}
		}
		switch e.Kind {
		case event.Acquired:
			holds[e.Owner] = e.Node
		case event.Released, event.Lost:
			delete(holds, e.Owner)
		}
		switch {
		case before:
			steps[i] = []worldmsg.Msg{snapshot(), worldmsg.LockEvent{Event: e}}
		case after:
			steps[i] = []worldmsg.Msg{worldmsg.LockEvent{Event: e}, snapshot()}
		default:
			steps[i] = []worldmsg.Msg{worldmsg.LockEvent{Event: e}}
		}
	}
	return steps
}

// dirIndex is where the subdirectory of name (a node under dir: "leases/…")
// stands in dirs; 0 without dirs.
func dirIndex(dirs []string, name string) int {
	if i := slices.Index(dirs, path.Dir(name)); i >= 0 {
		return i
	}
	return len(dirs)
}

// Len is the number of events.
func (r *Replay) Len() int { return len(r.steps) }

// BrokeAt is the index of the event where the property broke, -1 if the
// recording does not say.
func (r *Replay) BrokeAt() int { return r.rec.Header.BrokeAt }

// At is the model after the first k events (0 ≤ k ≤ Len).
func (r *Replay) At(k int) Model {
	k = max(0, min(k, len(r.steps)))
	items := []worldmsg.Msg{r.start}
	for _, s := range r.steps[:k] {
		items = append(items, s...)
	}
	m := NewModel(nil, nil, nil)
	m.lang = r.lang
	m = m.apply(items)
	if k == 0 {
		m.now = time.Time{}
	}
	return m
}

// replayTickMsg advances a playing replay; gen tells a stale tick (one
// from before a key press) from the current one.
type replayTickMsg struct{ gen int }

// replayStep is the pace of play: one event per step.
const replayStep = 150 * time.Millisecond

// ReplayModel plays a Replay: ← → step one event back and forth, space
// plays or pauses, home and end jump to the ends, b to the breaking event.
// It starts playing and stops at the breaking event.
type ReplayModel struct {
	rp      *Replay
	pos     int // events shown
	playing bool
	gen     int
	legend  bool  // ? shows what every column and mark means
	shown   Model // rp.At(pos), with the replay's header
	width   int
	height  int
}

// NewReplayModel returns the model at the start of the recording, playing.
func NewReplayModel(rp *Replay) ReplayModel {
	m := ReplayModel{rp: rp, playing: true, width: FrameWidth, height: FrameHeight}
	return m.at(0)
}

var replayKeys = struct {
	Back, Forward, Play, Start, End, Break, Quit key.Binding
}{
	Back:    key.NewBinding(key.WithKeys("left"), key.WithHelp("←→", "step")),
	Forward: key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "step")),
	Play:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "play/pause")),
	Start:   key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/end", "ends")),
	End:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "end")),
	Break:   key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "where it broke")),
	Quit:    keys.Quit,
}

// Init starts playing.
func (m ReplayModel) Init() tea.Cmd { return m.tick() }

func (m ReplayModel) tick() tea.Cmd {
	if !m.playing {
		return nil
	}
	gen := m.gen
	return tea.Tick(replayStep, func(time.Time) tea.Msg { return replayTickMsg{gen} })
}

// Update is pure: a key or a tick moves the position, and the screen is
// the fold at the new position.
func (m ReplayModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m.at(m.pos), nil
	case replayTickMsg:
		if !m.playing || msg.gen != m.gen {
			return m, nil
		}
		m = m.at(m.pos + 1)
		if m.pos == m.rp.Len() || m.pos == m.rp.BrokeAt()+1 {
			m.playing = false // at the end, or the breaking event is on screen
			m = m.at(m.pos)
		}
		return m, m.tick()
	case tea.KeyMsg:
		m.gen++ // whatever tick is on its way is stale now
		switch {
		case key.Matches(msg, replayKeys.Quit):
			return m, tea.Quit
		case key.Matches(msg, keys.Legend):
			m.legend = !m.legend
			m.gen-- // a key that does not move: the tick on its way is still the one
			return m.at(m.pos), nil
		case key.Matches(msg, replayKeys.Back):
			m.playing = false
			return m.at(m.pos - 1), nil
		case key.Matches(msg, replayKeys.Forward):
			m.playing = false
			return m.at(m.pos + 1), nil
		case key.Matches(msg, replayKeys.Start):
			return m.at(0), m.tick()
		case key.Matches(msg, replayKeys.End):
			m.playing = false
			return m.at(m.rp.Len()), nil
		case key.Matches(msg, replayKeys.Break):
			m.playing = false
			if b := m.rp.BrokeAt(); b >= 0 {
				return m.at(b + 1), nil
			}
			return m.at(m.pos), nil
		case key.Matches(msg, replayKeys.Play):
			m.playing = !m.playing
			if m.playing && m.pos == m.rp.Len() {
				m.pos = 0 // played to the end: from the start again
			}
			return m.at(m.pos), m.tick()
		}
	}
	return m, nil
}

// at moves to position k and folds the screen there.
func (m ReplayModel) at(k int) ReplayModel {
	m.pos = max(0, min(k, m.rp.Len()))
	s := m.rp.At(m.pos)
	s.width, s.height = m.width, m.height
	s.legend = m.legend
	s.replay = &replayState{test: m.rp.rec.Header.Test, why: m.rp.rec.Header.Why, seen: m.rp.seen,
		pos: m.pos, n: m.rp.Len(), brokeAt: m.rp.BrokeAt(), playing: m.playing}
	if m.pos > 0 {
		e := m.rp.rec.Events[m.pos-1]
		line := s.line(e)
		if line == "" { // a scene that leaves it out of the log (01's end of a write)
			line = e.String()
		}
		s.status = fmt.Sprintf(s.say().ReplayEvent, m.pos, protectedAnywhere.ReplaceAllString(line, ""))
	}
	m.shown = s
	return m
}

// View is the queue view at the current position.
func (m ReplayModel) View() string { return m.shown.View() }

// replayState is what the header and the help bar say in a replay.
type replayState struct {
	// why is what the test said (its mark, or its failure message, which
	// the workshop runner writes into the recording); seen, what the
	// replay found itself where the test marked no event.
	test, why, seen string
	pos, n, brokeAt int
	playing         bool
}

// replayHeader is the header's first two lines in a replay: what is played
// and where, then where it broke and why.
func (m Model) replayHeader(w int) []string {
	r, t := m.replay, m.say()
	run := t.Paused
	if r.playing {
		run = t.Playing
	}
	h1 := fmt.Sprintf(t.ReplayHeader, m.chapter.Name, r.pos, r.n, r.test)
	h1 = titleStyle.Render(pad(fit(h1, w-visibleWidth(run)-1), w-visibleWidth(run)-1)) + " " + run
	what := r.why
	switch {
	case r.seen != "" && r.why != "":
		// What the test asserted first: it is what the check named.
		what = fmt.Sprintf(t.TheTestAndSeen, r.why, r.seen)
	case r.seen != "":
		what = r.seen
	}
	var h2 string
	switch {
	case r.brokeAt < 0 && r.why != "":
		h2 = fmt.Sprintf(t.TheTest, r.why)
	case r.brokeAt < 0:
		h2 = t.TestFailed
	case r.pos == r.brokeAt+1:
		h2 = fmt.Sprintf(t.BrokeHere, r.brokeAt+1, what)
	case r.pos <= r.brokeAt:
		h2 = fmt.Sprintf(t.BreaksAt, r.brokeAt+1, what)
	default:
		h2 = fmt.Sprintf(t.BrokeAt, r.brokeAt+1, what)
	}
	return []string{h1, pausedStyle.Render(fit(h2, w))}
}

// replayHelp is the help bar in a replay.
func (m Model) replayHelp(w int) string {
	t := m.say()
	desc := map[string]string{replayKeys.Back.Keys()[0]: t.KeyStep, replayKeys.Play.Keys()[0]: t.KeyPlay,
		replayKeys.Start.Keys()[0]: t.KeyEnds, replayKeys.Break.Keys()[0]: t.KeyBreak, keys.Legend.Keys()[0]: t.KeyLegend,
		replayKeys.Quit.Keys()[0]: t.KeyQuit}
	var items []helpItem
	for _, k := range []key.Binding{replayKeys.Back, replayKeys.Play, replayKeys.Start, replayKeys.Break, keys.Legend, replayKeys.Quit} {
		items = append(items, helpItem{key: k.Help().Key, desc: desc[k.Keys()[0]], keep: isOneOf(k, keys.Legend, replayKeys.Quit)})
	}
	return helpBar(items, w)
}

// ReplayOptions says how to play a recording.
type ReplayOptions struct {
	// Frames > 0: no terminal UI; print the frame at the breaking event
	// (at the end if the recording names none), colour off, Width×Height,
	// to Out (default os.Stdout), under the line "── frame 1/1 ──" as Run
	// prints its frames. For docs and tests: the same recording always
	// gives the same bytes.
	Frames        int
	Width, Height int // default FrameWidth×FrameHeight
	Out           io.Writer
	Lang          string // "zh": the view in Chinese (Options.Lang)
}

// RunReplay plays rec with sc's words until the learner quits or ctx ends.
// It needs no ZooKeeper.
func RunReplay(ctx context.Context, rec event.Recording, sc scene.Scene, o ReplayOptions) error {
	if len(rec.Events) == 0 {
		return errors.New("tui: the recording has no events to replay")
	}
	rp := NewReplay(rec, sc)
	rp.lang = o.Lang
	if o.Frames > 0 {
		frameDefaults(&o.Width, &o.Height, nil, &o.Out)
		lipgloss.SetColorProfile(termenv.Ascii)
		m := NewReplayModel(rp)
		m.width, m.height, m.playing = o.Width, o.Height, false
		end := rp.Len()
		if b := rp.BrokeAt(); b >= 0 {
			end = b + 1
		}
		_, err := fmt.Fprintf(o.Out, "── frame 1/1 ──\n%s\n", m.at(end).View())
		return err
	}
	p := tea.NewProgram(NewReplayModel(rp), tea.WithAltScreen(), tea.WithContext(ctx))
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
