//go:build workshop

// Workshop exercise for chapter 06 (make exercise CH=06). This file takes
// the place of 06-reentrant/reentrant/count.go; the rest of the package
// (the Mutex with its turn and lostReason, the read/write lock, the
// options) and chapter 04's lock underneath are the reference's. Write the
// two TODO(workshop) steps, then run the chapter's own tests against them.
//
// 第 06 章的练习（make exercise CH=06）。本文件顶替
// 06-reentrant/reentrant/count.go，包里其余的代码（Mutex 及其 turn 和
// lostReason、读写锁、选项）和底下第 04 章的锁都沿用参考实现。补全两处
// TODO(workshop)，然后跑本章的测试验证。
package reentrant

import (
	"context"
)

// The lesson of chapter 06: a hold count on top of chapter 04's lock.
//
// Written for you: Lock, TryLock and Unlock (reentrant.go) take this
// Mutex's turn, so one call at a time runs the two functions below; and
// m.depth (an atomic.Int64: Load, Store), m.session (the session that took
// the lock), m.lostReason() ("" while the hold looks real), m.info(detail),
// m.lock (chapter 04's lock underneath), ErrNotHeld and ErrLost.
//
// 第 06 章讲的是：在第 04 章的锁上加一个持有计数。已经替你写好的有：Lock、
// TryLock 和 Unlock（reentrant.go）都要先轮到这个 Mutex 的 turn 才运行，所
// 以下面两个函数同一时刻只会有一个在执行；此外还有 m.depth（atomic.Int64：
// Load、Store）、m.session（加锁时所用的会话）、m.lostReason()（持有看上去
// 仍然有效时返回 ""）、m.info(detail)、m.lock（底下第 04 章的锁）、
// ErrNotHeld 和 ErrLost。
//
// The timeline (the demos, the visualizer and the tests) reads what the
// two functions tell with m.info, in exactly these words, N being the
// depth before the call: see each function.
//
// 时间线（演示、可视化工具和测试）读的是这两个函数通过 m.info 输出的文字，
// 必须一字不差（N 指调用前的深度），措辞见各函数的注释。

// acquire is Lock and TryLock, run in this Mutex's turn: take is the lock
// underneath's Lock or TryLock. What must hold: the first acquisition
// takes the lock in ZooKeeper (and remembers the session it took it in);
// every further one only counts — no request, no blocking — and says so
// once: m.info(fmt.Sprintf("re-entered, depth %d", N+1)). But never on a
// hold that is no longer real: then it refuses with an error wrapping
// ErrLost, leaves the depth as it is, and says
// m.info(fmt.Sprintf("re-entry refused at depth %d: %s", N, reason)).
//
// acquire 实现 Lock 和 TryLock，在这个 Mutex 的 turn 里运行：take 是底下那
// 把锁的 Lock 或 TryLock。要保证：第一次加锁时在 ZooKeeper 里真正拿到锁（并
// 记下加锁时所用的会话）；之后每次重入都只计数——不发请求，也不阻塞——并输出
// 一次 m.info(fmt.Sprintf("re-entered, depth %d", N+1))。但持有一旦失效，就
// 绝不能再重入：这时拒绝加锁，返回一个包装了 ErrLost 的错误，深度保持不变，
// 并输出
// m.info(fmt.Sprintf("re-entry refused at depth %d: %s", N, reason))。
func (m *Mutex) acquire(ctx context.Context, take func(context.Context) error) error {
	panic("TODO(workshop): acquire — the first Lock takes the lock, a further one only counts, unless the hold is gone (steps 1-3 of 06-reentrant/README.md / README.zh-CN.md 第 1-3 步)")
}

// release is Unlock, run in this Mutex's turn: one level down. What must
// hold: N Locks need N Unlocks before anyone else gets in; only the last
// one deletes our node (m.lock's Unlock); Unlock with nothing held is
// ErrNotHeld; an inner level (N > 1) says
// m.info(fmt.Sprintf("left depth %d, still held at depth %d", N, N-1)),
// or, if the hold was lost, reports it with an error wrapping ErrLost and
// says m.info(fmt.Sprintf("left depth %d of a lost lock", N)) — the count
// goes down by one either way.
//
// release 实现 Unlock，在这个 Mutex 的 turn 里运行：退出一层。要保证：Lock
// 了 N 次，就要 Unlock N 次，别人才能拿到锁；只有最后一次才删除我们的节点（调
// 用 m.lock 的 Unlock）；一层都没持有时 Unlock 返回 ErrNotHeld；
// 退出内层（N > 1）时输出
// m.info(fmt.Sprintf("left depth %d, still held at depth %d", N, N-1))；
// 如果锁已经丢失，就返回一个包装了 ErrLost 的错误来报告，并输出
// m.info(fmt.Sprintf("left depth %d of a lost lock", N))。无论哪种情况，计
// 数都减一。
func (m *Mutex) release(ctx context.Context) error {
	panic("TODO(workshop): release — one level down; only the last level lets go of the lock (steps 4-6 of 06-reentrant/README.md / README.zh-CN.md 第 4-6 步)")
}
