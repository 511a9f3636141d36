package arena_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

// Two wrong locks a room of learners will bring to the arena. Both pass a
// quiet run; only the arena's crowd, or its host, tells them apart.

// herd is chapter 04 with chapter 03's habit: every waiter watches the
// lowest node, not the one just before its own. It is still correct — a
// waiter woken by any release lists the queue again and holds only at
// index 0 — just noisy: one release wakes every waiter. It must never be
// caught.
func herd(queue []seqlock.Node, ours int) (bool, string) {
	if ours == 0 {
		return true, ""
	}
	return false, queue[0].Name
}

// skipLook is chapter 04 with step 4's last half missing: when the watch
// on its predecessor fires, it holds, without listing the queue again
// (waitTurn returning after q.waitFor instead of going round the loop).
// A predecessor that goes because it let go after holding leaves it first
// in line, so a quiet run passes. A predecessor that goes without having
// held — a waiter that gave up, or was taken out — lets it in while the
// holder ahead is still inside. Written on go-zookeeper directly, with
// seqlock's node names, so it queues with everyone else.
type skipLook struct {
	conn *zk.Conn
	dir  string
	name string // the learner's name: the node's data, as LockOptions writes it

	mu   sync.Mutex
	node string
}

func (l *skipLook) Lock(ctx context.Context) error {
	node, err := l.conn.Create(path.Join(l.dir, "_c_"+randhex.UUID()+"-lock-"), []byte(l.name), zk.FlagEphemeral|zk.FlagSequence, arena.NodeACL())
	if err != nil {
		return fmt.Errorf("skipLook: join: %w", err)
	}
	children, _, err := l.conn.Children(l.dir)
	if err != nil {
		return fmt.Errorf("skipLook: list: %w", err)
	}
	queue := zkpath.Queue(children, "lock-")
	for i, c := range queue {
		if path.Join(l.dir, c) != node || i == 0 {
			continue
		}
		ok, _, changed, err := l.conn.ExistsW(path.Join(l.dir, queue[i-1]))
		if err != nil {
			return fmt.Errorf("skipLook: watch: %w", err)
		}
		if ok {
			select {
			case <-changed:
				// The mistake: "my predecessor is gone, so I hold".
			case <-ctx.Done():
				l.conn.Delete(node, -1)
				return ctx.Err()
			}
		}
	}
	l.mu.Lock()
	l.node = node
	l.mu.Unlock()
	return nil
}

func (l *skipLook) Unlock(ctx context.Context) error {
	l.mu.Lock()
	node := l.node
	l.node = ""
	l.mu.Unlock()
	if node == "" {
		return seqlock.ErrNotHeld
	}
	if err := l.conn.Delete(node, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}

func (l *skipLook) Node() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.node
}
