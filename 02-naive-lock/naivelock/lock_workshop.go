//go:build workshop

// Workshop exercise for chapter 02 (make exercise CH=02). This file takes
// the place of 02-naive-lock/naivelock/lock.go; the rest of the package
// (the Lock, New, TryLock's guards, Unlock's bookkeeping, create and the
// other helpers in naivelock.go) is the reference's. Read the README's
// four steps, write the three TODO(workshop) parts, and run the chapter's
// own tests against them.
//
// 第 02 章的练习（make exercise CH=02）。本文件顶替
// 02-naive-lock/naivelock/lock.go，包里其余的代码（Lock 类型、New、TryLock
// 开头的检查、Unlock 的收尾，以及 naivelock.go 里 create 等辅助函数）都沿用
// 参考实现。先读 README.zh-CN.md 里的四个步骤，再补全下面三处
// TODO(workshop)，然后跑本章的测试验证。
package naivelock

import "context"

// Lock blocks until this Lock holds the lock or ctx ends: step 3, the
// "While version". What must hold: a taken lock (TryLock says ErrLocked)
// is tried again every l.retry until it is free; any other answer (we hold
// it, or a real error) ends Lock at once, without a second create; a
// cancelled ctx ends it at once too, not one retry later; and the waiter
// says once per Lock that it waits, by calling l.waiting() the first time
// it finds the lock taken (the tests count it).
//
// Lock 会一直阻塞，直到这个 Lock 拿到锁或 ctx 结束。这是第 3 步，也就是文章
// 里的“While 版”。要保证：锁被占用（TryLock 返回 ErrLocked）时，每隔
// l.retry 重试一次，直到锁空出来；遇到其他任何结果（已经拿到锁，或者出了真
// 正的错误），Lock 都立刻返回，不再发第二次 create；ctx 一取消也立刻返回，
// 不必再等一个重试间隔。另外，每次调用 Lock，只在第一次发现锁被占用时调用一
// 次 l.waiting()，报告自己在等（测试会数调用次数）。
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): Lock — try, and while the lock is taken wait and try again; stop at once on anything else or when ctx ends (step 3 of 02-naive-lock/README.md / README.zh-CN.md 第 3 步)")
}

// attempt is steps 1 and 2 (TryLock calls it once it has checked that this
// Lock holds nothing and ctx is alive). What must hold afterwards: if the
// lock node now exists because of us, we hold the lock, we know the token
// it carries (l.token; Unlock needs it) and we said so (l.acquired());
// if it already existed, somebody else holds it: ErrLocked; any other
// failure is returned wrapped with %w and says what we were doing, in
// these words: "naivelock: create lock node <path>: <the server's error>"
// (ctx's error is returned as it is). The helpers (newToken, l.create) are
// in naivelock.go.
//
// attempt 对应第 1、2 步（TryLock 先确认这个 Lock 没有持锁、ctx 也没结束，
// 再调用它）。做完之后要保证：锁节点如果是我们创建的，我们就持有了锁，要记
// 下节点里的令牌（l.token，Unlock 会用到），并调用 l.acquired() 报告加锁成
// 功；节点如果原来就在，说明锁在别人手里，返回 ErrLocked；其他失败用 %w 包
// 装后返回，并交代当时在做什么，措辞必须是
// "naivelock: create lock node <path>: <服务器的错误>"（ctx 的错误原样返回）。
// 辅助函数（newToken、l.create）在 naivelock.go 里。
func (l *Lock) attempt(ctx context.Context) error {
	panic("TODO(workshop): attempt — create the lock node carrying a fresh token; created: we hold it; already there: ErrLocked (steps 1-2 of 02-naive-lock/README.md / README.zh-CN.md 第 1-2 步)")
}

// deleteIfOurs is step 4 (Unlock calls it with the token it held). What
// must hold: read the node (l.get) and delete it (l.delete) only if it is
// still ours — it carries our token — and otherwise leave it alone and
// return ErrNotHeld: after our session expired, the node at the path may
// be somebody else's lock. A node that is gone is ErrNotHeld too. Other
// errors are wrapped with %w. (What the version you read can and cannot
// tell, and the window between the read and the delete that no code here
// can close: README.md step 4 and "The flaw, measured".)
//
// deleteIfOurs 对应第 4 步（Unlock 调用它，传入当初加锁时的令牌）。要保证：
// 先读节点（l.get），只有节点还是我们的——数据是我们的令牌——才删除它
// （l.delete）；不是我们的就别动它，返回 ErrNotHeld，因为会话过期之后，这个
// 路径上的节点可能已经是别人的锁了。节点已经不在，也返回 ErrNotHeld。其他错
// 误用 %w 包装。（读到的版本号能说明什么、不能说明什么，以及读和删之间那段
// 这里的代码怎么写都堵不上的空档，见 README.zh-CN.md 第 4 步和“缺陷实测”。）
func (l *Lock) deleteIfOurs(token string) error {
	panic("TODO(workshop): deleteIfOurs — delete the lock node only if it is still ours, else ErrNotHeld (step 4 of 02-naive-lock/README.md / README.zh-CN.md 第 4 步)")
}
