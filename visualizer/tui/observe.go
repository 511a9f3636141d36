package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
)

// The observe mode (go run ./visualizer -observe DIR) shows a lock
// directory the visualizer does not own: somebody else's locks queue
// there — the class's arena, a Curator InterProcessMutex, a go-zookeeper
// zk.Lock. It has no workers of its own, so it knows only what ZooKeeper
// shows an outsider: the children (visualizer/observe's child watch), their
// sequence, their owner. The lowest holds; a hand-off is the holder's node
// leaving and the next one becoming the lowest.

// rateWindow is how far back hand-offs per second are counted.
const rateWindow = 10 * time.Second

// ObserveModel is the observe mode's root model. It draws the queue with
// the engine's queue panel and log (Model), the owners standing in for
// workers: the lowest node's owner holds, the others wait.
type ObserveModel struct {
	src  Source
	view Model // the engine's panels, fed with what is observed

	dir      string
	first    bool      // no snapshot yet
	since    time.Time // the first snapshot
	now      time.Time
	queue    worldmsg.QueueSnapshot
	holder   worldmsg.QueueNode // the lowest node; Name "" when nobody holds
	heldFrom time.Time          // when holder became the lowest (zero: held before we looked)
	handoffs []time.Time
	total    int // hand-offs since the first snapshot
	joins    int
	leaves   int
	status   string
	offline  bool // the link to ZooKeeper is down: the queue may be stale

	// The arena (arena.go): the last reading, nil unless the observed
	// directory is the class's arena, and the counter's readings for
	// rounds per second.
	arena    *worldmsg.Arena
	readings []reading
}

// NewObserveModel returns the observe model of dir in lang ("zh" or
// English). src may be nil in tests that only feed messages.
func NewObserveModel(src Source, dir, lang string) ObserveModel {
	v := NewModel(nil, nil, nil).inLang(lang)
	v.queue = worldmsg.QueueSnapshot{Dir: dir}
	return ObserveModel{src: src, view: v, dir: dir, first: true}
}

func (m ObserveModel) say() *observeTexts {
	if m.view.lang == "zh" {
		return &observeChinese
	}
	return &observeEnglish
}

// Init starts listening to the watch.
func (m ObserveModel) Init() tea.Cmd { return tea.Batch(waitForEvent(m.src), clock()) }

// clockMsg moves the view's clock on while nothing happens, so the hand-off
// rate falls when the hand-offs stop. It reads nothing from ZooKeeper.
type clockMsg time.Time

func clock() tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(t time.Time) tea.Msg { return clockMsg(t) })
}

// Update is pure, as the engine's: what is observed changes the model, a
// command is re-armed after each batch, and the keys that act on workers
// only say that there are none here.
func (m ObserveModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case lockEventMsg:
		m = m.apply(msg.items)
		return m, waitForEvent(m.src)
	case clockMsg:
		if t := time.Time(msg); t.After(m.now) {
			m.now = t
		}
		return m, clock()
	case tea.WindowSizeMsg:
		m.view.width, m.view.height = msg.Width, msg.Height
		return m, nil
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		}
		m.status = m.say().KeysOff
		return m, nil
	}
	return m, nil
}

// apply folds a batch of what was observed into the model.
func (m ObserveModel) apply(items []worldmsg.Msg) ObserveModel {
	m.view.log = append([]string(nil), m.view.log...)
	for _, it := range items {
		switch it := it.(type) {
		case worldmsg.Observed:
			m = m.observe(it)
		case worldmsg.Arena:
			m = m.applyArena(it)
		case worldmsg.Notice:
			m.view.addLog(it.Text)
		case worldmsg.Link:
			if it.Up == m.offline {
				m.offline = !it.Up
				say := m.say().Reconnected
				if m.offline {
					say = m.say().Disconnected
				}
				m.view.addLog(fmt.Sprintf(say, it.At.Format("15:04:05.000")))
			}
		}
	}
	return m
}

