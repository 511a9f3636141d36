package tui

import (
	"context"

	leaderex "github.com/lockstep-zk/lockstep/07-leader/exercise"
	"github.com/lockstep-zk/lockstep/07-leader/leader"
)

// Chapter 07: leader election. A candidate's "lock" is its campaign; the
// leader holds for a while, then resigns and campaigns again.
func init() {
	register(Chapter{
		ChapterInfo: ChapterInfo{Key: "07", Name: "07-leader",
			Title: "leader election: the lowest candidate leads, each watches its predecessor",
			Look:  "HOLDS = leader; k kills it: the next candidate leads after the session timeout"},
		NewWorker: func(w Worker) (Locker, error) {
			e, err := leader.New(w.Conn, w.Path, leader.WithObserver(w.Observer), leader.WithSessionTimeout(w.Session))
			if err != nil {
				return nil, err
			}
			return candidate{e, w.Name}, nil
		},
		Exercise: func(w Worker) (Locker, error) {
			e, err := leaderex.New(w.Conn, w.Path, leaderex.WithObserver(w.Observer), leaderex.WithSessionTimeout(w.Session))
			if err != nil {
				return nil, err
			}
			return candidate{e, w.Name}, nil
		},
	})
}

// candidate campaigns with its name as the leader's value.
type candidate struct {
	e interface {
		Campaign(ctx context.Context, value string) error
		Resign(ctx context.Context) error
	}
	name string
}

func (c candidate) Lock(ctx context.Context) error   { return c.e.Campaign(ctx, c.name) }
func (c candidate) Unlock(ctx context.Context) error { return c.e.Resign(ctx) }
