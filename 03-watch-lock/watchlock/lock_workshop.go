//go:build workshop

// Workshop exercise for chapter 03 (make exercise CH=03). This file takes
// the place of 03-watch-lock/watchlock/lock.go; the rest of the package is
// the reference's, including chapter 02's steps (TryLock creates the node,
// Unlock compares and deletes, in watchlock.go). The new steps, 3 to 5 —
// wait for the delete with a watch instead of polling — are yours.
//
// 第 03 章的练习（make exercise CH=03）。这个文件代替
// 03-watch-lock/watchlock/lock.go；包里的其余部分都用参考实现，包括第 02
// 章的步骤（watchlock.go 里 TryLock 创建节点，Unlock 比较令牌后删除）。
// 新的第 3 到 5 步——用监听（watch）等节点被删除，而不是轮询——由你来写。
package watchlock

import "context"

// Lock blocks until this Lock holds the lock or ctx ends: steps 3 to 5 of
// 03-watch-lock/README.md, waiting for the lock node's delete with a watch
// instead of polling. What must hold: a waiter sends a handful of requests
// while it waits, not a stream; it never misses a release, not even one
// that happens between its failed create and its watch (ask whether the
// node exists and set the watch in one request, l.existsW, and when it
// says the node is gone, try again at once); only once the watch is set
// and the node still exists does it say that it waits (l.waiting(), once
// per wait, after l.existsW); it reports each wake-up (l.notified(ev));
// it returns when ctx ends, and returns an error wrapping the watch
// event's Err — rather than setting a new watch and waiting for ever —
// when its watch can no longer fire (its session expired).
//
// Lock 一直阻塞，直到这个 Lock 持有锁或 ctx 结束：03-watch-lock/README.zh-CN.md
// 的第 3 到 5 步，用监听等锁节点被删除，而不是轮询。必须成立的是：等待者
// 在等待期间只发少量请求，而不是源源不断；它不会错过任何一次释放，哪怕
// 释放发生在创建失败和设置监听之间（用一个请求同时询问节点是否存在并设置
// 监听，即 l.existsW；它说节点已经不在，就立刻再试）；只有监听已经设置、
// 节点也还在，才报告自己在等（l.waiting()，每次等待一次，在 l.existsW
// 之后）；每次被唤醒都要报告（l.notified(ev)）；ctx 结束时返回；监听再也
// 不会触发时（会话过期），返回一个包装了监听事件 Err 的错误，而不是再设
// 一个监听永远等下去。
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): Lock — try; while the lock is taken, wait for its node to go (a watch, not a sleep) and try again (steps 3-5 of 03-watch-lock/README.md / README.zh-CN.md 第 3-5 步)")
}