// observe compares one look at the directory with the last: who joined,
// who left, whether the holder changed hands.
func (m ObserveModel) observe(o worldmsg.Observed) ObserveModel {
	t := m.say()
	if o.At.After(m.now) {
		m.now = o.At
	}
	at := o.At.Format("15:04:05.000")
	prev := map[string]worldmsg.QueueNode{}
	for _, n := range m.queue.Nodes {
		prev[n.Name] = n
	}
	next := map[string]bool{}
	for _, n := range o.Queue.Nodes {
		next[n.Name] = true
	}
	var lowest worldmsg.QueueNode
	if len(o.Queue.Nodes) > 0 {
		lowest = o.Queue.Nodes[0]
	}
	if m.first {
		m.first, m.since = false, o.At
		m.view.addLog(fmt.Sprintf(t.Watching, at, m.dir, len(o.Queue.Nodes)))
		if o.Queue.Missing {
			m.view.addLog(fmt.Sprintf(t.NoDir, at))
		}
		m.queue, m.holder = o.Queue, lowest
		m.view = m.view.asObserved(o.Queue)
		return m
	}
	for _, n := range m.queue.Nodes {
		if next[n.Name] {
			continue
		}
		m.leaves++
		if n.Name == m.holder.Name {
			held := ""
			if !m.heldFrom.IsZero() {
				held = fmt.Sprintf(t.After, o.At.Sub(m.heldFrom).Round(time.Millisecond))
			}
			m.view.addLog(fmt.Sprintf(t.Releases, at, shortNode(n.Name), who(n), held))
		} else {
			m.view.addLog(fmt.Sprintf(t.Leaves, at, shortNode(n.Name), who(n)))
		}
	}
	// The order of the log is the order of the story: who left, the
	// hand-off, who joined (a holder that lets go and queues again at once,
	// a demo's next round, shows in one look as both), and a free lock
	// taken by one who just joined.
	changed := lowest.Name != m.holder.Name && lowest.Name != ""
	handOff := changed && m.holder.Name != "" && !next[m.holder.Name]
	if handOff {
		m.total++
		m.handoffs = append(m.handoffs, o.At)
		m.view.addLog(fmt.Sprintf(t.HandOff, at, shortNode(m.holder.Name), shortNode(lowest.Name), who(lowest)))
	}
	for _, n := range o.Queue.Nodes {
		if _, ok := prev[n.Name]; !ok {
			m.joins++
			m.view.addLog(fmt.Sprintf(t.Joins, at, shortNode(n.Name), who(n)))
		}
	}
	if changed && !handOff {
		m.view.addLog(fmt.Sprintf(t.Takes, at, shortNode(lowest.Name), who(lowest)))
	}
	if changed {
		m.heldFrom = o.At
	}
	if o.Queue.Missing && !m.queue.Missing {
		m.view.addLog(fmt.Sprintf(t.NoDir, at))
	}
	m.holder = lowest
	if lowest.Name == "" {
		m.heldFrom = time.Time{}
	}
	m.queue = o.Queue
	m.view = m.view.asObserved(o.Queue)
	return m
}

// who is a node's owner for the log.
func who(n worldmsg.QueueNode) string {
	if n.Owner == "" {
		return "?"
	}
	return n.Owner
}

// rate is the hand-offs per second over the last rateWindow (or since the
// first snapshot, if that is more recent).
func (m ObserveModel) rate() float64 {
	if m.first {
		return 0
	}
	from := m.now.Add(-rateWindow)
	span := rateWindow
	if m.since.After(from) {
		from, span = m.since, m.now.Sub(m.since)
	}
	if span < time.Second {
		span = time.Second
	}
	n := 0
	for _, t := range m.handoffs {
		if !t.Before(from) {
			n++
		}
	}
	return float64(n) / span.Seconds()
}

