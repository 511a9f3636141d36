package tui

import (
	naivelockex "github.com/lockstep-zk/lockstep/02-naive-lock/exercise"
	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
)

// Chapter 02: everybody creates the same node and retries in a loop. With
// -persistent the node outlives a killed holder and the lock stays stuck.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "02", Name: "02-naive-lock",
			Title: "one node, retry in a loop (no watches)",
			Look:  "waiters poll: req/acq grows with each waiter; -persistent + k: stuck for ever"},
		Single: true,
		NewWorker: func(w Worker) (Locker, error) {
			opts := []naivelock.Option{naivelock.WithObserver(w.Observer)}
			if w.Persist {
				opts = append(opts, naivelock.Persistent())
			}
			return naivelock.New(w.Conn, w.Path, opts...)
		},
		// The learner's lock in 02-naive-lock/exercise (-impl exercise).
		Exercise: func(w Worker) (Locker, error) {
			opts := []naivelockex.Option{naivelockex.WithObserver(w.Observer)}
			if w.Persist {
				opts = append(opts, naivelockex.Persistent())
			}
			return naivelockex.New(w.Conn, w.Path, opts...)
		},
	})
}
