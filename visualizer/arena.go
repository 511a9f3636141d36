package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/visualizer/worldmsg"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

// The class's arena (workshop/class/arena) is a lock directory like any
// other to the observer; what makes it an arena — the counter every holder
// writes, the writes the server refused — is read here, on the arena's own
// watches (arena.Follow), and handed to the view as worldmsg.Arena. The
// view knows nothing of the arena's package. The arena's reading side
// links nothing the visualizer does not link already: go-zookeeper, 04's
// seqlock and small packages of ours.

// catchesSent is how many of the latest refused writes each message
// carries (the view lists fewer; a message per change says the count).
const catchesSent = 8

// findArena is the arena that dir is, or whose class lock dir is, and the
// lock directory to watch (the class lock's, when dir is the arena's own).
// ok is false for any other directory: a plain lock directory is observed
// as such.
func findArena(ctx context.Context, conn *zk.Conn, dir string) (a *arena.Arena, lockDir string, ok bool, err error) {
	a, ok, err = arena.At(ctx, conn, dir)
	if err != nil || !ok {
		return nil, dir, false, err
	}
	return a, a.LockDir(), true, nil
}

// followArena sends the view the arena after every change until ctx ends.
// A failed read is said in the log; the watch starts over after a moment
// (a connection lost: go-zookeeper reconnects meanwhile).
func followArena(ctx context.Context, a *arena.Arena, add func(worldmsg.Msg)) {
	snaps := make(chan arena.Snapshot)
	go func() {
		for s := range snaps {
			add(arenaMsg(s))
		}
	}()
	defer close(snaps)
	last := ""
	for {
		err := a.Follow(ctx, snaps)
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return
		}
		if line := fmt.Sprintf("arena %s: %v", a.Dir(), err); line != last {
			last = line
			add(worldmsg.Notice{Text: line})
		}
		if !pauseFor(ctx) {
			return
		}
	}
}

// arenaMsg is what the view is told of one snapshot.
func arenaMsg(s arena.Snapshot) worldmsg.Arena {
	m := worldmsg.Arena{At: s.Seen, Dir: s.Dir, Paused: s.Paused, Count: s.Counter.N, Writer: s.Counter.Writer, Caught: len(s.Caught)}
	for _, c := range s.Caught[max(0, len(s.Caught)-catchesSent):] {
		m.Catches = append(m.Catches, catchMsg(c))
	}
	return m
}

func catchMsg(c arena.Catch) worldmsg.Catch {
	return worldmsg.Catch{En: c.Line("en"), Zh: c.Line("zh")}
}

// pauseFor waits a moment before a watch is set again; false when ctx ended.
func pauseFor(ctx context.Context) bool {
	select {
	case <-time.After(500 * time.Millisecond):
		return true
	case <-ctx.Done():
		return false
	}
}
