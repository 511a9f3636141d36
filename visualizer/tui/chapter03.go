package tui

import (
	watchlockex "github.com/lockstep-zk/lockstep/03-watch-lock/exercise"
	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
)

// Chapter 03: one node, and every waiter watches it. Its deletion wakes
// them all: the herd.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "03", Name: "03-watch-lock",
			Title: "one node, every waiter watches it (herd effect)",
			Look:  "each release wakes EVERY waiter: many NOTIFIED at once, all but one wasted"},
		Single: true,
		NewWorker: func(w Worker) (Locker, error) {
			return watchlock.New(w.Conn, w.Path, watchlock.WithObserver(w.Observer))
		},
		Exercise: func(w Worker) (Locker, error) {
			return watchlockex.New(w.Conn, w.Path, watchlockex.WithObserver(w.Observer))
		},
	})
}
