package seqlock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// Step 1 of the recipe: join the queue with an EPHEMERAL_SEQUENTIAL node,
// protected by a UUID in its name, so that a create whose reply was lost is
// found again rather than made twice.

// join creates our node and returns its full path and the session that
// owns it.
//
// Three things can go wrong between us and the server, and each has its
// answer:
//   - ErrNoNode: the lock directory does not exist (first use, or it was an
//     empty container and the server reaped it). Create it and try again.
//   - ErrConnectionClosed: the connection dropped after we sent the create.
//     The node may exist on the server even though we never saw the reply.
//     Look for a child carrying our UUID; create again only if there is none
//     (a second node would be an orphan that blocks the queue).
//   - ErrSessionExpired: the node, if created, died with the session.
//     Create again (the conn has a new session by now).
func (q *Queue) join(ctx context.Context) (node string, session int64, err error) {
	prefix := q.dir + "/" + protectedPrefix() + q.name
	probe, err := q.ensureDir(ctx)
	if err != nil {
		return "", 0, err
	}
	for attempt := 0; attempt < 5; attempt++ {
		before := q.conn.SessionID()
		q.emit(event.Request, "create", prefix, "")
		node, err = q.create(ctx, prefix)
		session = q.conn.SessionID()
		if probe {
			// Our create told whether the directory exists: settle it
			// for the goroutines of this Session waiting in ensureDir.
			probe = false
			if derr := q.settleDir(ctx, err); derr != nil {
				return "", 0, derr
			}
			if errors.Is(err, zk.ErrNoNode) {
				continue // settleDir made the directory: create again
			}
		}
		switch {
		case err == nil && session == before:
			return node, session, nil
		case err == nil, errors.Is(err, zk.ErrConnectionClosed):
			// No reply, or a new session while we waited for one: which
			// session's node, if any, do we have? Look for our UUID.
			found, ferr := q.findOurs(ctx, prefix, session)
			if ferr != nil && node == "" && errors.Is(q.sessionGone(ctx, before, ferr), errNodeGone) {
				// The session the create was sent in ended meanwhile: its
				// node, if the create made one, died with it. Nothing to
				// look for: create again in the new session.
				continue
			}
			if ferr != nil {
				return "", 0, q.giveUp(node, prefix, session, fmt.Errorf("seqlock: create %s: %v; then looking for it: %w", prefix, err, ferr))
			}
			if found != "" {
				if err != nil {
					q.emit(event.Info, "", found, "create reply lost; found our node by its UUID")
				}
				return found, session, nil
			}
		case errors.Is(err, zk.ErrNoNode):
			if err = q.createDir(ctx); err != nil {
				return "", 0, err
			}
		case errors.Is(err, zk.ErrSessionExpired):
		case errors.Is(err, zk.ErrNoServer):
			// Never sent: go-zookeeper fails the requests it has not sent
			// yet with ErrNoServer each time it has tried every server
			// (once a second). Nothing was created: send it again.
		default:
			return "", 0, fmt.Errorf("seqlock: create %s: %w", prefix, q.s.explain(err))
		}
	}
	return "", 0, fmt.Errorf("seqlock: create %s: gave up: %w", prefix, err)
}

// giveUp makes sure join leaves nothing behind when it returns err. It
// removes node if we know it. If we don't (the create's reply was lost and
// the lookup failed too: the server is out of reach, or ctx ended), the
// create may still have made a node in our live session, an orphan that
// would block the queue: so it keeps looking for it in the background, as
// long as the session can live, and removes it once found. The caller
// waits at most cleanupWait.
func (q *Queue) giveUp(node, prefix string, session int64, err error) error {
	if node != "" {
		q.remove(node)
		return err
	}
	cleaned := make(chan struct{})
	go func() {
		defer close(cleaned)
		ctx, cancel := context.WithTimeout(context.Background(), guaranteedDeleteFor)
		defer cancel()
		if found, ferr := q.findOurs(ctx, prefix, session); ferr == nil && found != "" {
			q.remove(found)
		}
	}()
	select {
	case <-cleaned:
	case <-time.After(cleanupWait):
	}
	return err
}

// protectedPrefix is Curator's protection for a create: "_c_", a random
// version-4 UUID, "-". go-zookeeper's zk.Lock and Curator find the order
// in the sequence suffix, so all three can share a directory.
func protectedPrefix() string { return "_c_" + randhex.UUID() + "-" }

// create sends one create. go-zookeeper calls take no context, so
// zkcall.Send stops waiting when ctx ends (see call in call.go for where
// the call runs). The create may still land: Send hands its late answer to
// cleanUp, which deletes whatever it created, and we wait (briefly) for that.
func (q *Queue) create(ctx context.Context, prefix string) (string, error) {
	cleaned := make(chan struct{})
	cleanUp := func(node string, err error) {
		defer close(cleaned)
		if errors.Is(err, zk.ErrConnectionClosed) {
			node, err = q.findOurs(context.Background(), prefix, q.conn.SessionID())
		}
		if err == nil && node != "" {
			q.remove(node)
		}
	}
	node, err := zkcall.Send(ctx, func() (string, error) {
		return q.conn.Create(prefix, q.opts.Data, zk.FlagEphemeral|zk.FlagSequence, q.opts.ACL)
	}, cleanUp)
	if cerr := ctx.Err(); err != nil && cerr != nil && errors.Is(err, cerr) {
		select { // normally milliseconds; never wait long past ctx
		case <-cleaned:
		case <-time.After(cleanupWait):
		}
	}
	return node, err
}

// findOurs looks for the node whose name carries prefix's UUID.
func (q *Queue) findOurs(ctx context.Context, prefix string, session int64) (string, error) {
	queue, _, err := q.list(ctx, session)
	if err != nil {
		return "", err
	}
	want := event.Short(prefix)
	for _, n := range queue {
		if strings.HasPrefix(n.Name, want) {
			return q.dir + "/" + n.Name, nil
		}
	}
	return "", nil
}
