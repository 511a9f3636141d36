package runner

// Texts is every sentence of the workshop's own — the runner's and the
// check's final line (the hints have theirs, in hints.json) — as format
// strings: english and chinese are its two rows, and the language picks a
// row (Words), never an if at the call site.
type Texts struct {
	Title, Watch, On, Off, ChaptersPass, YourFile, Hint, Help string
	// The list folded to the selected chapter when the page is taller
	// than the terminal.
	MoreChapters string
	// The list's states.
	Running, LastRun, Untouched, NotChecked, Changed, ChangedEnter, Passing,
	LessonPasses, FullNotRun, ToWrite, NoBuild, Failing string
	Tiers [5]string // course.Tier's: lesson, full suite, custom, recording, rule
	// The step the learner is on: its goal and what must hold afterwards
	// (hints.json's steps).
	Goal, Holds string
	// The diff.
	DiffFooter string
	// The news under the list, and its tips.
	SavedDuring, Saved, ChangedDuring, ChangedWhile, EnterChecks,
	LessonPass, Pass, OnTo, Named, HintTip, StillToWrite, Other, Replays,
	NoRecording, ReplayingOther, OtherTip, LessonFirst, Full, WatchOn, WatchOff,
	ResetAgain, ResetDone, ResetKept, ResetFailed, DiffFailed, Ended, NoReplay,
	Recording, NoHint, HintsHidden, HintsAgain string
	// d asks before it shows the reference; o shows the last check's output.
	DiffAgain, NoOutput, OutputFooter, OutputTip, MessageCut string
	// A check whose chapter is still being compiled.
	Compiling string
	// The runner's shared ZooKeeper is gone (runner.ZKLost).
	ZKLost string
	Done   string // the screen when every chapter passes
	Usage  string // workshop --help
	// The check's final line (scripts/exercise NN), its times, and --hint's
	// pointer to the next hint. MistakeTip and FailingTip follow a check of
	// the learner's own files only: --hint and VISUAL=1 read those.
	VerdictPass, VerdictPassCustom, VerdictTodo, VerdictNoBuild, VerdictMistake, VerdictFailing, VerdictNone,
	MistakeTip, FailingTip, TimeLesson, TimeFull, Times, TimesSep, HintNext, HintLast string
	// What a failing test checks (tests.json) and what it said, under the
	// verdict; the check's headers (scripts/exercise NN's "== … ==" lines).
	Checks, Says, HeadYours, HeadReference, HeadCopy, HeadCustom, HeadLesson, HeadRule, HeadFull string
	// HintCut stands for the end of a hint too long for the terminal.
	HintCut string
	// --hint's own lines (scripts/exercise NN --hint).
	HintNoRun, HintChanged, HintPasses, HintStep, HintNoStep, HintNoMatch, HintGone string
	// The class (-class): the header's word on it, a report that failed,
	// the question for a name, and the check's line on where it runs.
	ClassOnline, ClassAgain, ClassLost, ClassRetry, ClassNotSent, ClassAskName, ClassNoName, ClassHead string
	// The arena (A, in a class once 04 passes): the offer, the worker's
	// state in the header, and the news of it.
	ArenaOffer, ArenaQueued, ArenaPlaying, ArenaLocked, ArenaEntering, ArenaLeaving, ArenaLeft, ArenaEnded, ArenaCaught string
}

