//go:build workshop

// Workshop exercise for chapter 07 (make exercise CH=07). This file takes
// the place of 07-leader/leader/election.go; the rest of the package is the
// reference's: the candidate's bookkeeping (candidate.go: Election, New,
// Campaign's state, Resign, Token, Node, Lost, Leadership) and its options.
// Chapter 04's queue core does every ZooKeeper step of a campaign. What the
// chapter teaches is yours: leading (campaign) and observing (Leader,
// Observe, lookup).
//
// 第 07 章的练习（make exercise CH=07）。本文件顶替
// 07-leader/leader/election.go，包里其余的代码都沿用参考实现：候选者自己的
// 状态和方法（candidate.go：Election、New、Campaign 的状态、Resign、Token、
// Node、Lost、Leadership）和选项。参选时每一步 ZooKeeper 操作都由第 04 章的队列核
// 心完成。本章的重点归你写：参选（campaign）和观察（Leader、Observe、
// lookup）。
package leader

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// succession is the election's rule: given the queue of candidates (lowest
// sequence first) and our index in it, do we lead, and if not, which one
// node's Name do we watch? A departure must wake one candidate, not all.
//
// succession 是选主的规则：给定候选者的队列（序号小的在前）和我们的下标，判
// 断我们是否当选；没当选的话，我们监听哪一个节点（返回它的 Name）？一个候选
// 者离开时，只能唤醒一个候选者，不能把所有候选者都唤醒。
var succession seqlock.Rule = func(queue []seqlock.Node, ours int) (bool, string) {
	panic("TODO(workshop): succession — who leads, and whom each other candidate watches (steps 2-3 of 07-leader/README.md / README.zh-CN.md 第 2-3 步)")
}

// campaign joins the election and returns our candidacy once we lead:
// chapter 04's lock (seqlock.NewWithRule, then Lock) on e.s and e.dir, with
// value as our node's data (seqlock.WithData, after e.opts), our nodes
// named nodeName, under the rule "the lowest node leads, each other
// candidate watches the one just before its own". On an error it must
// leave no node behind. (The core reports its own events, Waiting among
// them: nothing to emit here.)
//
// campaign 参加选主，当选后才返回，返回值就是我们这次参选的那把锁：在 e.s
// 和 e.dir 上用第 04 章的锁（先 seqlock.NewWithRule，再 Lock），value 作为
// 我们节点的数据（seqlock.WithData，放在 e.opts 之后），节点名用 nodeName，
// 规则是“序号最小的节点当选，其余候选者各自监听紧挨在自己前面的那个节点”。
// 出错时不能留下任何节点。（队列核心会自己报告它的事件，包括 Waiting，这里
// 不用再报告。）
func (e *Election) campaign(ctx context.Context, value string) (*seqlock.Mutex, error) {
	panic("TODO(workshop): campaign — a core acquisition whose rule is: the lowest node leads (steps 1-4 of 07-leader/README.md / README.zh-CN.md 第 1-4 步)")
}

// Leader says who leads now, or returns ErrNoLeader (no directory, or no
// candidate in it). Any Election can ask, candidate or not. A question
// sets no watch (no WatchSet) and lists the directory once (one Request
// "children"), unless the leader left before its data was read.
//
// Leader 返回当前的领导者；没有领导者时返回 ErrNoLeader（目录不存在，或者目
// 录里没有候选者）。任何 Election 都可以查询，不论它是不是候选者。查询一次
// 不设置监听（没有 WatchSet），只获取一次目录的子节点列表（一个 Request "children"），
// 除非领导者在我们读到它的数据之前就离开了。
func (e *Election) Leader(ctx context.Context) (Leadership, error) {
	panic("TODO(workshop): Leader — the lowest candidate node and its data (07-leader/README.md, The algorithm / README.zh-CN.md「算法」)")
}

// Observe streams the leaders of the election, in order, each once, and
// closes the channel when ctx ends or the conn is closed: set a children
// watch on the directory (an exists watch while it does not exist), report
// the lowest node whenever it is a new one, wait for the watch, repeat.
// The reported Tokens must increase. Wait on the watch, never on a timer:
// every listing after the first comes after a Notified, which Observe
// reports itself when the watch fires:
// e.emit(event.Event{Kind: event.Notified, Node: e.dir, Detail: ev.Type.String()}).
//
// Observe 按顺序推送这场选主的每一任领导者，每任只推送一次；ctx 结束或连接
// 关闭时关闭 channel。做法是：在目录上设置子节点监听（目录还不存在时设置 exists
// 监听），每当序号最小的节点换了一个，就报告它，然后等监听触发，如此循环。
// 报告的 Token 必须递增。要等监听，绝不能靠定时器：除第一次外，每次获取子节点列表
// 之前都有一个 Notified，这个事件由 Observe 在监听触发时自己报告：
// e.emit(event.Event{Kind: event.Notified, Node: e.dir, Detail: ev.Type.String()})。
func (e *Election) Observe(ctx context.Context) <-chan Leadership {
	panic("TODO(workshop): Observe — watch the directory, report each new lowest node once (07-leader/README.md, The algorithm / README.zh-CN.md「算法」)")
}

// lookup reads the lowest candidate node (order the children with
// zkpath.Queue(children, nodeName), as the candidates do) and its data;
// Token is the pzxid of the listing. With watch, it also returns a channel
// that fires at the next change of the directory. Honour ctx on every
// request: send it through zkcall.Conn{Conn: e.conn} (internal/zkcall),
// whose methods take ctx (conn.ChildrenW(ctx, e.dir)); if the leader
// leaves between the listing and the read of its data, look again. Tell
// the observer what you do, as chapter 04's core does (the tests and the
// visualizer read it): e.emit(event.Event{Kind: event.Request, Op:
// "children", Node: e.dir}) before each request (Op "children", "exists",
// "get"; Node the path asked about), and Kind event.WatchSet once a watch
// is set (Op "children" or "exists").
//
// lookup 读出序号最小的候选者节点及其数据（和候选者排队时一样，用
// zkpath.Queue(children, nodeName) 排序）；Token 取这次获取列表时读到的 pzxid。watch
// 为 true 时，它还返回一个 channel，目录下次变化时触发。每个请求都要遵守 ctx：
// 通过 zkcall.Conn{Conn: e.conn}（internal/zkcall）发出，它的方法都接收
// ctx（conn.ChildrenW(ctx, e.dir)）；如果领导者在获取列表之后、读数据之前离开了，
// 就重新查一遍。像第 04 章的队列核心那样，把你做的每件事报告给观察者（测试
// 和可视化工具靠的就是这些事件）：每个请求之前调用
// e.emit(event.Event{Kind: event.Request, Op: "children", Node: e.dir})
// （Op 为 "children"、"exists" 或 "get"，Node 是请求的路径），监听设好之后
// 报告一个 Kind 为 event.WatchSet 的事件（Op 为 "children" 或 "exists"）。
func (e *Election) lookup(ctx context.Context, watch bool) (Leadership, <-chan zk.Event, error) {
	panic("TODO(workshop): lookup — list (with a watch if asked), sort, read the first node's data (07-leader/README.md, The algorithm / README.zh-CN.md「算法」)")
}
