//go:build workshop

// Workshop exercise for chapter 06 (make exercise CH=06). This file takes
// the place of 06-reentrant/reentrant/count.go; the rest of the package
// (the Mutex with its turn and lostReason, the read/write lock, the
// options) and chapter 04's lock underneath are the reference's. Write the
// two TODO(workshop) steps, then run the chapter's own tests against them.
//
// 第 06 章的练习（make exercise CH=06）。这个文件代替
// 06-reentrant/reentrant/count.go；包里的其余部分（Mutex 以及它的 turn 和
// lostReason、读写锁、选项）和底下第 04 章的锁都用参考实现。写完两处
// TODO(workshop)，再用本章自己的测试检查。
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
// 第 06 章的内容：在第 04 章的锁上加一个持有计数。已经替你写好的：
// Lock、TryLock 和 Unlock（reentrant.go）都在这个 Mutex 的 turn 里运行，
// 所以下面两个函数同一时间只有一个在跑；还有 m.depth（atomic.Int64：
// Load、Store）、m.session（拿到锁的那个会话）、m.lostReason()（持有看起来
// 还真实时返回 ""）、m.info(detail)、m.lock（底下第 04 章的锁）、ErrNotHeld
// 和 ErrLost。
//
// The timeline (the demos, the visualizer and the tests) reads what the
// two functions tell with m.info, in exactly these words, N being the
// depth before the call: see each function.
//
// 时间线（演示、可视化工具和测试）读的是这两个函数用 m.info 说的话，措辞
// 必须一字不差，N 是调用之前的深度：见每个函数的说明。

// acquire is Lock and TryLock, run in this Mutex's turn: take is the lock
// underneath's Lock or TryLock. What must hold: the first acquisition
// takes the lock in ZooKeeper (and remembers the session it took it in);
// every further one only counts — no request, no blocking — and says so
// once: m.info(fmt.Sprintf("re-entered, depth %d", N+1)). But never on a
// hold that is no longer real: then it refuses with an error wrapping
// ErrLost, leaves the depth as it is, and says
// m.info(fmt.Sprintf("re-entry refused at depth %d: %s", N, reason)).
//
// acquire 就是 Lock 和 TryLock，在这个 Mutex 的 turn 里运行：take 是底下
// 那把锁的 Lock 或 TryLock。必须成立的是：第一次加锁在 ZooKeeper 里真正
// 拿到锁（并记下拿到锁的那个会话）；之后每次重入只计数——不发请求、不
// 阻塞——并且说一次：m.info(fmt.Sprintf("re-entered, depth %d", N+1))。
// 但持有已经不再真实时绝不重入：这时拒绝，返回包装了 ErrLost 的错误，深度
// 保持不变，并且说
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
// release 就是 Unlock，在这个 Mutex 的 turn 里运行：退一层。必须成立的是：
// N 次 Lock 要配 N 次 Unlock，别人才能进来；只有最后一次才删除我们的节点
// （m.lock 的 Unlock）；什么都没持有时 Unlock 返回 ErrNotHeld；内层
// （N > 1）说 m.info(fmt.Sprintf("left depth %d, still held at depth %d", N, N-1))；
// 如果锁已经丢失，就返回包装了 ErrLost 的错误来报告，并说
// m.info(fmt.Sprintf("left depth %d of a lost lock", N))——无论哪种情况，
// 计数都减一。
func (m *Mutex) release(ctx context.Context) error {
	panic("TODO(workshop): release — one level down; only the last level lets go of the lock (steps 4-6 of 06-reentrant/README.md / README.zh-CN.md 第 4-6 步)")
}
