// -tags workshop compiles the learner's lock_workshop.go instead of this file.
//go:build !workshop

package naivelock

// This file is chapter 02's lesson, the "While version", in the README's
// four steps; the rest of the package is plumbing. The workshop exercise
// (lock_workshop.go, next to this file) replaces exactly this file.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// Lock blocks until this Lock holds the lock or ctx ends: step 3, try
// again and again.
func (l *Lock) Lock(ctx context.Context) error {
	waiting := false
	for {
		err := l.TryLock(ctx)
		if !errors.Is(err, ErrLocked) {
			return err // acquired (nil), or a real error
		}
		if !waiting {
			// Say it once per Lock; the requests that follow tell the rest.
			l.waiting()
			waiting = true
		}
		// The "while" of the While version. We have no idea when the
		// holder will let go, so we guess: too short and we flood
		// ZooKeeper with creates that fail, too long and the lock sits
		// free while we sleep.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(l.retry):
		}
	}
}

// attempt is steps 1 and 2: create the lock node; if that worked, we hold
// the lock. NodeExists means somebody else does.
func (l *Lock) attempt(ctx context.Context) error {
	// A fresh random token per attempt: it goes into the node as its data,
	// so Unlock can tell our node from one somebody else created later.
	token := newToken()
	err := l.create(ctx, token)
	switch {
	case err == nil:
		l.token = token
		l.acquired()
		return nil
	case errors.Is(err, zk.ErrNodeExists):
		return ErrLocked
	case ctx.Err() != nil:
		return err
	default:
		return fmt.Errorf("naivelock: create lock node %s: %w", l.path, err)
	}
}

// deleteIfOurs is step 4, the compare-and-delete: get the node, check the
// token, delete with the version we read.
//
// What tells our node from a newcomer's at the same path is what the get
// returns: the data (our token; the node's creation zxid, stat.Czxid, or
// its owner, stat.EphemeralOwner, would tell as well). The version does
// not: a node deleted and created again starts again at version 0, so the
// version we read also matches somebody else's new node. It only refuses
// the delete if the data changed in between, which no contender does.
//
// And a window remains between the get and the delete: if our node goes
// (our session expired) and somebody locks in between, our delete removes
// their node. Nothing closes it on a fixed path — a multi can check only a
// version — and TestAVersionCannotTellARecreatedNode measures it. Chapter
// 04 closes it another way: every contender's node has a name the server
// never gives again, so a delete can only meet our own node.
func (l *Lock) deleteIfOurs(token string) error {
	data, stat, err := l.get()
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return ErrNotHeld
	case err != nil:
		return fmt.Errorf("naivelock: read lock node %s: %w", l.path, err)
	case string(data) != token:
		return ErrNotHeld
	}
	err = l.delete(stat.Version)
	switch {
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
		return ErrNotHeld
	case err != nil:
		return fmt.Errorf("naivelock: delete lock node %s: %w", l.path, err)
	}
	return nil
}
