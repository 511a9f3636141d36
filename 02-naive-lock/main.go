// Command 02-naive-lock runs the "While version" lock: every worker tries to
// create the lock node itself; whoever succeeds holds the lock, everybody
// else sleeps -retry and tries again. Watch the timeline fill with creates
// that fail — that is the busy loop — and compare the request count with
// 03-watch-lock.
//
//	go run ./02-naive-lock                        # ephemeral node (the default)
//	go run ./02-naive-lock -persistent            # persistent node: stuck for ever if a holder crashes
//	go run ./02-naive-lock -retry 5ms -workers 8  # poll harder: count the requests
//	go run ./02-naive-lock -nolock                # no lock: updates get lost
//	go run ./02-naive-lock -tui                   # the visualizer on this chapter
//
// Each run locks under a root of its own, deleted at the end. With -path,
// runs share a lock node: start two in two terminals and they contend. Then
// a persistent node left behind by a run that crashed would make every
// worker wait for ever; the demo checks for one first and stops, or deletes
// it with -reset. See stale.go.
package main

import (
	"flag"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

var (
	persistent bool
	retry      time.Duration
	reset      bool
)

func main() {
	demo.Main(demo.Chapter{
		Name:  "02-naive-lock",
		Title: "02-naive-lock: create the lock node or sleep and retry (the \"While version\")",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&persistent, "persistent", false, "use a persistent lock node (stays for ever if a holder crashes)")
			fs.DurationVar(&retry, "retry", naivelock.DefaultRetryInterval, "how long a waiter sleeps before trying again")
			fs.BoolVar(&reset, "reset", false, "delete a stale persistent lock node left by a crashed run, then run")
		},
		NewLock: func(conn *zk.Conn, path string, obs event.Observer) (demo.Locker, error) {
			if err := checkStale(conn, path); err != nil {
				return nil, err
			}
			opts := []naivelock.Option{naivelock.WithRetryInterval(retry), naivelock.WithObserver(obs)}
			if persistent {
				opts = append(opts, naivelock.Persistent())
			}
			return naivelock.New(conn, path, opts...)
		},
		// -tui -persistent shows the persistent variant in the visualizer.
		TUIArgs: func(map[string]bool) []string {
			if persistent {
				return []string{"-persistent"}
			}
			return nil
		},
	})
}
