// Package fencing protects a resource from a lock holder that no longer
// holds the lock but does not know it yet.
//
// A lock tells its holder "you had the lock when I last looked". Between
// that look and the holder's next write, the holder can stop for any length
// of time: a stop-the-world garbage collection, a page fault on a swapped-out
// heap, a VM migration, a SIGSTOP. ZooKeeper sees a silent client, expires
// its session after the session timeout, deletes its lock node and gives the
// lock to the next in line. When the paused holder runs again, it carries on
// exactly where it stopped: it writes. No check made on the client before
// the write can help, because the pause can fall between the check and the
// write. The check has to happen where the write lands.
//
// This package shows the two ways to move the check there:
//
//   - Store: the resource itself keeps the newest fencing token it has seen
//     and refuses writes with an older one (Martin Kleppmann's "fencing
//     tokens"). The token is chapter 04's Token(): the lock directory's
//     pzxid when the holder found itself first, which only grows
//     (docs/concepts.md defines it once for every chapter).
//   - SetIfHeld: when the data lives in ZooKeeper, the write goes in one
//     multi with a check that the writer's lock node still exists. The
//     server applies both or neither, so a holder whose node is gone cannot
//     write at all.
//
// Package sqlfence, beside this one, makes Store's check in a real database:
// one conditional UPDATE, with the token kept in the row.
package fencing

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

var (
	// ErrStaleToken is returned by Store.Write when the store has already
	// seen a newer token: a later holder has written since.
	ErrStaleToken = errors.New("fencing: stale token")
	// ErrNoToken is returned by Store.Write for a token ≤ 0. Chapter 04's
	// Token() is 0 when the Mutex does not hold the lock, so a writer that
	// never held it is refused too.
	ErrNoToken = errors.New("fencing: no token")
	// ErrNotHeld is returned by SetIfHeld when the writer's lock node does
	// not exist (any more): the lock is not held by this writer. It is
	// chapter 04's seqlock.ErrNotHeld, the one "not held" of every chapter.
	ErrNotHeld = seqlock.ErrNotHeld
)

// Store is a tiny stand-in for a resource outside ZooKeeper (a database
// row, as in package sqlfence; a file server, an object store) that takes
// part in fencing: it remembers the newest token it has seen and refuses
// anything older. The zero Store is empty and ready to use; it is safe for
// concurrent use.
type Store struct {
	mu     sync.Mutex
	newest int64  // the highest token a write has carried
	value  string // the value that write stored
}

// Write stores value if token is at least as new as every token seen so
// far, and returns an error wrapping ErrStaleToken otherwise.
//
// An equal token is accepted: a token belongs to one hold of the lock (two
// holds of a mutex never share one), so an equal token is the same holder writing
// again, and a holder may write many times while it holds the lock. A lower
// token can only come from a holder whose hold ended before the newest
// writer's began.
//
// The comparison and the store happen under one mutex. That is the whole
// point: a check followed by a separate write would have the very gap the
// lock holder had.
func (s *Store) Write(token int64, value string) error {
	if token <= 0 {
		return fmt.Errorf("fencing: write with token %d: %w", token, ErrNoToken)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.newest {
		return fmt.Errorf("fencing: write with token %d: %w: the store has seen token %d", token, ErrStaleToken, s.newest)
	}
	s.newest, s.value = token, value
	return nil
}

// Read returns the stored value and the token of the write that stored it
// ("", 0 before the first write).
func (s *Store) Read() (value string, token int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value, s.newest
}

// SetIfHeld sets the data of the znode at path to data, but only if
// lockNode (the writer's own lock node, chapter 04's Node()) still exists.
// Both go to the server in one multi: a check on lockNode, then the set.
// ZooKeeper applies a multi atomically, so there is no moment between the
// check and the write in which the lock can change hands.
//
// If lockNode is gone — its session expired while the holder was paused,
// or the holder unlocked — the write is refused and nothing changes; the
// error wraps ErrNotHeld and zk.ErrNoNode. lockNode "" (what Node() returns
// when the Mutex holds nothing) is refused without asking the server. Any
// other failure of the set (path missing: zk.ErrNoNode without ErrNotHeld)
// is returned wrapped.
//
// Why existence is enough: a lock node's name carries a random UUID and a
// sequence number, so once deleted it is never created again by anyone.
// The check's version is -1, which skips only the version comparison; the
// server still fails the check with NoNode when the node does not exist
// (TestCheckWithAnyVersionStillNeedsTheNode proves it on a real server).
//
// go-zookeeper calls take no context. If ctx ends first, SetIfHeld returns
// ctx's error while the multi may still be applied later; it is still
// fenced: it lands only if lockNode exists when the server applies it.
func SetIfHeld(ctx context.Context, conn *zk.Conn, lockNode, path string, data []byte) (*zk.Stat, error) {
	if conn == nil {
		return nil, fmt.Errorf("fencing: %w", seqlock.ErrNilConn)
	}
	if err := zkpath.Validate(path); err != nil {
		return nil, fmt.Errorf("fencing: data path: %w", err)
	}
	if lockNode == "" {
		return nil, fmt.Errorf("fencing: set %s: %w: no lock node", path, ErrNotHeld)
	}
	if err := zkpath.Validate(lockNode); err != nil {
		return nil, fmt.Errorf("fencing: lock node: %w", err)
	}
	// zkcall.Do sends the multi unless ctx has ended, in a goroutine, and
	// stops waiting for it when ctx ends (go-zookeeper takes no context).
	type result struct {
		res []zk.MultiResponse
		err error
	}
	r, err := zkcall.Do(ctx, func() (result, error) {
		res, err := conn.Multi(
			// Op 0: fails with NoNode if our lock node is gone.
			&zk.CheckVersionRequest{Path: lockNode, Version: -1},
			// Op 1: the write itself, applied only if op 0 passed.
			&zk.SetDataRequest{Path: path, Data: data, Version: -1},
		)
		return result{res, err}, nil // the multi's error is read below, with its results
	})
	if err != nil {
		return nil, err // ctx ended
	}

	// When a multi fails, the server reports every op: the one that
	// failed carries its error, the others none or "runtime
	// inconsistency". So the check's own result tells a lost lock apart
	// from a problem with the data node.
	if len(r.res) == 2 && errors.Is(r.res[0].Error, zk.ErrNoNode) {
		return nil, fmt.Errorf("fencing: set %s: %w: lock node %s: %w", path, ErrNotHeld, lockNode, zk.ErrNoNode)
	}
	if r.err != nil {
		return nil, fmt.Errorf("fencing: set %s while holding %s: %w", path, lockNode, r.err)
	}
	if len(r.res) != 2 {
		return nil, fmt.Errorf("fencing: set %s while holding %s: %d results for 2 ops", path, lockNode, len(r.res))
	}
	return r.res[1].Stat, nil
}