var english = Texts{
	Title: "lockstep workshop", Watch: "watch", On: "on", Off: "off", ChaptersPass: "%d/%d chapters pass",
	YourFile: "your file: ", Hint: "hint %d/%d: %s", MoreChapters: "(%d more chapters: ↑↓)",
	HintCut: "… %d more lines: scripts/exercise %s --hint %d prints it whole",
	Help:    "⏎ check  f full  h hint  o output  n next  l 中文/en  w watch  R reset  d diff  v visual  p replay  q quit",

	Running: "running the %s", LastRun: "(last run %s)", Untouched: "untouched", NotChecked: "not checked yet",
	Changed: "changed since its last check", ChangedEnter: " (enter)", Passing: "passing",
	LessonPasses: "lesson passes", FullNotRun: " · full suite not run (f)", ToWrite: "to write: %s",
	NoBuild: "does not compile", Failing: "failing: %s",
	Tiers: [5]string{"lesson", "full suite", "custom", "recording", "the rule's table tests"},
	Goal:  "goal: %s", Holds: "what must hold afterwards: %s",

	DiffFooter: "the reference against your file · lines %d-%d of %d · ↑↓ pgup pgdn · esc back",

	SavedDuring:    "%s saved during its check: that check is stopped; checking this version",
	Saved:          "%s saved: checking it again",
	ChangedDuring:  "%s changed during its check: that verdict will not count",
	ChangedWhile:   "%s changed while it was checked: no verdict",
	EnterChecks:    "enter checks this version",
	LessonPass:     "%s: the lesson's tests pass in %s; the full suite runs now",
	Pass:           "%s passes every test of the chapter (%s)",
	OnTo:           "n: on to %s",
	Named:          "%s: the check named a mistake (%s)",
	HintTip:        "h a hint",
	StillToWrite:   "%s: %s still to write",
	Other:          "%s: %s",
	Replays:        "p replays it",
	NoRecording:    "%s: no lesson test recorded your lock's events",
	ReplayingOther: "replaying %s",
	OtherTip:       "the test the check named records no events",
	LessonFirst:    "%s: the lesson's tests first",
	Full:           "%s: the full suite",
	WatchOn:        "watching: a save re-runs the check",
	WatchOff:       "not watching: enter runs the check",
	ResetAgain:     "R again to reset %s to the skeleton (your file is kept as a backup)",
	ResetDone:      "%s is the skeleton again",
	ResetKept:      "yours is kept in %s",
	ResetFailed:    "reset failed: %s",
	DiffFailed:     "diff: %s",
	Ended:          "ended: %s",
	NoReplay:       "no replay: a failing test leaves one",
	Recording:      "%s: recording %s on your lock…",
	NoHint:         "no hint for this: hints come with a function to write, a named mistake or a failing lesson test",
	HintsHidden:    "hints hidden",
	HintsAgain:     "h starts again at hint 1",
	DiffAgain:      "d again shows the reference solution, a diff against your file: the answer, in full",
	NoOutput:       "%s: no check yet since the runner started",
	OutputFooter:   "the last check's whole output · lines %d-%d of %d · ↑↓ pgup pgdn · esc back",
	OutputTip:      "o the whole output",
	MessageCut:     "… %d more lines: o shows the whole output",
	Compiling:      "compiling (the first time takes longest)",
	ZKLost:         "the workshop's own ZooKeeper is not available (%v): from now on each check starts one of its own, a few seconds longer",

	VerdictPass:       "exercise %s: PASS — your lock passes every test of the chapter%s",
	VerdictTodo:       "exercise %s: %s still to write → TODO(workshop): %s",
	VerdictPassCustom: "exercise %s: the tests your flags chose pass; the chapter's check: scripts/exercise %s",
	VerdictNoBuild:    "exercise %s: FAIL — it does not compile: %s",
	VerdictMistake:    "exercise %s: FAIL — %s (%s)%s",
	MistakeTip:        " · a hint: scripts/exercise %s --hint",
	VerdictFailing:    "exercise %s: FAIL — %s%s",
	FailingTip:        " · see it happen: make exercise CH=%s VISUAL=1",
	Checks:            "  what it checks: %s",
	Says:              "  it says: %s",
	HeadYours:         "your %s",
	HeadReference:     "the reference",
	HeadCopy:          "%s's copy of %s",
	HeadCustom:        "== %s: go test %s, with %s",
	HeadLesson:        "== %s: the lesson's tests (-run '%s'), with %s",
	HeadRule:          "== %s: the rule's table tests (-run '%s'), then the lesson's (-run '%s'), with %s",
	HeadFull:          "== %s: the lesson's tests pass (%s); now the full suite",
	VerdictNone:       "exercise %s: NO VERDICT — %s changed while it was checked: run it again",
	Times:             " (%s)",
	TimesSep:          ", ",
	TimeLesson:        "lesson %s",
	TimeFull:          "full suite %s",
	HintNext:          "(the next one: scripts/exercise %s --hint; the first again: scripts/exercise %s --hint 1)",
	HintLast:          "(the last one; the first again: scripts/exercise %s --hint 1)",
	HintNoRun:         "exercise %s: no run yet: scripts/exercise %s first",
	HintChanged:       "exercise %s: %s changed since its last check: scripts/exercise %s first",
	HintPasses:        "exercise %s: it passes (%s): no hint needed",
	HintStep:          "%s still to write: %s",
	HintNoStep:        "exercise %s: %s is still to write: %s\nThe comment above it in the exercise file says what it must achieve.",
	HintNoMatch:       "exercise %s: the last check (%s) matched no known mistake: read its first failure",
	HintGone:          "exercise %s: no hints for %q any more: run the check again",

	ClassOnline:  "class: %s",
	ClassAgain:   "class: %s (joined again)",
	ClassLost:    "class: session lost, joining again…",
	ClassRetry:   "class: cannot join again (%v); trying again",
	ClassNotSent: "class: your progress did not reach the class: %v",
	ClassAskName: "Your name in the class (letters, digits, - _ .; the host's screen shows it): ",
	ClassNoName:  "workshop: joining a class needs your name: -name NAME (or LOCKSTEP_NAME=NAME); it is kept for next time",
	ClassHead:    "== class: %s, as %s; the tests run in %s on the class's ZooKeeper (no server on this laptop; examples skipped: they write outside your subtree)",

	ArenaOffer:    "A: enter the arena",
	ArenaQueued:   "arena: queued, waiting for the class lock",
	ArenaPlaying:  "arena: %d rounds · count %d · caught %d",
	ArenaLocked:   "the class arena opens when your %s passes",
	ArenaEntering: "building your 04 as the check does, then entering the class arena (A again leaves it)",
	ArenaLeaving:  "leaving the arena…",
	ArenaLeft:     "you left the arena: your lock node went with its session",
	ArenaEnded:    "your worker left the arena: %v",
	ArenaCaught:   "the arena caught your lock: %s",

	Usage: `workshop: the lockstep workshop's runner and its check.

  go run ./workshop                    the runner (make workshop): the chapters, a check on every save, hints
  go run ./workshop -check 04          chapter 04's check without the runner (scripts/exercise 04)
  go run ./workshop -check 04 -from DIR     the same with DIR's files instead of yours
  go run ./workshop -check 04 -solution     the same against the reference
  go run ./workshop -check 04 -- -run TestQueue -v    your own go test flags
  go run ./workshop -hint 04           the next hint for 04's last failure (scripts/exercise 04 --hint)
  go run ./workshop -hint 04 -stage 1  its first hint again
  go run ./workshop -mistakes-table    the facilitator's table of mistakes (docs/workshop.md)
  go run ./workshop -mistakes-table -lang zh   the same in Chinese (docs/workshop.zh-CN.md)
  go run ./workshop -class 'zk://…'    the runner in a class: the checks run on the class's ZooKeeper, the host sees your progress

  -lang en|zh    the language (default: $LOCKSTEP_LANG, else the one chosen with l in the runner, else $LC_ALL or $LANG)
  -class LINE    the join line the host's screen shows (default: $LOCKSTEP_CLASS); -check joins it too
  -name NAME     your name in the class (default: $LOCKSTEP_NAME, else the one kept from last time, else asked)
`,

	Done: "Every chapter passes.\n\nYou wrote a ZooKeeper lock from the naive retry loop to the semaphore:\nthe queue, the rules, the re-entry, the election. Run the visualizer on\nyour own locks (v on a chapter) and compare with the READMEs' numbers.\n\nesc back to the list · q quit",
}

