package rwlock

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// This file is chapter 04's plumbing around a lock node, repeated here so
// the chapter reads on its own: create it without ever orphaning it, and
// delete it when we give up.

// create makes our node. As in chapter 04 the create runs beside ctx: if we
// give up while it is on its way, the node is deleted once it exists, so
// no orphan blocks the queue.
func (s *Side) create(ctx context.Context) (string, error) {
	type created struct {
		node string
		err  error
	}
	done := make(chan created, 1)
	go func() {
		node, err := s.createProtected()
		done <- created{node, err}
	}()
	select {
	case c := <-done:
		return c.node, c.err
	case <-ctx.Done():
		go func() {
			if c := <-done; c.err == nil {
				s.abandon(c.node, nil)
			}
		}()
		return "", ctx.Err()
	}
}

func (s *Side) createProtected() (string, error) {
	prefix := protectedPrefix()
	want := s.m.dir + "/" + prefix + s.marker
	var err error
	for range 3 {
		s.emit(event.Event{Kind: event.Request, Op: "create", Node: want})
		var node string
		node, err = s.m.conn.Create(want, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		switch {
		case err == nil:
			return node, nil
		case errors.Is(err, zk.ErrNoNode):
			if err = s.makeDir(s.m.dir); err != nil {
				return "", err
			}
		case errors.Is(err, zk.ErrConnectionClosed):
			// The create may have reached the server before the connection
			// dropped: our protected prefix tells us if it did.
			if children, _, lerr := s.m.conn.Children(s.m.dir); lerr == nil {
				for _, c := range children {
					if strings.HasPrefix(c, prefix) {
						return s.m.dir + "/" + c, nil
					}
				}
			}
		default:
			return "", fmt.Errorf("create lock node under %s: %w", s.m.dir, err)
		}
	}
	return "", fmt.Errorf("create lock node under %s: %w", s.m.dir, err)
}

// makeDir creates the lock directory p, and its parents if they are
// missing too, as ordinary persistent nodes. Curator makes them container
// nodes, which ZooKeeper deletes once they are empty; but a new directory
// numbers its children from 0 again, and our tokens would go backwards.
func (s *Side) makeDir(p string) error {
	s.emit(event.Event{Kind: event.Request, Op: "create", Node: p})
	_, err := s.m.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
	if errors.Is(err, zk.ErrNoNode) {
		if err = s.makeDir(path.Dir(p)); err == nil {
			s.emit(event.Event{Kind: event.Request, Op: "create", Node: p})
			_, err = s.m.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
		}
	}
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("create lock directory %s: %w", p, err)
	}
	return nil
}

// abandon deletes a node we will not hold and returns why we gave up.
func (s *Side) abandon(node string, why error) error {
	s.emit(event.Event{Kind: event.Request, Op: "delete", Node: node})
	if err := s.m.conn.Delete(node, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return errors.Join(why, fmt.Errorf("delete %s (it goes when the session ends): %w", node, err))
	}
	return why
}
