package tui

// Texts is every word of the engine's own — the header, the verdict line
// beside the scene's Expect, the counters, the panels' titles, the key bar
// and the status line — as format strings: english and chinese are its two
// rows, and Options.Lang picks one (say), never an if at the call site. A
// chapter's own words (worker, holds, waiting…) come from its scene
// (scene.Words, and scene.Chinese for the Chinese view).
type Texts struct {
	// The header.
	Running, Paused, Starting, YourLock, Header string
	// The verdict line: what the lock measured beside what the chapter
	// expects of it.
	Waiter, Waiters, HeldAtOnce, AtMostHeld, NoRelease, Release, Releases,
	NobodyWoken, ThisReleaseWoke, EachReleaseWoke, Says string
	// The counters line.
	Woken, Requests, NotifiedN, WastedN string
	// The panels.
	Workers, State, Watches, Columns, Counters, Events, NoZnode, Empty, More,
	WatchedNode, WatchedBy, AlsoHolds string
	// The state column's words for the states a scene does not name.
	CutOff, Expired, Crashed, Stopped string
	// The key bar: each key's description (the add key's is the scene's
	// word for a worker).
	KeyPause, KeySpeed, KeySelect, KeyKill, KeyExpire, KeyChapter, KeyQuit string
	// The status line, after a key.
	StatusPaused, StatusRunning, StatusHold, StatusAdding, StatusRemoving,
	StatusNobody, StatusGone, StatusKilled, StatusExpiring, StatusNewSession, StatusNoScene,
	StatusSwitching string
	// A replay (-replay FILE, the runner's p): its header, its status
	// line and its keys. What the test said (its why) stays as the test
	// wrote it.
	Playing, ReplayHeader, TheTest, TheTestAndSeen, TestFailed, BrokeHere, BreaksAt, BrokeAt,
	ReplayEvent, KeyStep, KeyPlay, KeyEnds, KeyBreak string
}

var english = Texts{
	Running: "running", Paused: "PAUSED", Starting: "starting…", YourLock: " (your lock)",
	Header: "lockstep %s · %d %ss · hold %v · ",

	Waiter: "1 waiter", Waiters: "%d waiters", HeldAtOnce: "%d held at once", AtMostHeld: "at most %d held at once",
	NoRelease: "· no release yet; %s", Release: "1 release", Releases: "%d releases",
	NobodyWoken: "· %s, nobody woken yet; %s", ThisReleaseWoke: "this release woke %s",
	EachReleaseWoke: "each release woke %.1f waiters (last %d)", Says: "%s; %s",

	Woken: "%s %s (last %d)", Requests: "req %d (%s/%s)", NotifiedN: "notified %d", WastedN: "wasted %d",

	Workers: "%sS", State: "state", Watches: "watches", Columns: "  req ntf wst", Counters: " %4d %3d %3d", Events: "EVENTS",
	NoZnode: "(no such znode: nobody is queued)", Empty: "(empty: nobody holds or waits)", More: "… %d more",
	WatchedNode: "(watched node)", WatchedBy: "   ← watched by %d: ",
	AlsoHolds: "  ▶ %s %s it too (2 holders)",

	CutOff: "cut off", Expired: "expired", Crashed: "crashed", Stopped: "stopped",

	KeyPause: "pause", KeySpeed: "speed", KeySelect: "select", KeyKill: "kill", KeyExpire: "expire",
	KeyChapter: "chapter", KeyQuit: "quit",

	StatusPaused:     "paused: holders keep holding, waiters keep waiting",
	StatusRunning:    "running",
	StatusHold:       "hold %v",
	StatusAdding:     "adding a %s",
	StatusRemoving:   "removing a %s (it unlocks and closes its session)",
	StatusNobody:     "nobody %s: select a %s with ↑↓ first",
	StatusGone:       "%s is already gone",
	StatusKilled:     "killed %s: its node stays until the server times out its session",
	StatusExpiring:   "expiring %s's session: link cut until the server gives up on it",
	StatusNewSession: "%s is back on a new session %#x (the old one expired)",
	StatusNoScene:    "chapter %s has no scene in the visualizer",
	StatusSwitching:  "switching to chapter %s",

	Playing: "playing", ReplayHeader: "replay %s · event %d/%d · %s", TheTest: "the test: %s",
	TheTestAndSeen: "the test: %s · %s", TestFailed: "the test failed: play its events to see what its locks did",
	BrokeHere: "BROKE HERE (event %d): %s", BreaksAt: "breaks at event %d (b): %s", BrokeAt: "broke at event %d (b): %s",
	ReplayEvent: "event %d: %s", KeyStep: "step", KeyPlay: "play/pause", KeyEnds: "ends", KeyBreak: "where it broke",
}

