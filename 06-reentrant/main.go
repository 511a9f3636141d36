// Command 06-reentrant runs chapter 04's lock with a hold count on top.
// Each worker's job takes the lock and then calls a helper that takes it
// again (-depth 2, the default): the timeline shows one "acquired" per
// round, "info … re-entered, depth 2" with no request to ZooKeeper before
// it, and a single "released" — the node is deleted only by the last
// Unlock. The counter ends exact.
//
//	go run ./06-reentrant -workers 2 -rounds 1
//	go run ./06-reentrant -tui     # the visualizer on this chapter
package main

import (
	"context"
	"errors"
	"flag"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/lockstep-zk/lockstep/06-reentrant/reentrant"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

var depth = 2

func main() {
	demo.Main(demo.Chapter{
		Name:  "06-reentrant",
		Title: "06 reentrant lock: chapter 04's lock + a hold count; only the last Unlock deletes the node",
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&depth, "depth", depth, "how many times each job takes the lock (nested)")
		},
		Sessions: demo.OnSession(seqlock.NewSession, func(s *seqlock.Session, path string, obs event.Observer) (demo.Locker, error) {
			m, err := reentrant.New(s, path, seqlock.WithObserver(obs))
			return nestedJob{m}, err
		}, nil),
	})
}

// nestedJob is what the demo's workers lock: the job takes the lock, then
// calls helpers that take it again, depth times in all; the critical
// section (the counter update) runs at the deepest level.
type nestedJob struct{ m *reentrant.Mutex }

func (j nestedJob) Lock(ctx context.Context) error {
	for range max(depth, 1) {
		if err := j.m.Lock(ctx); err != nil {
			for range j.m.Depth() { // undo the levels we did take
				j.m.Unlock(context.WithoutCancel(ctx))
			}
			return err
		}
	}
	return nil
}

func (j nestedJob) Unlock(ctx context.Context) error {
	var errs []error
	for range j.m.Depth() {
		errs = append(errs, j.m.Unlock(ctx))
	}
	return errors.Join(errs...)
}
