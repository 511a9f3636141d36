// Command 04-sequential-lock runs the course's real lock: each worker
// queues up with an ephemeral sequential node and watches only the node
// just before its own. In the timeline, every release is followed by
// exactly one "notified" line — the next worker in line, and nobody else —
// and the counter ends exact.
//
//	go run ./04-sequential-lock -workers 3 -rounds 1
package main

import (
	"context"
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

func main() {
	demo.Main(demo.Chapter{
		// -tui opens the visualizer on this chapter instead of the timeline.
		TUI: func(ctx context.Context, cfg demo.Config) error {
			opts := tui.FromDemo("04", cfg)
			return tui.Run(ctx, opts)
		},
		Name:  "04-sequential-lock",
		Title: "04 sequential lock: queue with ephemeral sequential nodes, watch only your predecessor",
		NewLock: func(conn *zk.Conn, path string, obs event.Observer) (demo.Locker, error) {
			return seqlock.New(conn, path, seqlock.WithObserver(obs))
		},
	})
}
