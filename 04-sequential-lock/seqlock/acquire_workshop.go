//go:build workshop

// Workshop exercise for chapter 04 (make exercise CH=04, or make workshop).
// With -tags workshop this file takes the place of acquire.go, next to it;
// the rest of the package is the reference's. What the chapter teaches is
// yours: the mutex's rule, First, and steps 2 to 4 of the recipe, the loop
// that asks the rule and waits (waitTurn). acquire, in queue.go, is
// written: it joins the queue (step 1), calls your waitTurn, and, when
// waitTurn returns an error, queues up again (our node is gone) or removes
// our node and gives up.
//
// 第 04 章的练习（make exercise CH=04，或 make workshop）。加上 -tags
// workshop 构建时，本文件顶替旁边的 acquire.go，包里其余的代码都沿用参考实
// 现。本章的重点归你写：互斥锁的规则 First，以及算法的第 2 到 4 步，即反复
// 询问规则、等待的那个循环（waitTurn）。queue.go 里的 acquire 已经写好：它
// 先加入队列（第 1 步），再调用你的 waitTurn；waitTurn 返回错误时，它要么重
// 新排队（我们的节点没了），要么删掉我们的节点、放弃加锁。
package seqlock

import "context"

// First is the mutex's rule. queue is the lock directory's nodes, lowest
// sequence number first; ours is the index of our node in it. Say whether
// we hold the lock and, if not, the Name of the one node we wait for.
//
// What must hold: exactly one node holds, the first to have asked; and
// when the holder lets go, exactly one waiter wakes up (chapter 03 woke
// them all). Stuck? scripts/exercise 04 --hint, or h in make workshop.
//
// First 是互斥锁的规则。queue 是锁目录下的全部节点，按序号从小到大排列；
// ours 是我们的节点在其中的下标。返回我们是否持有锁；没有持有时，再返回我们
// 要等的那一个节点的 Name。要保证：同一时刻只有一个节点持有锁，而且是最先申
// 请的那个；持有者释放时，只唤醒一个等待者（第 03 章会把所有等待者都唤醒，
// 也就是惊群效应）。卡住了？运行 scripts/exercise 04 --hint，或在 make
// workshop 里按 h。
func First(queue []Node, ours int) (bool, string) {
	panic("TODO(workshop): First — who holds, and which one node each waiter watches so that one release wakes one waiter (steps 3-4 of 04-sequential-lock/README.md / README.zh-CN.md 第 3-4 步)")
}

// waitTurn runs steps 2 to 4 for our node (its full path) until the rule
// says we hold the lock. What each step must achieve:
//
//  2. Know the queue as it is now, and our place in it.
//  3. Ask the rule (q.rule). If we hold, return our hold, whose token is
//     the directory's pzxid as the listing that showed us first saw it. If
//     we do not hold and may not wait (wait false, TryLock): ErrLocked.
//  4. Otherwise block until the one node the rule named changes or goes,
//     then go back to step 2.
//
// What must hold afterwards: nobody holds while a node ahead of it holds;
// a waiter that wakes up never assumes the lock is its own; an error is
// returned as it is (acquire knows what to do with it). The tests and the
// visualizer follow what the observer is told: each listing (a Request
// "children"), each wait on a node (a Request "get" that sets the watch,
// then Waiting, and Notified when it fires) and the hold (Acquired). The
// core's tools, in queue.go and hold.go next to this one, tell it for you:
// use them, not the conn. Which ones, and why, are the hints' business:
// scripts/exercise 04 --hint, or h in make workshop.
//
// waitTurn 针对我们的节点（node 是它的完整路径）反复执行第 2 到 4 步，直到
// 规则判定我们持有锁。每一步要做到：
//
//  2. 弄清队列现在的样子，以及我们排在哪里。
//  3. 询问规则（q.rule）。持有锁就返回这次持有（hold），它的令牌是那次获取
//     子节点列表时读到的目录 pzxid，正是那一次让我们看到自己排在第一。没有持有、又不
//     允许等待（wait 为 false，即 TryLock）：返回 ErrLocked。
//  4. 否则阻塞，直到规则指定的那一个节点发生变化或被删除，然后回到第 2 步。
//
// 做完之后要保证：前面还有节点持有锁时，谁也不能持有；等待者被唤醒后，绝不
// 能直接认定锁归自己；出了错就原样返回（acquire 知道怎么处理）。测试和可视
// 化工具依据的是报告给观察者的事件：每次获取子节点列表（Request "children"），每次等
// 待某个节点（先是设置监听的 Request "get"，然后是 Waiting，监听触发时是
// Notified），以及持有（Acquired）。这些事件由旁边 queue.go 和 hold.go 里队
// 列核心的工具替你报告：用这些工具，不要直接操作 conn。具体用哪些、为什么，
// 留给提示去讲：scripts/exercise 04 --hint，或在 make workshop 里按 h。
func (q *queue) waitTurn(ctx context.Context, node string, wait bool) (*hold, error) {
	panic("TODO(workshop): waitTurn — steps 2 to 4: know the queue and our place, ask the rule, hold or give up or wait, and after a wait look again (04-sequential-lock/README.md / README.zh-CN.md 第 2-4 步)")
}
