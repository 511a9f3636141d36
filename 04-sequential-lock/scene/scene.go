// Package scene is chapter 04 in the visualizer: the ephemeral-sequential
// queue, each waiter watching only the node just before its own, so each
// release wakes exactly one waiter.
package scene

import (
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 04's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "04",
		Name:  "04-sequential-lock",
		Title: "sequential nodes: each waiter watches only its predecessor",
		Expect: scene.Expect{Woken: 1, WokenSays: "the predecessor queue wakes 1",
			Holders: 1, HoldersSays: "one holder at a time"},
		ZH: scene.Chinese{Title: "顺序节点：每个等待者只监听它的前驱节点",
			WokenSays: "前驱节点排队，一次释放只唤醒 1 个", HoldersSays: "同一时刻只有一个持有者"},
		Open: scene.OnSession(seqlock.NewSession, func(s *seqlock.Session, w scene.Worker) (scene.Part, error) {
			// The worker's name is the node's data, so the queue can name
			// the owner of a node even before its session is known.
			return seqlock.New(s, w.Path, seqlock.WithObserver(w.Observer), seqlock.WithData([]byte(w.Name)))
		}),
	}
}
