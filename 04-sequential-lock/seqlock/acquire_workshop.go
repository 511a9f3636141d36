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
// workshop 时，这个文件代替旁边的 acquire.go；包里的其余部分都用参考实现。
// 本章要教的归你写：互斥锁的规则 First，以及算法的第 2 到 4 步，也就是
// 询问规则、等待的那个循环（waitTurn）。queue.go 里的 acquire 已经写好：
// 它加入队列（第 1 步），调用你的 waitTurn；waitTurn 返回错误时，它要么
// 重新排队（我们的节点没了），要么删掉我们的节点后放弃。
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
// First 是互斥锁的规则。queue 是锁目录下的节点，序号最小的在前；ours 是
// 我们的节点在其中的下标。回答我们是否持有锁；如果没有，再给出我们要等
// 的那一个节点的 Name。必须成立的是：只有一个节点持有锁，也就是最先申请
// 的那个；持有者释放时，只有一个等待者被唤醒（第 03 章会唤醒所有等待者，
// 即惊群效应）。卡住了？scripts/exercise 04 --hint，或在 make workshop 里按 h。
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
// waitTurn 为我们的节点（完整路径 node）反复执行第 2 到 4 步，直到规则说
// 我们持有锁。每一步要做到的是：
//
//  2. 知道队列现在的样子，以及我们在其中的位置。
//  3. 询问规则（q.rule）。持有锁就返回我们的持有（hold），它的令牌是
//     让我们看到自己排第一的那次列举所读到的目录 pzxid。没有持有锁、又
//     不许等待（wait 为 false，即 TryLock）：返回 ErrLocked。
//  4. 否则阻塞，直到规则点名的那一个节点变化或消失，再回到第 2 步。
//
// 完成后必须成立：前面有节点持有锁时，谁也不能持有；被唤醒的等待者绝不
// 认定锁已经是自己的；错误原样返回（acquire 知道怎么处理）。测试和可视化
// 工具看的是告诉观察者的事件：每次列举（Request "children"），每次等待
// 一个节点（设置监听的 Request "get"，然后是 Waiting，监听触发时是
// Notified），以及持有（Acquired）。旁边 queue.go 和 hold.go 里队列核心的
// 工具会替你报告这些：用它们，不要直接用 conn。具体用哪些、为什么，交给
// 提示：scripts/exercise 04 --hint，或在 make workshop 里按 h。
func (q *queue) waitTurn(ctx context.Context, node string, wait bool) (*hold, error) {
	panic("TODO(workshop): waitTurn — steps 2 to 4: know the queue and our place, ask the rule, hold or give up or wait, and after a wait look again (04-sequential-lock/README.md / README.zh-CN.md 第 2-4 步)")
}
