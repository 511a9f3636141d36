// Package scene is chapter 03 in the visualizer: one node, and every
// waiter watches it. Its deletion wakes them all, all of them try to
// create it again, one wins: the herd.
package scene

import (
	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
	"github.com/lockstep-zk/lockstep/internal/scene"
)

// New returns chapter 03's scene.
func New() scene.Scene {
	return scene.Scene{
		Key:   "03",
		Name:  "03-watch-lock",
		Title: "one node, every waiter watches it (herd effect)",
		Expect: scene.Expect{Woken: scene.All, WokenSays: "one watched node wakes every waiter",
			Holders: 1, HoldersSays: "one holder at a time"},
		Single: true,
		NewWorker: func(w scene.Worker) (scene.Part, error) {
			return watchlock.New(w.Conn, w.Path, watchlock.WithObserver(w.Observer))
		},
	}
}
