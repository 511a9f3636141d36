// Package scene is chapter 03 in the visualizer: one node, and every
// waiter watches it. Its deletion wakes them all, all of them try to
// create it again, one wins: the herd.
package scene

import (
	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 03's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "03",
		Name:  "03-watch-lock",
		Title: "one node, every waiter watches it (herd effect)",
		Expect: scene.Expect{Woken: scene.All, WokenSays: "one watched node wakes every waiter",
			Holders: 1, HoldersSays: "one holder at a time"},
		ZH: scene.Chinese{Title: "一个节点，每个等待者都监听它（惊群效应）",
			WokenSays: "所有等待者监听同一节点：一次释放全部唤醒", HoldersSays: "同一时刻只有一个持有者"},
		Single: true,
		NewWorker: func(w scene.Worker) (scene.Part, error) {
			return watchlock.New(w.Conn, w.Path, watchlock.WithObserver(w.Observer))
		},
	}
}
