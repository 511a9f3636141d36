package arena

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zkcall"
)

// Locker is what the arena needs of a learner's lock: chapter 04's
// seqlock.Mutex is one (built with LockOptions), and so are 05's writer
// side and 06's reentrant Mutex. (A semaphore of n leases is not: it lets
// n in, and the arena would catch it.)
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
	// Node is the lock node of the current hold ("" when not holding).
	Node() string
}

// Worker is one learner in the arena: it takes the class lock with the
// learner's own lock and increments the counter, one Round at a time.
//
// Arena must be opened on a session of its own, not the lock's: the
// counter is the resource the lock protects, and a resource's client
// outlives the lock's session, as in chapter 08. A worker whose lock's
// session expired while it was frozen (a closed lid, SIGSTOP) then still
// reaches the counter when it runs again — and is refused by the
// condition, which is the point. (A go-zookeeper conn whose session
// expires opens a new one by itself; Round sends its write again then.)
type Worker struct {
	Name  string // the learner's name, written into the counter
	Lock  Locker // the learner's lock, on the class lock's directory (Arena.LockDir)
	Arena *Arena // the arena, on the counter's client
	// Inside runs while the worker holds, between its read of the counter
	// and its write: what a critical section does. nil: nothing.
	Inside func(ctx context.Context) error
}

// Outcome is what one Round did.
// It is also the message a worker process sends its runner, one JSON
// line a round (workshop/class/player).
type Outcome struct {
	Wrote  bool   `json:"wrote"`            // the increment landed
	Count  int64  `json:"count"`            // the count it wrote (or would have)
	Caught *Catch `json:"caught,omitempty"` // the write was refused: what that proved (also recorded)
}

// Round waits while the arena is paused, takes the class lock, reads the
// counter, runs Inside, and writes the count plus one in one multi: a
// check that its lock node still exists, and a set conditioned on the
// version it read. Then it lets go. A refused write is not an error: it
// is recorded under caught/ and returned in Outcome.Caught.
func (w *Worker) Round(ctx context.Context) (Outcome, error) {
	if err := w.Arena.waitRunning(ctx); err != nil {
		return Outcome{}, err
	}
	if err := w.Lock.Lock(ctx); err != nil {
		return Outcome{}, fmt.Errorf("arena: %s takes the class lock: %w", w.Name, err)
	}
	out, err := w.increment(ctx)
	uerr := w.Lock.Unlock(ctx)
	switch {
	case err != nil:
		return out, err
	case uerr != nil && out.Caught == nil:
		// A caught holder's Unlock fails as a rule (its node is gone).
		return out, fmt.Errorf("arena: %s lets go: %w", w.Name, uerr)
	}
	return out, nil
}

// Run plays rounds Rounds (0: until ctx ends), calling each, if not nil,
// after every one. It returns ctx's error when ctx ends.
func (w *Worker) Run(ctx context.Context, rounds int, each func(Outcome)) error {
	for i := 0; rounds == 0 || i < rounds; i++ {
		out, err := w.Round(ctx)
		if err != nil {
			return err
		}
		if each != nil {
			each(out)
		}
	}
	return nil
}

// increment is the critical section: read, Inside, conditional write.
func (w *Worker) increment(ctx context.Context) (Outcome, error) {
	node := w.Lock.Node()
	if node == "" {
		return Outcome{}, fmt.Errorf("arena: %s's Lock returned, but its Node is empty", w.Name)
	}
	read, version, err := w.Arena.Counter(ctx)
	if err != nil {
		return Outcome{}, err
	}
	if w.Inside != nil {
		if err := w.Inside(ctx); err != nil {
			return Outcome{}, err
		}
	}
	next := Counter{N: read.N + 1, Writer: w.Name, Node: node}
	data, _ := json.Marshal(next)
	a := w.Arena
	for {
		res, err := zkcall.Do(ctx, func() ([]zk.MultiResponse, error) {
			res, err := a.conn.Conn.Multi(
				// Op 0: our lock node still exists (08's SetIfHeld).
				&zk.CheckVersionRequest{Path: node, Version: -1},
				// Op 1: nobody wrote since our read.
				&zk.SetDataRequest{Path: a.counterPath(), Data: data, Version: version},
			)
			return res, errOr(res, err)
		})
		var kind Kind
		switch {
		case err == nil:
			return Outcome{Wrote: true, Count: next.N}, nil
		case len(res) == 2 && errors.Is(res[0].Error, zk.ErrNoNode):
			kind = NodeGone
		case len(res) == 2 && errors.Is(res[1].Error, zk.ErrBadVersion):
			kind = TwoInside
		case errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrSessionExpired):
			// The answer is lost, or the counter's client is finding a
			// server or a new session. Sending again is safe: the same
			// conditions hold the second write out if the first landed.
			if err := pause(ctx); err != nil {
				return Outcome{}, err
			}
			continue
		default:
			return Outcome{}, fmt.Errorf("arena: %s writes the counter: %w", w.Name, err)
		}
		now, nowVersion, err := a.Counter(ctx)
		if err != nil {
			return Outcome{}, err
		}
		if now.Node == node && now.N == next.N {
			return Outcome{Wrote: true, Count: next.N}, nil // an earlier send of ours landed
		}
		c := Catch{Kind: kind, Writer: w.Name, WriterNode: node, Other: now.Writer, OtherNode: now.Node,
			Read: read.N, ReadVersion: version, Version: nowVersion}
		if err := a.record(ctx, c); err != nil {
			return Outcome{Count: next.N, Caught: &c}, err
		}
		return Outcome{Count: next.N, Caught: &c}, nil
	}
}

// errOr is the multi's error, or the first failed op's if the multi's
// error is missing.
func errOr(res []zk.MultiResponse, err error) error {
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Error != nil {
			return r.Error
		}
	}
	return nil
}

// waitRunning returns at once unless the arena is paused; then it waits,
// on a watch, until the host resumes it.
func (a *Arena) waitRunning(ctx context.Context) error {
	for {
		paused, err := a.Paused(ctx)
		if err != nil || !paused {
			return err
		}
		// Set the watch only now: a watch on a node that does not exist
		// would stay registered until the next pause.
		ok, _, changed, err := a.conn.ExistsW(ctx, a.pausedPath())
		if err != nil {
			return fmt.Errorf("arena: watch the pause: %w", err)
		}
		if !ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pause waits a moment before a request is sent again.
func pause(ctx context.Context) error {
	select {
	case <-time.After(100 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
