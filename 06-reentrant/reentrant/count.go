// -tags workshop compiles the learner's count_workshop.go instead of this file.
//go:build !workshop

package reentrant

import (
	"context"
	"fmt"
)

// The lesson of chapter 06: a hold count on top of chapter 04's lock. The
// first Lock takes the lock in ZooKeeper; every further Lock of the same
// owner only counts, after checking the hold is still real; every Unlock
// counts down, and only the last one deletes our node. (The workshop
// exercise replaces this file: count_workshop.go, next to it.)

// acquire is Lock and TryLock, run in this Mutex's turn: take is the lock
// underneath's Lock or TryLock.
func (m *Mutex) acquire(ctx context.Context, take func(context.Context) error) error {
	if depth := m.depth.Load(); depth > 0 {
		// Re-entry. This is where Curator's users got hurt: a count in
		// memory says "you hold it" while ZooKeeper may have expired the
		// session and given the lock to someone else long ago. Two cheap,
		// local checks — no request — before we believe the count:
		if reason := m.lostReason(); reason != "" {
			m.info(fmt.Sprintf("re-entry refused at depth %d: %s", depth, reason))
			return fmt.Errorf("reentrant: re-enter %s at depth %d: %w: %s", m.lock.Node(), depth, ErrLost, reason)
		}
		m.depth.Store(depth + 1)
		m.info(fmt.Sprintf("re-entered, depth %d", depth+1))
		return nil
	}

	// First entry: the real lock, exactly as in chapter 04.
	// Its errors already say what failed ("seqlock: …"): pass them on.
	if err := take(ctx); err != nil {
		return err
	}
	m.session = m.conn.SessionID()
	m.depth.Store(1)
	return nil
}

// release is Unlock, run in this Mutex's turn: one level down. Only the
// last one (depth 1 → 0) deletes our node in ZooKeeper and lets the next
// owner in. An error wrapping ErrLost if the hold was lost — at every
// depth, so each level of a nested critical section learns that it was not
// protected; the depth still goes down by one, and the last release cleans
// up as usual.
func (m *Mutex) release(ctx context.Context) error {
	depth := m.depth.Load()
	switch {
	case depth == 0:
		return ErrNotHeld
	case depth > 1:
		m.depth.Store(depth - 1)
		if reason := m.lostReason(); reason != "" {
			m.info(fmt.Sprintf("left depth %d of a lost lock", depth))
			return fmt.Errorf("reentrant: unlock %s at depth %d: %w: %s", m.lock.Node(), depth, ErrLost, reason)
		}
		m.info(fmt.Sprintf("left depth %d, still held at depth %d", depth, depth-1))
		return nil
	}

	// The last Unlock: chapter 04 deletes our node (and reports a loss).
	// The depth drops to 0 whatever happens: seqlock forgets the hold too,
	// and a Mutex that is stuck believing it holds would be worse.
	m.depth.Store(0)
	return m.lock.Unlock(ctx)
}