// asObserved is the engine's model showing an observed queue: each owner
// stands in for a worker — the lowest node's owner holding, the others
// waiting — so the queue panel marks the holder as it does live. Nobody's
// watches are known to an outsider: no arrows.
func (m Model) asObserved(q worldmsg.QueueSnapshot) Model {
	m.queue = q
	m.workers = map[string]*worker{}
	m.order = nil
	for i, n := range q.Nodes {
		if n.Owner == "" || m.workers[n.Owner] != nil {
			continue
		}
		st := worldmsg.Waiting
		if i == 0 {
			st = worldmsg.Holding
		}
		m.workers[n.Owner] = &worker{name: n.Owner, state: st, node: q.Dir + "/" + n.Name}
		m.order = append(m.order, n.Owner)
	}
	return m
}

// View draws the header (the directory, the holder, the hand-offs; the
// arena's panel when there is one), the queue panel across the screen, the log, a status line and the help bar.
func (m ObserveModel) View() string {
	w, h := max(m.view.width, 40), max(m.view.height, 12)
	t := m.say()
	holder := t.Nobody
	if m.holder.Name != "" {
		holder = fmt.Sprintf(t.Holder, shortNode(m.holder.Name), who(m.holder))
		if !m.heldFrom.IsZero() {
			holder += fmt.Sprintf(t.HeldFor, m.now.Sub(m.heldFrom).Truncate(100*time.Millisecond))
		}
	}
	title := titleStyle.Render(fit(fmt.Sprintf(t.Header, len(m.queue.Nodes)), w))
	if m.offline {
		title = pausedStyle.Render(fit(t.Offline, w))
	}
	header := []string{
		title,
		holderStyle.Render(fit(holder, w)),
		fit(fmt.Sprintf(t.Counters, m.rate(), int(rateWindow.Seconds()), m.total, m.joins, m.leaves), w),
	}
	header = append(header, m.arenaLines(w)...)
	footer := []string{fit(statusOf(m.status), w), helpBar([]helpItem{{key: "q", desc: t.Help, keep: true}}, w)}
	panelH := max(3, min(len(m.queue.Nodes)+2, h-len(header)-len(footer)-4))
	logH := h - len(header) - len(footer) - panelH
	lines := append([]string{}, header...)
	lines = append(lines, m.view.queueView(w, panelH)...)
	lines = append(lines, m.view.logView(w, logH)...)
	lines = append(lines, footer...)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func statusOf(s string) string {
	if s == "" {
		return ""
	}
	return "» " + s
}

// ObserveSource is what the observe mode reads (visualizer/observe's
// Observer): Next blocks, Pending does not (-frames).
type ObserveSource interface {
	Source
	Pending() []worldmsg.Msg
}

// ObserveOptions says how to show an observed directory; the zero values
// are the engine's (Options).
type ObserveOptions struct {
	Dir  string
	Lang string
	// Frames > 0: no terminal UI; that many frames, one every Interval,
	// colour off, Width×Height, to Out.
	Frames        int
	Interval      time.Duration
	Width, Height int
	Out           io.Writer
}

// RunObserve shows src's directory until the person quits or ctx ends.
func RunObserve(ctx context.Context, src ObserveSource, o ObserveOptions) error {
	frameDefaults(&o.Width, &o.Height, &o.Interval, &o.Out)
	if o.Frames > 0 {
		lipgloss.SetColorProfile(termenv.Ascii)
		m := NewObserveModel(nil, o.Dir, o.Lang)
		m.view.width, m.view.height = o.Width, o.Height
		for i := range o.Frames {
			select {
			case <-time.After(o.Interval):
			case <-ctx.Done():
				return ctx.Err()
			}
			m = m.apply(src.Pending())
			m.now = time.Now()
			fmt.Fprintf(o.Out, "── frame %d/%d ──\n%s\n", i+1, o.Frames, m.View())
		}
		return nil
	}
	p := tea.NewProgram(NewObserveModel(src, o.Dir, o.Lang), tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(30))
	_, err := p.Run()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// observeTexts is the observe mode's own words; the queue panel and the
// log's title are the engine's (Texts, scene.Words).
type observeTexts struct {
	Header, Holder, Nobody, HeldFor, After, Counters         string
	Watching, NoDir, Joins, Leaves, Releases, HandOff, Takes string
	KeysOff, Help                                            string
	Offline, Disconnected, Reconnected                       string
	// The arena panel (arena.go).
	ArenaLine, ArenaRunning, ArenaPausedState, NoneCaught, CaughtHead string
	CaughtLog, ArenaPaused, ArenaResumed                              string
	NoWriter                                                          string
}

var observeEnglish = observeTexts{
	Header: "lockstep observe · %d queued · a lock it does not own, no workers of its own",
	Holder: "▶ holder %s (%s)", Nobody: "nobody holds", HeldFor: " for %v", After: " after %v",
	Counters: "hand-offs %.1f/s (last %ds) · %d in all · joined %d · left %d",
	Watching: "%s watching %s: %d queued", NoDir: "%s no such znode yet: nobody has queued",
	Joins: "%s + %s joins (%s)", Leaves: "%s - %s leaves without holding (%s)",
	Releases: "%s - %s releases (%s)%s", HandOff: "%s ▶ hand-off %s → %s (%s)",
	Takes:        "%s ▶ %s (%s) takes the free lock",
	KeysOff:      "observe mode: no workers here, so space, +/-, a/x, k and e are off",
	Help:         "quit · observe mode: the keys that act on workers are off",
	Offline:      "NO CONNECTION TO ZOOKEEPER: the queue below is the last one seen",
	Disconnected: "%s the connection to ZooKeeper is lost: the queue shown may be stale",
	Reconnected:  "%s connected to ZooKeeper again",

	ArenaLine:    "ARENA %s · count %d · %.1f rounds/s · last writer %s",
	ArenaRunning: "running", ArenaPausedState: "PAUSED by the host",
	NoneCaught: "no write refused yet: no two locks have been inside at once",
	CaughtHead: "refused writes: %d, the latest:",
	CaughtLog:  "%s ✗ %s", ArenaPaused: "%s the host paused the arena", ArenaResumed: "%s the host resumed the arena",
	NoWriter: "nobody yet",
}

var observeChinese = observeTexts{
	Header: "lockstep 旁观 · 排队 %d 个 · 旁观别人的锁目录，自己不运行任何客户端",
	Holder: "▶ 持有者 %s（%s）", Nobody: "无人持有", HeldFor: "，已持有 %v", After: "，持有了 %v",
	Counters: "交接 %.1f 次/秒（最近 %d 秒）· 共 %d 次 · 加入 %d · 离开 %d",
	Watching: "%s 开始旁观 %s：排队 %d 个", NoDir: "%s 要旁观的 znode 还不存在，说明还没有人排队",
	Joins: "%s + %s 加入（%s）", Leaves: "%s - %s 未持有就离开（%s）",
	Releases: "%s - %s 释放（%s）%s", HandOff: "%s ▶ 交接 %s → %s（%s）",
	Takes:        "%s ▶ %s（%s）拿到空闲的锁",
	KeysOff:      "旁观模式：这里没有客户端，空格、+/-、a/x、k 和 e 都不可用",
	Help:         "退出 · 旁观模式：作用于客户端的按键不可用",
	Offline:      "和 ZooKeeper 的连接断了：下面是最后一次看到的队列",
	Disconnected: "%s 和 ZooKeeper 的连接断了：画面上的队列可能已经过时",
	Reconnected:  "%s 又连上了 ZooKeeper",

	ArenaLine:    "竞技场 %s · 计数器 %d · 每秒 %.1f 轮 · 最后写入的是 %s",
	ArenaRunning: "运行中", ArenaPausedState: "讲师已暂停",
	NoneCaught: "还没有写入被拒绝：还没有两个持有者同时进入临界区",
	CaughtHead: "竞技场拒绝了 %d 次写入，最近几次是：",
	CaughtLog:  "%s ✗ %s", ArenaPaused: "%s 讲师暂停了竞技场", ArenaResumed: "%s 讲师恢复了竞技场",
	NoWriter: "还没有人",
}
