//go:build workshop

// Workshop exercise for chapter 05 (make exercise CH=05). This file takes
// the place of 05-rwlock/rwlock/rule.go; the rest of the package (the
// RWMutex and its two sides, downgrade and upgrade) and chapter 04's queue
// core are the reference's. Write the two TODO(workshop) rules, then run
// the chapter's own tests against them.
//
// 第 05 章的练习（make exercise CH=05）。本文件顶替
// 05-rwlock/rwlock/rule.go，包里其余的代码（RWMutex 及其读、写两侧，锁降级
// 和锁升级）和第 04 章的队列核心都沿用参考实现。补全两处 TODO(workshop) 规
// 则，然后跑本章的测试验证。
package rwlock

import (
	"strings"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// Readers and writers queue up in one directory, one EPHEMERAL_SEQUENTIAL
// node each, named as Curator names them: …__READ__<sequence> or
// …__WRIT__<sequence>. Only the sequence orders the queue. A Rule gets the
// queue, lowest sequence first, and our index in it, and says whether we
// hold the lock — and if not, the name of the one node we watch.
//
//   - A writer holds the lock when it is first; else it watches the node
//     just before its own, whatever that node is.
//   - A reader holds the lock unless a writer is ahead of it (readers ahead
//     share with it); else it watches only the last writer ahead of it.
//
// 读者和写者在同一个目录下排队，每人一个 EPHEMERAL_SEQUENTIAL 节点（临时顺
// 序节点），命名方式与 Curator 相同：…__READ__<序号> 或 …__WRIT__<序号>。排
// 队顺序只看序号。规则拿到的是队列（序号小的在前）和我们的下标，返回我们是
// 否持有锁；没有持有时，再返回我们要监听的那一个节点的名字。
//
//   - 写者：排在第一位就持有锁；否则监听紧挨在自己前面的节点，不管它是读节
//     点还是写节点。
//   - 读者：只要前面没有写者就持有锁（前面的读者和它共享）；否则只监听排在
//     它前面的最后一个写者。

// Curator's markers, so a Java InterProcessReadWriteLock shares the queue.
// Curator depends on both having the same length.
const (
	readMarker  = "__READ__"
	writeMarker = "__WRIT__"
)

// writeRule is the writer's rule (step 3). What must hold: a writer holds
// only when it is first, and waits for exactly one node. (Chapter 04 has
// written it already.)
//
// writeRule 是写者的规则（第 3 步）。要保证：写者只有排在第一位才持有锁，而
// 且只等一个节点。（第 04 章已经写过这条规则。）
var writeRule seqlock.Rule = func(queue []seqlock.Node, ours int) (bool, string) {
	panic("TODO(workshop): writeRule — a writer holds alone, and waits for exactly one node (chapter 04 has a rule for this) (step 3 of 05-rwlock/README.md / README.zh-CN.md 第 3 步)")
}

// readRule is the reader's rule (step 4). own is the name of the write
// node this RWMutex holds, "" if none: it does not block our own reader
// (that is a downgrade). What must hold: a reader holds unless a writer
// other than own is ahead of it; otherwise it watches the last such
// writer ahead of it, so that one writer's release wakes exactly the
// readers behind it.
//
// readRule 是读者的规则（第 4 步）。own 是这个 RWMutex 自己持有的写节点的名
// 字，没有就是 ""：它挡不住我们自己的读者（这就是锁降级）。要保证：只要前面
// 没有 own 以外的写者，读者就持有锁；否则监听排在它前面的最后一个这样的写者。
// 这样一来，一个写者释放时，被唤醒的恰好是排在它后面的那些读者。
func readRule(queue []seqlock.Node, ours int, own string) (holds bool, watch string) {
	panic("TODO(workshop): readRule — a reader holds unless a writer other than our own is ahead; else it waits for the one writer whose going can let it in (step 4 of 05-rwlock/README.md / README.zh-CN.md 第 4 步)")
}

// writer tells a writer's node from a reader's: the marker comes just
// before the 10-digit sequence.
func writer(n seqlock.Node) bool {
	return strings.HasSuffix(n.Name[:len(n.Name)-10], writeMarker)
}
