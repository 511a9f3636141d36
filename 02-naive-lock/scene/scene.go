// Package scene is chapter 02 in the visualizer: everybody creates the same
// node and, when it exists, sleeps and tries again. No watches: requests
// per acquisition grow with every waiter. With the persistent variant the
// node outlives a killed holder and the lock stays stuck for ever.
package scene

import (
	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// New returns chapter 02's scene; persistent uses the persistent lock node
// (the visualizer's -persistent flag).
func New(persistent bool) scene.Scene {
	look := "waiters poll: req/acq grows with each waiter; -persistent + k: stuck for ever"
	zh := "等待者轮询：等待者越多，每次加锁的请求数越多；-persistent 加 k：永远卡住"
	if persistent {
		look = "PERSISTENT node: k kills the holder and nobody ever gets the lock again"
		zh = "持久节点（PERSISTENT）：k 杀掉持有者之后，再也没有人能拿到锁"
	}
	return scene.Scene{
		Key:    "02",
		Name:   "02-naive-lock",
		Title:  "one node, retry in a loop (no watches)",
		Look:   look,
		ZH:     scene.Chinese{Title: "一个节点，循环重试（没有监听）", Look: zh},
		Single: true,
		NewWorker: func(w scene.Worker) (scene.Part, error) {
			opts := []naivelock.Option{naivelock.WithObserver(w.Observer)}
			if persistent {
				opts = append(opts, naivelock.Persistent())
			}
			return naivelock.New(w.Conn, w.Path, opts...)
		},
	}
}
