// Command 04-sequential-lock runs the course's real lock: each worker
// queues up with an ephemeral sequential node and watches only the node
// just before its own. In the timeline, every release is followed by
// exactly one "notified" line — the next worker in line, and nobody else —
// and the counter ends exact.
//
//	go run ./04-sequential-lock -workers 3 -rounds 1
//	go run ./04-sequential-lock -tui      # the visualizer on this chapter
//
// -inventory runs the shop of the Curator article instead (inventory.go):
// 1000 buyers, goroutines sharing ONE session, each with its own Mutex, buy
// from a stock of 100; the last line is stock=0 sold=100 oversold=0. With
// -nolock the same shop oversells.
//
//	go run ./04-sequential-lock -inventory
//	go run ./04-sequential-lock -inventory -nolock
//
// Each worker's lock lives on a seqlock.Session: it learns the session
// timeout the server granted (-session asks for it), and steps down by it.
package main

import (
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

const title = "04 sequential lock: queue with ephemeral sequential nodes, watch only your predecessor"

// inventory is the shop's flags (-inventory, -buyers, -stock).
var inventory shop

var chapter = demo.Chapter{
	Name:  "04-sequential-lock",
	Title: title,
	Sessions: demo.OnSession(seqlock.NewSession, func(s *seqlock.Session, path string, obs event.Observer) (demo.Locker, error) {
		return seqlock.New(s, path, seqlock.WithObserver(obs))
	}, nil),
	Flags:   inventory.flags,
	Check:   inventory.check,
	Instead: inventory.instead,
}

func main() { demo.Main(chapter) }
