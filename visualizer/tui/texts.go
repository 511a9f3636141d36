package tui

import "github.com/lockstep-zk/lockstep/visualizer/worldmsg"

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
	KeyPause, KeySpeed, KeySelect, KeyKill, KeyExpire, KeyChapter, KeyQuit, KeyLegend string
	// The legend (?): a mark and what it means, one line each; a line
	// without a mark is a title. {holds}, {acq}, {woken}, {notified},
	// {perAcq}, {worker}, {workers} and {queue} are the chapter's words.
	Legend [][2]string
	// The status line, after a key.
	StatusPaused, StatusRunning, StatusHold, StatusAdding, StatusRemoving,
	StatusNobody, StatusGone, StatusKilled, StatusExpiring, StatusNewSession, StatusNoScene,
	StatusSwitching, StatusTyped string
	// A replay (-replay FILE, the runner's p): its header, its status
	// line and its keys. What the test said (its why) stays as the test
	// wrote it.
	Playing, ReplayHeader, TheTest, TheTestAndSeen, TestFailed, BrokeHere, BreaksAt, BrokeAt,
	ReplayEvent, KeyStep, KeyPlay, KeyEnds, KeyBreak string
	// The log's own lines: what happened to a worker (its name, the
	// state, then what the state means), the server's delete of a dead
	// worker's node, and the world's notices (NoticeKind: %[1]s the
	// worker, %[2]s the argument).
	WorkerChanged, DetailStopped, DetailCrashed, DetailCutOff, DetailExpired, ServerDeleted string
	Notices                                                                                 map[worldmsg.NoticeKind]string
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
	KeyChapter: "chapter", KeyQuit: "quit", KeyLegend: "legend",
	Legend: [][2]string{
		{"", "LEGEND (? again closes it; the other keys work as before)"},
		{"", "{queue}: the lock's znodes as ZooKeeper lists them, in sequence order"},
		{"▶ … {holds}", "this node's owner holds the lock"},
		{"← worker-3", "worker-3 watches this node: it waits for it to change"},
		{"G · L", "09: a node of the gate (locks/) · a lease (leases/)"},
		{"R · W", "05: a reader's node · a writer's node"},
		{"(crashed)", "its owner died: the node stays until its session expires"},
		{"", "{workers}: one row each, each on a ZooKeeper session of its own"},
		{"»", "the selected one (↑↓): k and e act on it (none: the holder)"},
		{"{notified}", "it was just told by a watch"},
		{"{acq}", "times it acquired the lock"},
		{"req", "requests it sent to ZooKeeper (create, getChildren, …)"},
		{"ntf", "watch notifications it received"},
		{"wst", "wasted wake-ups: notified, then back to waiting in the"},
		{" ", "same queue (03's herd; 09's gate hand-off is not one)"},
		{"", "THE COUNTERS LINE: every {worker} together"},
		{"{woken} X (last N)", "notifications per release, of those waiting in the released"},
		{" ", "node's queue; last: how many the latest release woke"},
		{"req N (X/{perAcq})", "requests, and requests per acquisition"},
		{"✓ · ✗", "what the lock measured, beside what the chapter expects"},
		{"", "EVENTS: what the locks did, newest last · » at the bottom: the last key"},
	},

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
	StatusTyped:      "chapter %s…: type the next digit (%s)",

	Playing: "playing", ReplayHeader: "replay %s · event %d/%d · %s", TheTest: "the test: %s",
	TheTestAndSeen: "the test: %s · %s", TestFailed: "the test failed: play its events to see what its locks did",
	BrokeHere: "BROKE HERE (event %d): %s", BreaksAt: "breaks at event %d (b): %s", BrokeAt: "broke at event %d (b): %s",
	ReplayEvent: "event %d: %s", KeyStep: "step", KeyPlay: "play/pause", KeyEnds: "ends", KeyBreak: "where it broke",

	WorkerChanged: "%s %s: %s", DetailStopped: "unlocked and closed its session",
	DetailCrashed: "its node stays until the server expires the session (%v)",
	DetailCutOff:  "link cut; the server expires the session after %v",
	DetailExpired: "the server dropped its session: its ephemeral node and watches are gone",
	ServerDeleted: "server deleted %s: %s's session expired",
	Notices: map[worldmsg.NoticeKind]string{
		worldmsg.NoticeNoChapter: "no chapter %[2]s", worldmsg.NoticeStartFailed: "start %[2]s", worldmsg.NoticeAddFailed: "add a worker: %[2]s",
		worldmsg.NoticeExpireFailed: "%[1]s expire: %[2]s", worldmsg.NoticeNewSession: "%[1]s has a new session %[2]s (its conn opened it)",
		worldmsg.NoticeNewSessionFailed: "%[1]s new session: %[2]s", worldmsg.NoticeLockFailed: "%[1]s lock: %[2]s",
		worldmsg.NoticeUnlockFailed: "%[1]s unlock: %[2]s",
	},
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
	NoZnode: "（这个 znode 不存在，说明没有人排队）", Empty: "（空：没有持有者，也没有等待者）", More: "… 还有 %d 个",
	WatchedNode: "（被监听的节点）", WatchedBy: "   ← %d 个在监听：",
	AlsoHolds: "  ▶ %s 也%s它（两个持有者）",

	CutOff: "已断开", Expired: "会话过期", Crashed: "已崩溃", Stopped: "已停止",

	KeyPause: "暂停", KeySpeed: "速度", KeySelect: "选择", KeyKill: "杀掉", KeyExpire: "会话过期",
	KeyChapter: "章节", KeyQuit: "退出", KeyLegend: "图例",
	Legend: [][2]string{
		{"", "图例（再按 ? 关闭；其他按键照常可用）"},
		{"", "{queue}：ZooKeeper 列出的锁节点，按序号排列"},
		{"▶ … {holds}", "创建这个节点的客户端持有锁"},
		{"← worker-3", "worker-3 监听（watch）着这个节点，等它变化"},
		{"G · L", "09：闸门的节点（locks/）· 租约节点（leases/）"},
		{"R · W", "05：读锁的节点 · 写锁的节点"},
		{"(已崩溃)", "创建它的客户端已崩溃，节点要等到会话过期才消失"},
		{"", "{workers}：每行一个，各用一个独立的 ZooKeeper 会话"},
		{"»", "用 ↑↓ 选中的客户端，k 和 e 对它生效；没选中时对持有者生效"},
		{"{notified}", "它刚收到一个监听通知"},
		{"{acq}", "它加锁成功的次数"},
		{"请求", "它发给 ZooKeeper 的请求数（create、getChildren…）"},
		{"通知", "它收到的监听通知数"},
		{"无效", "无效唤醒：被通知后没拿到锁，又回到同一个队列里等待"},
		{" ", "（第 03 章的惊群效应；第 09 章闸门的交接不算）"},
		{"", "计数行：所有{worker}的合计"},
		{"{woken} X（最近 N）", "每次释放唤醒几个等待者（只算同一队列里的）；最近：上一次唤醒了几个"},
		{"请求 N（X/{perAcq}）", "请求数；括号里是平均每次加锁发出的请求数"},
		{"✓ · ✗", "这把锁的实测结果，旁边是本章的预期"},
		{"", "事件：各把锁的动作，最新的在最后 · 最下面的 »：上一次按键的效果"},
	},

	StatusPaused:     "已暂停：持有者继续持有，等待者继续等待",
	StatusRunning:    "运行中",
	StatusHold:       "持有 %v",
	StatusAdding:     "正在添加一个%s",
	StatusRemoving:   "正在移除一个%s（它会释放锁并关闭会话）",
	StatusNobody:     "没有%s：先用 ↑↓ 选一个%s",
	StatusGone:       "%s 已经不在了",
	StatusKilled:     "已杀掉 %s：它的节点会一直留到服务器判定它的会话过期",
	StatusExpiring:   "正在让 %s 的会话过期：连接会一直断开，直到服务器放弃这个会话",
	StatusNewSession: "%s 已换上新会话 %#x（旧会话已过期）",
	StatusNoScene:    "第 %s 章在可视化工具里没有场景",
	StatusSwitching:  "切换到第 %s 章",
	StatusTyped:      "第 %s… 章：请再输入一位数字（%s）",

	Playing: "播放中", ReplayHeader: "回放 %s · 事件 %d/%d · %s", TheTest: "测试：%s",
	TheTestAndSeen: "测试：%s · %s", TestFailed: "测试未通过：播放这个测试的事件，看看其中的锁做了什么",
	BrokeHere: "就在这里出错（事件 %d）：%s", BreaksAt: "在事件 %d 出错（b）：%s", BrokeAt: "在事件 %d 出过错（b）：%s",
	ReplayEvent: "事件 %d：%s", KeyStep: "单步", KeyPlay: "播放/暂停", KeyEnds: "首尾", KeyBreak: "出错的地方",

	WorkerChanged: "%s %s：%s", DetailStopped: "已释放锁并关闭会话",
	DetailCrashed: "它的节点会一直留着，直到服务器判定会话过期（%v）",
	DetailCutOff:  "连接已切断；%v 后服务器判定会话过期",
	DetailExpired: "服务器已丢弃它的会话，它的临时节点和监听也随之消失",
	ServerDeleted: "服务器删除了 %s（%s 的会话已过期）",
	Notices: map[worldmsg.NoticeKind]string{
		worldmsg.NoticeNoChapter: "没有第 %[2]s 章", worldmsg.NoticeStartFailed: "启动失败：%[2]s", worldmsg.NoticeAddFailed: "添加客户端失败：%[2]s",
		worldmsg.NoticeExpireFailed: "让 %[1]s 的会话过期时出错：%[2]s", worldmsg.NoticeNewSession: "%[1]s 的连接建立了新会话 %[2]s",
		worldmsg.NoticeNewSessionFailed: "%[1]s 建立新会话失败：%[2]s", worldmsg.NoticeLockFailed: "%[1]s 加锁出错：%[2]s",
		worldmsg.NoticeUnlockFailed: "%[1]s 解锁出错：%[2]s",
	},
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
