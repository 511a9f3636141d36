//go:build workshop

// Workshop exercise for chapter 09 (make exercise CH=09). This file takes
// the place of 09-semaphore/semaphore/acquire.go; the rest of the package
// (the Semaphore, its Lease, revocation) and chapter 04's queue core are
// the reference's. Write the two TODO(workshop) parts, then run the
// chapter's own tests against them.
//
// 第 09 章的练习（make exercise CH=09）。本文件顶替
// 09-semaphore/semaphore/acquire.go，包里其余的代码（Semaphore、Lease、撤销）
// 和第 04 章的队列核心都沿用参考实现。补全两处 TODO(workshop)，然后跑本章的
// 测试验证。
package semaphore

import (
	"context"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
)

// Leases is the rule of the lease queue: given the queue (lowest sequence
// first) and our index in it, do we hold a lease, and if not, which node's
// name do we watch? At most n hold at once, the first to have asked; and a
// waiter must wake when a lease it can take is freed, not before.
//
// Leases 是租约队列的规则：给定队列（序号小的在前）和我们的下标，判断我们是
// 否持有一个租约；没有的话，我们监听哪一个节点（返回它的名字）？要保证：同
// 一时刻最多 n 个持有者，也就是最先申请的那 n 个；等待者要等到它能拿到的租
// 约被释放才醒来，不能提前被唤醒。
func Leases(n int) seqlock.Rule {
	return func(queue []seqlock.Node, ours int) (bool, string) {
		panic("TODO(workshop): Leases — who holds one of the n leases, and which one node each waiter watches (step 3 of 09-semaphore/README.md / README.zh-CN.md 第 3 步)")
	}
}

// Acquire blocks until this client holds one of the n leases, or ctx ends
// (then it leaves nothing behind).
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, true) }

// TryAcquire takes a lease if one is free now, else returns ErrLocked.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, false) }

// acquire is the recipe of the package comment. What each step must
// achieve:
//
//  1. Be the only client counting and taking leases: hold the gate (a
//     chapter 04 mutex on s.gateDir(); TryLock's when wait is false), and
//     let it go however acquire returns, with defer s.leaveGate(ctx, gate,
//     &l, &err): if the gate was lost meanwhile, it gives back the lease
//     and says so.
//  2. Under the gate, wait until fewer than s.n leases are out — woken
//     when a lease goes, not by clients joining the gate; with wait false,
//     ErrLocked instead of waiting.
//  3. Take a lease in the lease queue and return it as a *Lease (watching
//     for revocation if the Semaphore is revocable).
//
// What must hold: never more than n leases out; a cancelled ctx leaves
// nothing behind and returns no Lease. The tests and the visualizer follow
// step 2 through two events that are yours to report, and the tests wait
// for them: each time the gate holder finds n leases out and waits,
// s.emit(event.Waiting, "", s.leaseDir(), "<out> of <n> leases out"); each
// time its watch fires, s.emit(event.Notified, "", s.leaseDir(),
// ev.Type.String()). The tools are in semaphore.go and lease.go; which
// ones, and why, are the hints' business (scripts/exercise 09 --hint).
//
// acquire 实现包注释里描述的步骤。每一步要做到：
//
//  1. 保证只有自己这一个客户端在清点、领取租约：先持有闸门（s.gateDir() 上
//     的一把第 04 章互斥锁；wait 为 false 时用 TryLock），不论 acquire 以哪
//     种方式返回，都要释放它：defer s.leaveGate(ctx, gate, &l, &err)。闸门
//     如果在这期间丢了，它会把刚领到的租约还回去，并返回闸门的错误。
//  2. 持有闸门期间，等到发放出去的租约少于 s.n 个。唤醒它的应当是有租约被释放，
//     而不是又有客户端来闸门前排队；wait 为 false 时不等待，直接返回
//     ErrLocked。
//  3. 在租约队列里领取一个租约，包装成 *Lease 返回（Semaphore 可撤销时，还
//     要监听撤销请求）。
//
// 要保证：发放出去的租约永远不超过 n 个；ctx 取消后不留下任何节点，也不返回
// Lease。测试和可视化工具通过两个事件跟踪第 2 步，这两个事件要由你报告，测
// 试也会等它们：闸门的持有者每次发现 n 个租约都已发放、开始等待时，调用
// s.emit(event.Waiting, "", s.leaseDir(), "<out> of <n> leases out")；每次
// 监听触发时，调用 s.emit(event.Notified, "", s.leaseDir(),
// ev.Type.String())。工具函数在 semaphore.go 和 lease.go 里；具体用哪些、为
// 什么，留给提示去讲（scripts/exercise 09 --hint）。
func (s *Semaphore) acquire(ctx context.Context, wait bool) (l *Lease, err error) {
	_ = event.Waiting // the events of step 2: see above
	panic("TODO(workshop): acquire — the gate, the wait for a free lease, the lease (steps 1-3 of 09-semaphore/README.md / README.zh-CN.md 第 1-3 步)")
}
