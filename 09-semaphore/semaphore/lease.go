package semaphore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// Lease is one of the n leases, held from Acquire to Release. Its Node,
// Token, Lost and Release are its lock's: a lease is chapter 04's Mutex
// with the rule Leases(n), locked once.
type Lease struct {
	m       *seqlock.Mutex
	conn    *zk.Conn
	revoked chan struct{}
	once    sync.Once
}

// Node is the lease's node, as a full path.
func (l *Lease) Node() string { return l.m.Node() }

// Token is the lease's fencing token (chapter 04's definition).
func (l *Lease) Token() int64 { return l.m.Token() }

// Lost is closed when the lease is lost without Release.
func (l *Lease) Lost() <-chan struct{} { return l.m.Lost() }

// Release gives the lease back by deleting its node: ErrNotHeld if it was
// released already, an error wrapping ErrLost if it was lost before.
func (l *Lease) Release(ctx context.Context) error { return l.m.Unlock(ctx) }

// Revoked is closed when another client asks for this lease back (Revoke)
// and the Semaphore was made WithRevocable. It is a request, not a kill:
// the holder decides to finish and Release — or not (see the README's
// flaw). Without WithRevocable it never closes.
func (l *Lease) Revoked() <-chan struct{} { return l.revoked }

// revokeMessage is what Curator's Revoker writes into a lock node to ask
// its holder to let go, so a Curator holder and ours understand each other.
const revokeMessage = "__REVOKE__"

// watchRevocation watches our lease node's data, as Curator's revocable
// locks do: a revocation request is a write of revokeMessage into it.
//
// A watch lives as long as the session, across reconnects (the client sets
// it again on the new connection), so only the read that sets it can fail
// on a dropped connection; zkcall.Retry sends it again while our session
// lives, and one dropped connection does not end the watching for good.
// It ends when the node goes (Release, or the session expired: our lease
// is lost then) or the conn is closed.
func (l *Lease) watchRevocation(s *Semaphore) {
	node := l.Node()
	type reading struct {
		data  []byte
		watch <-chan zk.Event
	}
	go func() {
		for {
			r, err := zkcall.Retry(context.Background(), l.conn, l.conn.SessionID(), func() (reading, error) {
				s.emit(event.Request, "get", node, "our lease")
				data, _, watch, err := l.conn.GetW(node)
				return reading{data, watch}, err
			})
			if err != nil {
				return // gone (released or lost), a new session, or the conn closed
			}
			s.emit(event.WatchSet, "get", node, "our lease")
			if string(r.data) == revokeMessage {
				l.once.Do(func() {
					s.emit(event.Info, "", node, "revocation requested")
					close(l.revoked)
				})
				return
			}
			if ev := <-r.watch; ev.Type != zk.EventNodeDataChanged {
				return // deleted, or the session ended (EventNotWatching)
			}
		}
	}()
}

// Revoke asks the holder of the lease node (one of Semaphore.Holders) to
// release it, by writing Curator's revocation message into the node. It
// returns ErrNotHeld if that lease is gone already.
func Revoke(ctx context.Context, conn *zk.Conn, node string) error {
	if conn == nil {
		return fmt.Errorf("semaphore: revoke: %w", seqlock.ErrNilConn)
	}
	if err := zkpath.Validate(node); err != nil {
		return fmt.Errorf("semaphore: revoke: %w", err)
	}
	// zkcall.Do: go-zookeeper takes no context; Revoke stops waiting when
	// ctx ends (the write may still land: asking twice is harmless).
	_, err := zkcall.Do(ctx, func() (*zk.Stat, error) { return conn.Set(node, []byte(revokeMessage), -1) })
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("semaphore: revoke %s: %w", node, ErrNotHeld)
	}
	if err != nil {
		return fmt.Errorf("semaphore: revoke %s: %w", node, err)
	}
	return nil
}
