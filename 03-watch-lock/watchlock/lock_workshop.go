//go:build workshop

// Workshop exercise for chapter 03 (make exercise CH=03). This file takes
// the place of 03-watch-lock/watchlock/lock.go; the rest of the package is
// the reference's, including chapter 02's steps (TryLock creates the node,
// Unlock compares and deletes, in watchlock.go). The new steps, 3 to 5 —
// wait for the delete with a watch instead of polling — are yours.
//
// 第 03 章的练习（make exercise CH=03）。本文件顶替
// 03-watch-lock/watchlock/lock.go，包里其余的代码都沿用参考实现，包括第 02
// 章写过的步骤（在 watchlock.go 里：TryLock 创建节点，Unlock 比对令牌后删除）。
// 新增的第 3 到 5 步归你写：不再轮询，而是用监听（watch）等锁节点被删除。
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
// Lock 会一直阻塞，直到这个 Lock 拿到锁或 ctx 结束。这是
// 03-watch-lock/README.zh-CN.md 的第 3 到 5 步：不再轮询，而是用监听等锁节
// 点被删除。要保证：等待期间只发寥寥几个请求，而不是一刻不停地发；任何一次
// 释放都不能错过，哪怕它恰好发生在创建失败之后、设置监听之前（所以要用一个
// 请求同时查询节点是否存在并设置监听，也就是 l.existsW；它若说节点已经不在，
// 就马上重试）；只有监听设好、节点也还在时，才调用 l.waiting() 报告自己在等，
// 每轮等待调用一次，放在 l.existsW 之后；每次被唤醒都调用 l.notified(ev) 报
// 告；ctx 结束就返回；监听再也不会触发时（会话已过期），返回一个包装了监听
// 事件 Err 的错误，而不是再设一个监听，永远等下去。
func (l *Lock) Lock(ctx context.Context) error {
	panic("TODO(workshop): Lock — try; while the lock is taken, wait for its node to go (a watch, not a sleep) and try again (steps 3-5 of 03-watch-lock/README.md / README.zh-CN.md 第 3-5 步)")
}
