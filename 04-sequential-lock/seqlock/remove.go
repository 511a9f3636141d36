package seqlock

import (
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// Giving up our place: a node of ours left behind would block the queue.

// remove deletes a node of ours that we no longer want (a cancelled Lock, a
// TryLock that lost, an Unlock whose delete failed). A leftover node would
// block the whole queue for as long as our session lives, so this is what
// Curator calls a guaranteed delete: if the answer is "the connection
// dropped", it keeps trying in the background until the delete succeeds,
// the node is gone, or our session (and so the node) is over. The caller
// waits at most cleanupWait; remove reports whether the node is known to be
// gone by then (false: the delete is still being retried in the background).
func (q *Queue) remove(node string) (gone bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		session := q.conn.SessionID()
		deadline := time.Now().Add(guaranteedDeleteFor)
		for {
			state := q.conn.State()
			q.emit(event.Request, "delete", node, "")
			err := q.conn.Delete(node, -1)
			switch {
			case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrClosing):
				return
			case errors.Is(err, zk.ErrConnectionClosed) && state == zk.StateDisconnected:
				// A conn that was closed fails at once, without trying; a
				// live one would have queued the request until it
				// reconnected. The session is closed, the node with it.
				return
			case q.conn.SessionID() != session, time.Now().After(deadline):
				return // a new session: the old one, and our node, expired
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	select {
	case <-done:
		return true
	case <-time.After(cleanupWait):
		return false
	}
}

// guaranteedDeleteFor bounds remove's retries: no session outlives the
// server's maxSessionTimeout (40 s by default, 60 s on our test server) of
// silence. cleanupWait bounds how long a caller waits for it.
const (
	guaranteedDeleteFor = 60 * time.Second
	cleanupWait         = 5 * time.Second
)
