// Command 03-watch-lock runs the lock that waits on a watch instead of
// polling: a worker that finds the lock node taken sets an exists-watch on
// it and sleeps until ZooKeeper says the node was deleted. Compare the
// request count with 02-naive-lock — and count the notifications: every
// release wakes every waiter (the herd effect).
//
//	go run ./03-watch-lock                          # 3 workers
//	go run ./03-watch-lock -workers 10 -rounds 1    # a bigger herd
//	go run ./03-watch-lock -nolock                  # no lock: updates get lost
//	go run ./03-watch-lock -tui                     # the visualizer on this chapter
package main

import (
	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

func main() {
	demo.Main(demo.Chapter{
		Name:  "03-watch-lock",
		Title: "03-watch-lock: create the lock node, or watch it and wait until it is deleted",
		NewLock: func(conn *zk.Conn, path string, obs event.Observer) (demo.Locker, error) {
			return watchlock.New(conn, path, watchlock.WithObserver(obs))
		},
	})
}
