// Package znode makes and removes whole paths of znodes: a path with the
// parents it lacks, and a node with everything below it. Demos, tests, the
// visualizer and chapter 02 share it.
package znode

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// CreateParents creates p's missing ancestors, top first, as persistent
// nodes with acl; an ancestor that exists already is fine. sent, if not
// nil, is told each path just before its create goes out (chapter 02
// reports its requests to its observer). It stops waiting when ctx ends; a
// parent created after that stays, as parents do.
func CreateParents(ctx context.Context, conn *zk.Conn, p string, acl []zk.ACL, sent func(node string)) error {
	_, err := createParents(ctx, conn, p, acl, sent)
	return err
}

// createParents is CreateParents that also says which parents it created.
func createParents(ctx context.Context, conn *zk.Conn, p string, acl []zk.ACL, sent func(node string)) (made []string, err error) {
	var parents []string
	for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
		parents = append([]string{d}, parents...)
	}
	for _, d := range parents {
		if sent != nil {
			sent(d)
		}
		_, err := zkcall.Do(ctx, func() (string, error) { return conn.Create(d, nil, 0, acl) })
		switch {
		case err == nil:
			made = append(made, d)
		case errors.Is(err, zk.ErrNodeExists):
		case errors.Is(err, zk.ErrNoAuth) && exists(ctx, conn, d):
			// The server checks the parent's ACL before it looks for the
			// node: an ancestor we may not write to (a class's tree above
			// a learner's subtree) answers NoAuth even though it exists.
		default:
			return made, fmt.Errorf("create parent %s: %w", d, err)
		}
	}
	return made, nil
}

// CreateAll creates p, persistent and empty, and the parents it lacks; a p
// that exists already is fine. made lists what it created, parents first,
// so a caller can remove exactly that again. Another client may delete an
// empty parent between two of our creates: then it starts over, up to five
// times.
func CreateAll(ctx context.Context, conn *zk.Conn, p string, acl []zk.ACL) (made []string, err error) {
	for range 5 {
		var parents []string
		parents, err = createParents(ctx, conn, p, acl, nil)
		made = append(made, parents...)
		if err == nil {
			_, err = zkcall.Do(ctx, func() (string, error) { return conn.Create(p, nil, 0, acl) })
			if err == nil {
				made = append(made, p)
			}
		}
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			return made, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return made, fmt.Errorf("create %s: %w", p, err)
		}
	}
	return made, fmt.Errorf("create %s: its parent keeps disappearing", p)
}

// DeleteTree deletes p and everything below it; a missing node is fine.
// (Demos, the bench, the visualizer and the tests all clean up with it.)
func DeleteTree(conn *zk.Conn, p string) error {
	children, _, err := conn.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := DeleteTree(conn, path.Join(p, c)); err != nil {
			return err
		}
	}
	if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}

func exists(ctx context.Context, conn *zk.Conn, p string) bool {
	ok, err := zkcall.Do(ctx, func() (bool, error) {
		ok, _, err := conn.Exists(p)
		return ok, err
	})
	return err == nil && ok
}
