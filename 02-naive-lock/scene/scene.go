// Package scene is chapter 02 in the visualizer: everybody creates the same
// node and, when it exists, sleeps and tries again. No watches: requests
// per acquisition grow with every waiter. With the persistent variant the
// node outlives a killed holder and the lock stays stuck for ever.
package scene

import (
	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
	"github.com/lockstep-zk/lockstep/internal/scene"
)

// New returns chapter 02's scene; persistent uses the persistent lock node
// (the visualizer's -persistent flag).
func New(persistent bool) scene.Scene {
	look := "waiters poll: req/acq grows with each waiter; -persistent + k: stuck for ever"
	if persistent {
		look = "PERSISTENT node: k kills the holder and nobody ever gets the lock again"
	}
	return scene.Scene{
		Key:    "02",
		Name:   "02-naive-lock",
		Title:  "one node, retry in a loop (no watches)",
		Look:   look,
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
