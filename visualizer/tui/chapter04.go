package tui

import (
	seqlockex "github.com/lockstep-zk/lockstep/04-sequential-lock/exercise"
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
		Exercise: func(w Worker) (Locker, error) {
			return seqlockex.New(w.Conn, w.Path, seqlockex.WithObserver(w.Observer),
				seqlockex.WithSessionTimeout(w.Session), seqlockex.WithData([]byte(w.Name)))
		},
	})
}