var chinese = Texts{
	Running: "运行中", Paused: "已暂停", Starting: "启动中…", YourLock: "（你的锁）",
	Header: "lockstep %s · %d 个%s · 持有 %v · ",

	Waiter: "1 个等待者", Waiters: "%d 个等待者", HeldAtOnce: "同时有 %d 个持有者", AtMostHeld: "同时最多 %d 个持有者",
	NoRelease: "· 还没有释放；%s", Release: "1 次释放", Releases: "%d 次释放",
	NobodyWoken: "· %s，还没有唤醒谁；%s", ThisReleaseWoke: "这次释放唤醒了 %s",
	EachReleaseWoke: "每次释放唤醒 %.1f 个等待者（最近 %d）", Says: "%s；%s",

	Woken: "%s %s（最近 %d）", Requests: "请求 %d（%s/%s）", NotifiedN: "通知 %d", WastedN: "无效唤醒 %d",

	Workers: "%s", State: "状态", Watches: "监听", Columns: " 请求 通知 无效", Counters: " %4d %4d %4d", Events: "事件",
	NoZnode: "（没有这个 znode：没有人排队）", Empty: "（空：没有持有者，也没有等待者）", More: "… 还有 %d 个",
	WatchedNode: "（被监听的节点）", WatchedBy: "   ← %d 个在监听：",
	AlsoHolds: "  ▶ %s 也%s它（两个持有者）",

	CutOff: "已断开", Expired: "会话过期", Crashed: "已崩溃", Stopped: "已停止",

	KeyPause: "暂停", KeySpeed: "速度", KeySelect: "选择", KeyKill: "杀掉", KeyExpire: "会话过期",
	KeyChapter: "章节", KeyQuit: "退出",

	StatusPaused:     "已暂停：持有者继续持有，等待者继续等待",
	StatusRunning:    "运行中",
	StatusHold:       "持有 %v",
	StatusAdding:     "正在添加一个%s",
	StatusRemoving:   "正在移除一个%s（它会释放锁并关闭会话）",
	StatusNobody:     "没有%s：先用 ↑↓ 选一个%s",
	StatusGone:       "%s 已经不在了",
	StatusKilled:     "已杀掉 %s：它的节点会一直留着，直到服务器判定它的会话超时",
	StatusExpiring:   "正在让 %s 的会话过期：连接已切断，直到服务器放弃这个会话",
	StatusNewSession: "%s 已换上新会话 %#x（旧会话已过期）",
	StatusNoScene:    "第 %s 章在可视化工具里没有场景",
	StatusSwitching:  "切换到第 %s 章",

	Playing: "播放中", ReplayHeader: "回放 %s · 事件 %d/%d · %s", TheTest: "测试：%s",
	TheTestAndSeen: "测试：%s · %s", TestFailed: "测试未通过：播放它的事件，看看它的锁做了什么",
	BrokeHere: "就在这里出错（事件 %d）：%s", BreaksAt: "在事件 %d 出错（b）：%s", BrokeAt: "在事件 %d 出过错（b）：%s",
	ReplayEvent: "事件 %d：%s", KeyStep: "单步", KeyPlay: "播放/暂停", KeyEnds: "首尾", KeyBreak: "出错的地方",
}

// words returns the engine's text in lang ("zh" or anything else for
// English).
func words(lang string) *Texts {
	if lang == "zh" {
		return &chinese
	}
	return &english
}

// inLang is m speaking lang: the engine's texts and the chapter's words.
func (m Model) inLang(lang string) Model {
	m.lang = lang
	m.words, m.look, m.expect = m.chapter.In(lang)
	return m
}

// say is the engine's text in m's language.
func (m Model) say() *Texts { return words(m.lang) }
