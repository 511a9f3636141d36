// Package scene is chapter 07 in the visualizer: leader election. Each
// worker is a candidate; the lowest candidate node leads, every other
// candidate watches the one just before its own. The leader leads for a
// while (its term), resigns and campaigns again; kill it (k) and the next
// candidate leads once the server has expired the dead one's session.
package scene

import (
	"context"
	"fmt"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 07's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "07",
		Name:  "07-leader",
		Title: "leader election: the lowest candidate leads, each watches its predecessor",
		Expect: scene.Expect{Woken: 1, WokenSays: "a resign wakes the next follower alone",
			Holders: 1, HoldersSays: "one leader at a time"},
		Words: scene.Words{Worker: "candidate", Queue: "ELECTION", Holds: "LEADS",
			Idle: "resigned", Requesting: "campaigns", Waiting: "follower", Holding: "leader",
			Acquired: "terms", Woken: "woken/resign", PerAcq: "term"},
		ZH: scene.Chinese{Title: "选主（领导者选举）：序号最小的候选者当领导者，每个候选者监听前驱节点",
			WokenSays: "一次让位只唤醒下一个跟随者", HoldersSays: "同一时刻只有一个领导者",
			Words: scene.Words{Worker: "候选者", Queue: "选主", Holds: "领导",
				Idle: "已让位", Requesting: "参选中", Waiting: "跟随者", Holding: "领导者",
				Acquired: "任期", Woken: "唤醒/让位", PerAcq: "任期"},
			Describe: describeZH},
		Leaf: "election",
		Open: scene.OnSession(seqlock.NewSession, func(s *seqlock.Session, w scene.Worker) (scene.Part, error) {
			e, err := leader.New(s, w.Path, seqlock.WithObserver(w.Observer))
			if err != nil {
				return nil, err
			}
			return candidate{e, w.Name}, nil
		}),
		Describe: describe,
	}
}

// describe says what happened in the words of an election: a candidate
// leads for a term, resigns, or loses the lead; it does not acquire a lock.
func describe(e event.Event) string {
	node := short(e.Node)
	switch e.Kind {
	case event.Acquired:
		// A new term. Its fencing token only grows from term to term.
		if e.Token != 0 {
			return fmt.Sprintf("%s leads: a new term, token %d (%s)", e.Owner, e.Token, node)
		}
		return e.Owner + " leads: a new term (" + node + ")"
	case event.Released:
		return e.Owner + " resigns: deletes " + node
	case event.Lost:
		return e.Owner + " LOST the lead: " + e.Detail
	case event.Waiting:
		return e.Owner + " follows: next after " + node
	}
	return e.String()
}

// describeZH is describe in Chinese.
func describeZH(e event.Event) string {
	node := short(e.Node)
	switch e.Kind {
	case event.Acquired:
		if e.Token != 0 {
			return fmt.Sprintf("%s 当选领导者：新的任期，防护令牌 %d（%s）", e.Owner, e.Token, node)
		}
		return e.Owner + " 当选领导者：新的任期（" + node + "）"
	case event.Released:
		return e.Owner + " 让位：删除 " + node
	case event.Lost:
		return e.Owner + " 失去领导者地位：" + scene.ChineseDetail(e.Detail)
	case event.Waiting:
		return e.Owner + " 成为跟随者：排在 " + node + " 后面"
	}
	return scene.ChineseLine(e)
}

// short drops the directory and the protected GUID: "latch-0000000013".
func short(p string) string {
	return zkpath.ProtectedPrefix.ReplaceAllString(event.Short(p), "")
}

// candidate campaigns with its name as the leader's value: Lock is a
// campaign that returns once it leads, Unlock resigns.
type candidate struct {
	e    *leader.Election
	name string
}

func (c candidate) Lock(ctx context.Context) error   { return c.e.Campaign(ctx, c.name) }
func (c candidate) Unlock(ctx context.Context) error { return c.e.Resign(ctx) }
