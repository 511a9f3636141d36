package seqlock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// The lock directory: a container node, made when missing (with its
// parents), once per Session however many goroutines join at that moment.

// ensureDir makes sure the lock directory exists before we create our node
// in it, the first time this Session uses it, and only once however many
// goroutines join at that moment: a thousand goroutines arriving together
// on a fresh directory would otherwise each fail a create, each create the
// directory, and each create again.
//
// The first joiner of the Session is the probe (probe true): usually the
// directory exists already (another Session made it), so it just sends its
// create, and settleDir makes the directory only if that create said
// ErrNoNode. The others wait for the probe's answer. Later joins skip all
// this (Session.dirs); if the directory was reaped since, their create
// fails with ErrNoNode and join creates it again.
func (q *Queue) ensureDir(ctx context.Context) (probe bool, err error) {
	if v, ok := q.s.dirs.Load(q.dir); ok && isClosed(v.(*dirCreation).done) {
		return false, nil // known: the usual case, no allocation
	}
	c := &dirCreation{done: make(chan struct{})}
	if v, loaded := q.s.dirs.LoadOrStore(q.dir, c); loaded {
		c = v.(*dirCreation)
		select {
		case <-c.done: // settled (or not: then our create says so)
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return true, nil
}

// settleDir ends the probe of ensureDir: created is what the probe's create
// answered. ErrNoNode: make the directory now. Success: it exists. Anything
// else says nothing; the next joiner probes again.
func (q *Queue) settleDir(ctx context.Context, created error) error {
	v, _ := q.s.dirs.Load(q.dir)
	c := v.(*dirCreation)
	defer close(c.done)
	var err error
	if errors.Is(created, zk.ErrNoNode) {
		err = q.createDir(ctx)
	}
	if err != nil || (created != nil && !errors.Is(created, zk.ErrNoNode)) {
		q.s.dirs.Delete(q.dir)
	}
	return err
}

type dirCreation struct{ done chan struct{} }

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// createDir creates the lock directory and any missing parent as CONTAINER
// nodes: the server deletes a container once its last child is gone, so
// lock directories do not pile up. The price is the race handled in join:
// the directory can vanish between this call and our create.
func (q *Queue) createDir(ctx context.Context) error {
	for p, i := q.dir, 0; ; i++ {
		q.emit(event.Request, "create", p, "container")
		_, err := call(ctx, func() (string, error) {
			return q.conn.CreateContainer(p, nil, zk.FlagContainer, q.opts.ACL)
		})
		switch {
		case err == nil || errors.Is(err, zk.ErrNodeExists):
			if p == q.dir {
				return nil
			}
			p = q.dir // the parents exist now: create the directory itself
		case errors.Is(err, zk.ErrNoNode) && i < 64:
			p = p[:strings.LastIndexByte(p, '/')] // the parent is missing: create it first
		case errors.Is(err, zk.ErrConnectionClosed) && q.conn.State() != zk.StateDisconnected && i < 64:
			// The reply was lost; creating a directory again is harmless
			// (ErrNodeExists counts as done), so send it again.
		default:
			return fmt.Errorf("seqlock: create lock directory %s: %w", p, q.s.explain(err))
		}
	}
}
