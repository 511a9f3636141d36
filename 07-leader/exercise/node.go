package leader

// This file is the plumbing of election.go: creating, finding and deleting
// our candidate node, reading the queue, and making go-zookeeper's calls
// honour a context. The same ideas as chapter 04, repeated on purpose so
// this chapter stands on its own.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
)

// join is step 1. As in chapter 04, the node's name starts with a random
// guid ("_c_<guid>-n_0000000007"), the "protected" form: if the connection
// drops before the answer to our create arrives, the create may or may not
// have happened, and the guid is how we find out.
func (e *Election) join(ctx context.Context, value string) (string, error) {
	guid := make([]byte, 16)
	rand.Read(guid)
	prefix := e.dir + "/_c_" + hex.EncodeToString(guid) + "-n_"
	type created struct {
		node string
		err  error
	}
	ch := make(chan created, 1)
	go func() {
		node, err := e.create(prefix, value)
		ch <- created{node, err}
	}()
	select {
	case c := <-ch:
		return c.node, c.err
	case <-ctx.Done():
		// The create may still succeed after we stopped waiting: delete
		// the node then, or it would sit in the queue until our session ends.
		go func() {
			if c := <-ch; c.err == nil {
				e.deleteOwn(c.node)
			}
		}()
		return "", ctx.Err()
	}
}

func (e *Election) create(prefix, value string) (string, error) {
	var err error
	for range 3 {
		e.emit(event.Event{Kind: event.Request, Op: "create", Node: prefix})
		var node string
		node, err = e.createCandidate(prefix, value)
		switch {
		case err == nil:
			return node, nil
		case errors.Is(err, zk.ErrNoNode):
			if err := e.makeDir(); err != nil {
				return "", err
			}
		case errors.Is(err, zk.ErrConnectionClosed):
			e.emit(event.Event{Kind: event.Request, Op: "children", Node: e.dir})
			children, _, lerr := e.conn.Children(e.dir)
			if lerr != nil {
				return "", fmt.Errorf("look for our node after %v: %w", err, lerr)
			}
			for _, c := range children {
				if strings.HasPrefix(e.dir+"/"+c, prefix) {
					return e.dir + "/" + c, nil
				}
			}
		default:
			return "", fmt.Errorf("create %s: %w", prefix, err)
		}
	}
	return "", fmt.Errorf("create %s: %w", prefix, err)
}

// createCandidate is step 1 of 07-leader/README.md: create an
// EPHEMERAL_SEQUENTIAL node whose name starts with prefix (ZooKeeper
// appends the sequence number), holding value — who we are, for Leader and
// Observe to report — open to everyone (zk.WorldACL(zk.PermAll)), and
// return the full path ZooKeeper gives back. Return the error as it is:
// create above deals with a missing directory and a lost reply.
func (e *Election) createCandidate(prefix, value string) (string, error) {
	panic("TODO(workshop): create an EPHEMERAL_SEQUENTIAL node at prefix holding value (e.conn.Create) — step 1 of 07-leader/README.md")
}

// makeDir creates the election directory and its parents. They are
// PERSISTENT on purpose, not containers: the terms are the directory's
// sequence counter, and a directory deleted when empty would start again at 0.
func (e *Election) makeDir() error {
	for i := 1; i <= len(e.dir); i++ {
		if i < len(e.dir) && e.dir[i] != '/' {
			continue
		}
		p := e.dir[:i]
		e.emit(event.Event{Kind: event.Request, Op: "create", Node: p})
		if _, err := e.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// abandon deletes our node after a failed or cancelled campaign and returns
// err. It must work even though ctx may be over, so it has its own limit.
func (e *Election) abandon(node string, err error) error {
	ch := make(chan error, 1)
	go func() { ch <- e.deleteOwn(node) }()
	select {
	case derr := <-ch:
		if derr != nil {
			return errors.Join(err, derr)
		}
	case <-time.After(10 * time.Second):
		return errors.Join(err, fmt.Errorf("delete %s: still trying", node))
	}
	return err
}

// deleteOwn deletes one of our nodes. A node left behind while our session
// lives would block the election, so a delete that was in flight when the
// connection dropped (ErrConnectionClosed: done or not, we cannot tell) is
// sent again; it then waits in the queue until the client reconnects.
func (e *Election) deleteOwn(node string) error {
	var err error
	for range 3 {
		e.emit(event.Event{Kind: event.Request, Op: "delete", Node: node})
		err = e.conn.Delete(node, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if !errors.Is(err, zk.ErrConnectionClosed) {
			break
		}
	}
	return fmt.Errorf("delete %s: %w", node, err)
}

// candidates is step 2 of 07-leader/README.md: keep the children that are
// candidate nodes (sequenceOf says ok) and put them in queue order, lowest
// sequence number first. Sorting the names would be wrong: they start with
// a guid.
func candidates(children []string) []string {
	panic("TODO(workshop): keep the children sequenceOf accepts and sort them by sequence number, not by name — step 2 of 07-leader/README.md")
}

// termOf is a node's sequence number plus one: the first leader of a
// directory has term 1, and 0 can mean "no leadership".
func termOf(node string) int64 {
	n, _ := sequenceOf(node)
	return n + 1
}

// sequenceOf reads the 10-digit counter ZooKeeper appended to a node name.
func sequenceOf(name string) (int64, bool) {
	i := strings.LastIndex(name, "-n_")
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[i+3:], 10, 64)
	return n, err == nil
}

// call runs one ZooKeeper request so that ctx can cut the wait short:
// go-zookeeper's calls take no context. A request we stop waiting for still
// completes in the background; callers clean up what it may have left.
func call[T any](ctx context.Context, request func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := request()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
