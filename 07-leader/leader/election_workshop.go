//go:build workshop

// Workshop exercise for chapter 07 (make exercise CH=07). This file takes
// the place of 07-leader/leader/election.go; the rest of the package is the
// reference's: the candidate's bookkeeping (candidate.go: Election, New,
// Campaign's state, Resign, Token, Node, Lost, Leadership) and its options.
// Chapter 04's queue core does every ZooKeeper step of a campaign. What the
// chapter teaches is yours: leading (campaign) and observing (Leader,
// Observe, lookup).
//
// 第 07 章的练习（make exercise CH=07）。这个文件代替
// 07-leader/leader/election.go；包里的其余部分都用参考实现：候选者的
// 记账（candidate.go：Election、New、Campaign 的状态、Resign、Token、Node、
// Lost、Leadership）和选项。参选的每一步 ZooKeeper 操作都由第 04 章的队列
// 核心完成。本章要教的归你写：领导（campaign）和观察（Leader、Observe、
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
// succession 是选举的规则：给定候选者的队列（序号最小的在前）和我们的
// 下标，我们是否当选；如果没有，我们监听哪一个节点的 Name？一个候选者
// 离开，只能唤醒一个候选者，而不是全部。
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
// campaign 参加选举，当选后返回我们的候选资格：在 e.s 和 e.dir 上用第 04
// 章的锁（seqlock.NewWithRule，再 Lock），value 作为我们节点的数据
// （seqlock.WithData，放在 e.opts 之后），节点名用 nodeName，规则是“序号
// 最小的节点当选，其他候选者各自监听紧挨在自己前面的那个节点”。出错时
// 不能留下任何节点。（队列核心自己会报告它的事件，包括 Waiting：这里不用
// 报告什么。）
func (e *Election) campaign(ctx context.Context, value string) (*seqlock.Mutex, error) {
	panic("TODO(workshop): campaign — a core acquisition whose rule is: the lowest node leads (steps 1-4 of 07-leader/README.md / README.zh-CN.md 第 1-4 步)")
}

// Leader says who leads now, or returns ErrNoLeader (no directory, or no
// candidate in it). Any Election can ask, candidate or not. A question
// sets no watch (no WatchSet) and lists the directory once (one Request
// "children"), unless the leader left before its data was read.
//
// Leader 回答现在谁是领导者，没有就返回 ErrNoLeader（没有目录，或者目录
// 里没有候选者）。任何 Election 都能问，不管是不是候选者。问一次不设置
// 监听（没有 WatchSet），只列出目录一次（一个 Request "children"），除非
// 领导者在它的数据被读到之前就离开了。
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
// Observe 按顺序流式给出选举的每一任领导者，每任一次；ctx 结束或连接关闭
// 时关闭通道：在目录上设置子节点监听（目录不存在时设置 exists 监听），
// 每当序号最小的节点是新的就报告它，等待监听触发，如此反复。报告的 Token
// 必须递增。等的是监听，绝不是定时器：第一次之后的每次列举都在一个
// Notified 之后，而这个 Notified 由 Observe 在监听触发时自己报告：
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
// lookup 读出序号最小的候选者节点（和候选者一样，用
// zkpath.Queue(children, nodeName) 排序）和它的数据；Token 是这次列举的
// pzxid。watch 为真时，它还返回一个通道，目录下一次变化时触发。每个请求
// 都要遵守 ctx：通过 zkcall.Conn{Conn: e.conn}（internal/zkcall）发送，它的
// 方法都带 ctx（conn.ChildrenW(ctx, e.dir)）；如果领导者在列举和读数据之间
// 离开了，就再看一次。像第 04 章的队列核心那样，把你做的事告诉观察者
// （测试和可视化工具读的就是这些）：每个请求之前
// e.emit(event.Event{Kind: event.Request, Op: "children", Node: e.dir})
// （Op 为 "children"、"exists"、"get"，Node 是所问的路径），监听设置好
// 之后发 Kind 为 event.WatchSet 的事件（Op 为 "children" 或 "exists"）。
func (e *Election) lookup(ctx context.Context, watch bool) (Leadership, <-chan zk.Event, error) {
	panic("TODO(workshop): lookup — list (with a watch if asked), sort, read the first node's data (07-leader/README.md, The algorithm / README.zh-CN.md「算法」)")
}
