package arena

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"
)

// What a screen shows of the arena — the host's (workshop/class watch) and
// the projector's (go run ./visualizer -observe) — read on the server, on
// watches: Snapshot is the arena at one moment, Follow a Snapshot after
// every change. Neither writes anything: a session with read permission
// on the arena (the host's, or anyone's with the class code) is enough.

// Snapshot is the arena at one moment.
type Snapshot struct {
	Dir     string
	Paused  bool
	Counter Counter
	Queue   []Entry // in order: [0] holds the class lock
	Caught  []Catch // every refused write, in the order the server recorded them
	// Seen is when the screen read it (its own clock: rounds per second
	// are counted between two Snapshots of one reader).
	Seen time.Time
}

// Holder is the name of the learner whose node is first in the queue
// ("" when the queue is empty).
func (s Snapshot) Holder() string {
	if len(s.Queue) == 0 {
		return ""
	}
	return s.Queue[0].Name
}

// Snapshot reads the arena now.
func (a *Arena) Snapshot(ctx context.Context) (Snapshot, error) {
	s := Snapshot{Dir: a.dir}
	var err error
	if s.Paused, err = a.Paused(ctx); err != nil {
		return s, err
	}
	if s.Counter, _, err = a.Counter(ctx); err != nil {
		return s, err
	}
	if s.Queue, err = a.Queue(ctx); err != nil {
		return s, err
	}
	if s.Caught, err = a.Caught(ctx); err != nil {
		return s, err
	}
	s.Seen = time.Now()
	return s, nil
}

// Follow sends a Snapshot now, and another after every change (Next's
// watches, set before each read, so no change falls between two), until
// ctx ends (it returns ctx's error) or a read fails.
func (a *Arena) Follow(ctx context.Context, out chan<- Snapshot) error {
	for {
		next, err := a.Next(ctx)
		if err != nil {
			return err
		}
		s, err := a.Snapshot(ctx)
		if err != nil {
			return err
		}
		select {
		case out <- s:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-next:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// At returns the arena that dir is, or whose class lock dir is (the
// directory a lock observer is pointed at): ok is false, with no error,
// when dir is any other directory — a lock directory of Curator's, of
// go-zookeeper's, of a chapter's.
func At(ctx context.Context, conn *zk.Conn, dir string) (a *Arena, ok bool, err error) {
	for _, d := range []string{dir, path.Dir(dir)} {
		if d == "/" {
			continue
		}
		a, err := Open(conn, d)
		if err != nil {
			return nil, false, err
		}
		if d != dir && a.LockDir() != dir {
			continue
		}
		_, _, err = a.Counter(ctx)
		switch {
		case err == nil:
			if _, err := a.Queue(ctx); err != nil {
				return nil, false, err
			}
			return a, true, nil
		case errors.Is(err, ErrNoArena), errors.Is(err, zk.ErrNoAuth):
			continue
		default:
			return nil, false, fmt.Errorf("arena: is %s an arena?: %w", d, err)
		}
	}
	return nil, false, nil
}