var chinese = Texts{
	Title: "lockstep 工作坊", Watch: "保存即检查", On: "开", Off: "关", ChaptersPass: "已通过 %d/%d 章",
	YourFile: "你的文件：", Hint: "提示 %d/%d：%s", MoreChapters: "（另有 %d 章：↑↓）",
	HintCut: "……还有 %d 行，运行 scripts/exercise %s --hint %d 查看全文",
	Help:    "⏎ 检查  f 完整测试  h 提示  o 输出  n 下一章  l 中文/en  w 保存即检查  R 重置  d 对比  v 可视化  p 回放  q 退出",

	Running: "正在运行%s", LastRun: "（上次 %s）", Untouched: "未改动", NotChecked: "尚未检查",
	Changed: "上次检查后文件已改动", ChangedEnter: "（按 enter）", Passing: "通过",
	LessonPasses: "本课测试通过", FullNotRun: " · 完整测试未运行（f）", ToWrite: "待完成：%s",
	NoBuild: "无法编译", Failing: "未通过：%s",
	Tiers: [5]string{"本课测试", "完整测试", "自定义测试", "测试并录制事件", "规则的表驱动测试"},
	Goal:  "目标：%s", Holds: "要保证：%s",

	DiffFooter: "参考实现与你的文件对比 · 第 %d-%d 行，共 %d 行 · ↑↓ pgup pgdn · esc 返回",

	SavedDuring:    "检查 %s 时你又保存了文件，已停止那次检查，改为检查新版本",
	Saved:          "%s 已保存，正在重新检查",
	ChangedDuring:  "检查 %s 期间文件有改动，本次结果不算数",
	ChangedWhile:   "检查 %s 期间文件有改动，本次结果不算数",
	EnterChecks:    "按 enter 检查当前版本",
	LessonPass:     "%s：本课测试通过，用时 %s；正在运行完整测试",
	Pass:           "%s 通过了本章全部测试（%s）",
	OnTo:           "n：进入 %s",
	Named:          "%s：检查发现了一个常见错误（%s）",
	HintTip:        "h 查看提示",
	StillToWrite:   "%s：%s 还没写",
	Other:          "%s：%s",
	Replays:        "p 回放",
	NoRecording:    "%s：本课测试没有录下你这把锁的任何事件",
	ReplayingOther: "正在回放 %s",
	OtherTip:       "出错的那个测试不录制事件，没有可回放的内容",
	LessonFirst:    "%s：先运行本课测试",
	Full:           "%s：完整测试",
	WatchOn:        "保存即检查：已开启，文件一保存就重新检查",
	WatchOff:       "保存即检查：已关闭，按 enter 运行检查",
	ResetAgain:     "再按一次 R，把 %s 重置为骨架代码（你的文件会保留一份备份）",
	ResetDone:      "%s 已恢复为骨架代码",
	ResetKept:      "你的版本保存在 %s",
	ResetFailed:    "重置失败：%s",
	DiffFailed:     "对比失败：%s",
	Ended:          "已结束：%s",
	NoReplay:       "没有可回放的记录：只有失败的测试才会录下事件",
	Recording:      "%s：正在用你的锁录制 %s……",
	NoHint:         "当前没有提示：提示只针对待写的函数、检查指出的错误和未通过的本课测试",
	HintsHidden:    "提示已隐藏",
	HintsAgain:     "再按 h 从第一条提示重新开始",
	DiffAgain:      "再按一次 d 会显示参考实现与你的文件的对比，也就是完整答案",
	NoOutput:       "%s：本次启动后还没有检查过",
	OutputFooter:   "上次检查的完整输出 · 第 %d-%d 行，共 %d 行 · ↑↓ pgup pgdn · esc 返回",
	OutputTip:      "o 查看完整输出",
	MessageCut:     "……还有 %d 行，按 o 查看完整输出",
	Compiling:      "正在编译（第一次最慢）",
	ZKLost:         "工作坊自带的 ZooKeeper 不可用了（%v），此后每次检查都要单独启动一个服务器，多花几秒",

	VerdictPass:       "练习 %s：通过 —— 你的锁跑通了本章全部测试%s",
	VerdictTodo:       "练习 %s：%s 还没写 → %s",
	VerdictPassCustom: "练习 %s：你指定的测试已通过；要检查整章，运行 scripts/exercise %s",
	VerdictNoBuild:    "练习 %s：未通过 —— 无法编译：%s",
	VerdictMistake:    "练习 %s：未通过 —— %s（%s）%s",
	MistakeTip:        " · 提示：scripts/exercise %s --hint",
	VerdictFailing:    "练习 %s：未通过 —— %s%s",
	FailingTip:        " · 亲眼看看：make exercise CH=%s VISUAL=1",
	Checks:            "  这个测试检查：%s",
	Says:              "  报错信息：%s",
	HeadYours:         "你的 %s",
	HeadReference:     "参考实现",
	HeadCopy:          "%s 里的 %s 副本",
	HeadCustom:        "== %s：go test %s，检查%s",
	HeadLesson:        "== %s：本课测试（-run '%s'），检查%s",
	HeadRule:          "== %s：先运行规则的表驱动测试（-run '%s'），再运行本课测试（-run '%s'），检查%s",
	HeadFull:          "== %s：本课测试通过（%s），开始运行完整测试",
	VerdictNone:       "练习 %s：本次检查作废，检查期间 %s 被改动过，请重新运行",
	Times:             "（%s）",
	TimesSep:          "，",
	TimeLesson:        "本课测试 %s",
	TimeFull:          "完整测试 %s",
	HintNext:          "（下一条：scripts/exercise %s --hint；从第一条重新开始：scripts/exercise %s --hint 1）",
	HintLast:          "（这是最后一条；从第一条重新开始：scripts/exercise %s --hint 1）",
	HintNoRun:         "练习 %s：还没有检查过，请先运行 scripts/exercise %s",
	HintChanged:       "练习 %s：%s 在上次检查后改过，请先运行 scripts/exercise %s",
	HintPasses:        "练习 %s 已经通过（%s），不需要提示",
	HintStep:          "%s 还没写：%s",
	HintNoStep:        "练习 %s：%s 还没写：%s\n练习文件里，这个函数上方的注释写明了它要实现什么。",
	HintNoMatch:       "练习 %s：上次检查（%s）没有对上任何已知错误，请先看第一个失败测试的报错",
	HintGone:          "练习 %s：%q 已经没有对应的提示了，请重新运行检查",

	ClassOnline:  "课堂：%s",
	ClassAgain:   "课堂：%s（已重新加入）",
	ClassLost:    "课堂：会话丢失，正在重新加入……",
	ClassRetry:   "课堂：暂时无法重新加入（%v），稍后自动重试",
	ClassNotSent: "课堂：进度上报失败（%v）",
	ClassAskName: "你在课堂上的名字（字母、数字、- _ .；讲师的屏幕上会显示它）：",
	ClassNoName:  "workshop：加入课堂要先提供名字，用 -name 名字（或 LOCKSTEP_NAME=名字）；名字会保存下来，下次不用再输入",
	ClassHead:    "== 课堂：%s，名字 %s。测试在课堂 ZooKeeper 的 %s 目录下运行，本机不启动服务器；示例会写入你子树以外的节点，所以跳过",

	ArenaOffer:    "A：进竞技场",
	ArenaQueued:   "竞技场：已排队，等着拿全班共用的锁",
	ArenaPlaying:  "竞技场：%d 轮 · 计数器 %d · 写入被拒 %d 次",
	ArenaLocked:   "通过第 %s 章之后，才能进入全班的竞技场",
	ArenaEntering: "正在按检查时的方式编译你的第 04 章代码，随后进入全班的竞技场；再按 A 可退出",
	ArenaLeaving:  "正在退出竞技场……",
	ArenaLeft:     "你已退出竞技场，锁节点已随会话一起删除",
	ArenaEnded:    "你在竞技场里的进程已退出：%v",
	ArenaCaught:   "竞技场发现你的锁出了错：%s",

	Usage: `workshop：运行 lockstep 工作坊的 runner，并检查各章练习。

  go run ./workshop                    启动 runner（make workshop）：列出章节，每次保存都重新检查，并给出提示
  go run ./workshop -check 04          不开 runner，检查第 04 章（scripts/exercise 04）
  go run ./workshop -check 04 -from DIR     同上，但用 DIR 里的文件代替你的文件
  go run ./workshop -check 04 -solution     同上，但检查参考实现
  go run ./workshop -check 04 -- -run TestQueue -v    加上你自己的 go test 参数
  go run ./workshop -hint 04           根据第 04 章上一次检查失败的情况，显示下一条提示（scripts/exercise 04 --hint）
  go run ./workshop -hint 04 -stage 1  重新显示第一条提示
  go run ./workshop -mistakes-table    打印讲师用的常见错误表（docs/workshop.md）
  go run ./workshop -mistakes-table -lang zh   同上，输出中文版（docs/workshop.zh-CN.md）
  go run ./workshop -class 'zk://…'    以课堂模式启动 runner：检查在课堂的 ZooKeeper 上运行，讲师能看到你的进度

  -lang en|zh    语言（先看 $LOCKSTEP_LANG；没有设置时，采用在 runner 里按 l 选定的语言；两者都没有，再看 $LC_ALL 或 $LANG）
  -class LINE    讲师屏幕上显示的加入口令（默认取 $LOCKSTEP_CLASS）；-check 也会加入课堂
  -name NAME     你在课堂上的名字（默认取 $LOCKSTEP_NAME；未设置则用上次保存的名字；都没有就询问）
`,

	Done: "所有章节都通过了。\n\n你亲手写出了 ZooKeeper 锁：从简单的重试循环到信号量，\n包括排队、读写规则、重入和选主。可以在列表里按 v 用可视化工具\n观察你自己的锁，并和各章 README 里的数字比较。\n\nesc 返回列表 · q 退出",
}

// Words is the workshop's text in lang ("zh" or "en").
func Words(lang string) *Texts {
	if lang == "zh" {
		return &chinese
	}
	return &english
}

// say is the runner's text in m's language.
func (m Model) say() *Texts { return Words(m.lang) }
