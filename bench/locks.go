package main

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/02-naive-lock/naivelock"
	"github.com/lockstep-zk/lockstep/03-watch-lock/watchlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/contend"
)

// locker is what the bench needs from a lock, the same as every loop of
// the course needs: the chapters' locks have exactly these methods.
type locker = contend.Locker

// lockKind describes one lock to the bench.
type lockKind struct {
	name  string // the -locks name and the "lock" column: 02, 03, 04, gozk
	about string // one line for the README and -h
	// dir says whether the lock takes a directory of its own (the
	// sequential locks), which the bench creates before it measures, so
	// no lock pays for creating its parents inside the measurement. The
	// others take a node path that must not exist yet.
	dir bool
	new func(s *seqlock.Session, path string) (locker, error) // s.Conn() for the locks before 04
	// jvm marks Curator, which runs in a JVM (curator.go) instead of
	// through new.
	jvm bool
}

// kinds are the locks the bench knows, in the order of the course.
var kinds = []lockKind{
	{name: "02", about: "02-naive-lock: create the node, retry every 20 ms", new: func(s *seqlock.Session, p string) (locker, error) {
		return naivelock.New(s.Conn(), p)
	}},
	{name: "03", about: "03-watch-lock: create the node, else exists-watch it and wait", new: func(s *seqlock.Session, p string) (locker, error) {
		return watchlock.New(s.Conn(), p)
	}},
	{name: "04", about: "04-sequential-lock: ephemeral-sequential node, watch the predecessor", dir: true,
		new: func(s *seqlock.Session, p string) (locker, error) {
			return seqlock.New(s, p)
		}},
	{name: "gozk", about: "go-zookeeper's zk.Lock (v1.0.4): ephemeral-sequential, GetW on the predecessor", dir: true,
		new: func(s *seqlock.Session, p string) (locker, error) {
			return gozkLock{zk.NewLock(s.Conn(), p, zk.WorldACL(zk.PermAll))}, nil
		}},
	{name: "curator", about: "Apache Curator's InterProcessMutex (Java): the same queue, a JVM beside the bench", dir: true, jvm: true},
}

// gozkLock adapts zk.Lock, which takes no context: its Lock cannot be
// cancelled, so a row's time budget only stops new attempts.
type gozkLock struct{ l *zk.Lock }

func (g gozkLock) Lock(context.Context) error   { return g.l.Lock() }
func (g gozkLock) Unlock(context.Context) error { return g.l.Unlock() }

func kindNamed(name string) (lockKind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return lockKind{}, false
}
