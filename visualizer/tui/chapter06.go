package tui

import (
	"context"
	"errors"

	reentrantex "github.com/lockstep-zk/lockstep/06-reentrant/exercise"
	"github.com/lockstep-zk/lockstep/06-reentrant/reentrant"
)

// Chapter 06: chapter 04's lock plus a hold count. Each worker takes the
// lock, then takes it again (a nested call in the same job): the second
// Lock sends nothing to ZooKeeper, and only the last Unlock deletes the node.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "06", Name: "06-reentrant",
			Title: "re-entrant lock: the holder locks twice, one node, one release",
			Look:  "each holder locks twice: the 2nd Lock and 1st Unlock cost no request"},
		NewWorker: func(w Worker) (Locker, error) {
			m, err := reentrant.New(w.Conn, w.Path, reentrant.WithObserver(w.Observer),
				reentrant.WithSessionTimeout(w.Session), reentrant.WithData([]byte(w.Name)))
			if err != nil {
				return nil, err
			}
			return nested{m}, nil
		},
		Exercise: func(w Worker) (Locker, error) {
			m, err := reentrantex.New(w.Conn, w.Path, reentrantex.WithObserver(w.Observer),
				reentrantex.WithSessionTimeout(w.Session), reentrantex.WithData([]byte(w.Name)))
			if err != nil {
				return nil, err
			}
			return nested{m}, nil
		},
	})
}

// nested locks twice and unlocks twice.
type nested struct{ m Locker }

func (n nested) Lock(ctx context.Context) error {
	if err := n.m.Lock(ctx); err != nil {
		return err
	}
	if err := n.m.Lock(ctx); err != nil {
		return errors.Join(err, n.m.Unlock(context.WithoutCancel(ctx)))
	}
	return nil
}

func (n nested) Unlock(ctx context.Context) error {
	return errors.Join(n.m.Unlock(ctx), n.m.Unlock(ctx))
}
