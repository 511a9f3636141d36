package tui

import (
	rwlockex "github.com/lockstep-zk/lockstep/05-rwlock/exercise"
	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
)

// Chapter 05: a read-write lock. Worker 1, 4, 7, … write; the others read.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "05", Name: "05-rwlock",
			Title: "read-write lock: readers share, writers exclude (workers 1, 4, 7… write)",
			Look:  "R nodes hold together; a W release wakes the readers behind it, an R release one W"},
		NewWorker: func(w Worker) (Locker, error) {
			m, err := rwlock.New(w.Conn, w.Path, rwlock.WithObserver(w.Observer), rwlock.WithSessionTimeout(w.Session))
			if err != nil {
				return nil, err
			}
			if w.Index%3 == 1 {
				return m.Write(), nil
			}
			return m.Read(), nil
		},
		Exercise: func(w Worker) (Locker, error) {
			m, err := rwlockex.New(w.Conn, w.Path, rwlockex.WithObserver(w.Observer), rwlockex.WithSessionTimeout(w.Session))
			if err != nil {
				return nil, err
			}
			if w.Index%3 == 1 {
				return m.Write(), nil
			}
			return m.Read(), nil
		},
	})
}
