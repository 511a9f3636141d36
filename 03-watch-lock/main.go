// Command 03-watch-lock runs the lock that waits on a watch instead of
// polling: a worker that finds the lock node taken sets an exists-watch on
// it and sleeps until ZooKeeper says the node was deleted. Compare the
// request count with 02-naive-lock — and count the notifications: every
// release wakes every waiter (the herd effect).
//
//	go run ./03-watch-lock                          # 3 workers
//	go run ./03-watch-lock -workers 10 -rounds 1    # a bigger herd
//	go run ./03-watch-lock -nolock                  # no lock: updates get lost
package main

import (
	"context"
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

func main() {
	demo.Main(demo.Chapter{
		// -tui opens the visualizer on this chapter instead of the timeline.
		TUI: func(ctx context.Context, cfg demo.Config) error {
			opts := tui.FromDemo("03", cfg)
			return tui.Run(ctx, opts)
		},
		Name:  "03-watch-lock",
		Title: "03-watch-lock: create the lock node, or watch it and wait until it is deleted",
		NewLock: func(conn *zk.Conn, path string, obs event.Observer) (demo.Locker, error) {
			return watchlock.New(conn, path, watchlock.WithObserver(obs))
		},
	})
}
