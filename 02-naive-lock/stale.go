package main

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

var (
	staleOnce sync.Once
	staleErr  error
)

// checkStale runs once, before any worker locks. A persistent node at the
// lock path (whatever mode this run uses) is either held right now by a
// -persistent run in another terminal, or was left by one that crashed —
// ZooKeeper cannot tell the two apart, and that is this chapter's flaw. In
// the second case nothing will ever delete it, so instead of letting every
// worker poll for ever we stop and say how to delete it; -reset deletes it.
//
// An ephemeral node there is fine: it belongs to a live session, and it
// goes away when that session ends.
func checkStale(conn *zk.Conn, path string) error {
	staleOnce.Do(func() {
		mode := "an ephemeral node (freed when its session ends)"
		if persistent {
			mode = "a persistent node (outlives its session)"
		}
		fmt.Printf("lock node: %s; waiters retry every %v\n", mode, retry)
		staleErr = findStale(conn, path)
	})
	return staleErr
}

func findStale(conn *zk.Conn, path string) error {
	ok, stat, err := conn.Exists(path)
	if err != nil {
		return fmt.Errorf("check for a stale lock node at %s: %w", path, err)
	}
	if !ok || stat.EphemeralOwner != 0 {
		return nil
	}
	created := time.UnixMilli(stat.Ctime).Format(time.DateTime)
	if reset {
		if err := conn.Delete(path, stat.Version); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("-reset: delete stale lock node %s: %w", path, err)
		}
		fmt.Printf("-reset: deleted the persistent lock node %s (created %s)\n", path, created)
		return nil
	}
	fmt.Printf(`a persistent lock node %s (created %s) already exists.
  Either another -persistent run holds the lock right now, or a run crashed while holding it
  and the lock is stuck for ever (this chapter's flaw: nobody else will ever delete it).
  If no other run is using it, delete it:  go run ./02-naive-lock -reset -path %s [-servers …]
  or with zkCli.sh:                       delete %s
`, path, created, path, path)
	return fmt.Errorf("stale persistent lock node %s: not waiting for ever (see above)", path)
}
