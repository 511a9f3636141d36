package tui

import (
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
)

// Chapter 04: the real recipe. The worker's name goes into its node, so the
// queue panel could show the owner even without the session map.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "04", Name: "04-sequential-lock",
			Title: "sequential nodes: each waiter watches only its predecessor",
			Look:  "each release wakes ONE waiter (woken/release 1); k: the next in line takes over"},
		NewWorker: func(w Worker) (Locker, error) {
			return seqlock.New(w.Conn, w.Path, seqlock.WithObserver(w.Observer),
				seqlock.WithSessionTimeout(w.Session), seqlock.WithData([]byte(w.Name)))
		},
	})
}
