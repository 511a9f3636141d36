// Package semaphore is chapter 09: a counting semaphore on ZooKeeper. Up to
// n clients hold a lease at once; the others wait, first come first served,
// and a holder can be asked to give its lease back (revocation).
//
//	s, _ := semaphore.New(sess, "/semaphores/printers", 3) // sess: a *seqlock.Session
//	lease, err := s.Acquire(ctx) // blocks while 3 leases are out
//	defer lease.Release(ctx)
//	select { case <-lease.Lost(): …; case <-lease.Revoked(): … }
//
// It is chapter 04's queue core used twice, the way Curator's
// InterProcessSemaphoreV2 and kazoo's Semaphore are built, in two
// subdirectories of dir named as Curator names them, so a Java client can
// share the semaphore:
//
//  1. Take the gate: a chapter 04 mutex on dir/locks (its nodes are named
//     …-lock-<seq>). Waiters queue there, each watching only its
//     predecessor, so nobody herds.
//  2. The gate holder lists dir/leases with a children watch and counts the
//     leases. While n are out, it waits for that watch: one waiter, woken
//     only when a lease comes or goes.
//  3. With fewer than n out, it creates its lease: an ephemeral-sequential
//     node …-lease-<seq> in dir/leases (the core's Acquire with the rule
//     Leases(n)).
//  4. It lets go of the gate; the next in line takes it.
//  5. Release deletes the lease, which wakes whoever holds the gate.
//
// Why not the core alone with the rule "hold if fewer than n are ahead of
// me, else watch the node n places ahead"? That rule never lets more than n
// in, but a waiter can sleep on a holder that stays while another holder
// leaves: with n=2 and queue [A B C D], C watches A and D watches B; when B
// leaves only D wakes, finds itself third, and sleeps on A — while C, now
// second, could hold but is asleep. TestTheIndexRuleLeavesALeaseUnused
// measures it; the gate makes every release wake the one client that can
// use it.
package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkcall"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// The vocabulary of every chapter (docs/concepts.md): 04's values.
var (
	ErrNotHeld     = seqlock.ErrNotHeld     // Release of a lease already released; Revoke of a lease that is gone
	ErrLocked      = seqlock.ErrLocked      // TryAcquire: all n leases are out
	ErrLost        = seqlock.ErrLost        // the lease was lost before Release
	ErrNilSession  = seqlock.ErrNilSession  // New was given a nil *seqlock.Session
	ErrAlreadyHeld = seqlock.ErrAlreadyHeld // a lock that drives the semaphore (Lock while it holds a lease)
)

// Semaphore is one client's handle on a semaphore directory with n leases.
// It may be shared by goroutines: each Acquire returns its own Lease.
type Semaphore struct {
	sess *seqlock.Session
	conn *zk.Conn // sess.Conn()
	dir  string   // the semaphore: gateDir and leaseDir are in it
	n    int
	opts options          // what New's options say to this chapter
	gate []seqlock.Option // WithLockOptions, for each acquisition's gate and lease
}

// New returns a semaphore with n leases on the directory dir. Every client
// of one directory must use the same n. Nothing is sent until Acquire.
func New(sess *seqlock.Session, dir string, n int, opts ...Option) (*Semaphore, error) {
	if sess == nil {
		return nil, ErrNilSession
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("semaphore: directory: %w", err)
	}
	if n < 1 {
		return nil, fmt.Errorf("semaphore: %d leases: want at least 1", n)
	}
	o, gate := configure(opts)
	return &Semaphore{sess: sess, conn: sess.Conn(), dir: dir, n: n, opts: o, gate: gate}, nil
}

// gateDir and leaseDir are Curator's: path/locks and path/leases.
func (s *Semaphore) gateDir() string  { return s.dir + "/locks" }
func (s *Semaphore) leaseDir() string { return s.dir + "/leases" }

// Holders returns the full paths of the leases out now, oldest first: whom
// Revoke can ask. That is at most the n oldest lease nodes: a Curator
// InterProcessSemaphoreV2 that waits for a lease creates its node first
// and then waits, under the gate, for the count to fall to n, so while it
// waits the directory holds n+1 nodes and the newest is a waiter's. Its
// reads honour ctx, and are sent again if the connection drops under them while
// the session lives (seqlock.Participants).
func (s *Semaphore) Holders(ctx context.Context) ([]string, error) {
	ps, err := seqlock.Participants(ctx, s.conn, s.leaseDir()) // no directory: no lease was ever taken, or it was reaped
	if err != nil {
		return nil, fmt.Errorf("semaphore: holders of %s: %w", s.dir, err)
	}
	var out []string
	for _, p := range ps {
		if isLease(event.Short(p.Node)) && len(out) < s.n {
			out = append(out, p.Node)
		}
	}
	return out, nil
}

// leaveGate unlocks the gate at the end of an acquisition, whatever ctx
// says. If the gate was lost meanwhile (its session cut off, its node
// deleted), someone else may have counted the leases at the same time as
// us: the lease in *l may be one too many, so it is given back, *l is
// cleared and *err says why. acquire defers it with its named results.
func (s *Semaphore) leaveGate(ctx context.Context, gate *seqlock.Mutex, l **Lease, err *error) {
	gerr := gate.Unlock(context.WithoutCancel(ctx))
	if gerr == nil {
		return
	}
	if *l != nil {
		*err = (*l).Release(context.WithoutCancel(ctx))
		*l = nil
	}
	*err = errors.Join(fmt.Errorf("semaphore: gate: %w", gerr), *err)
}

func (s *Semaphore) emit(kind event.Kind, op event.Op, node, detail string) {
	s.opts.observer.Emit(event.Event{Lock: s.dir, Kind: kind, Op: op, Node: node, Detail: detail})
}

// count lists the lease directory with a children watch, which fires at
// the next lease created or deleted, and counts the leases. No directory
// yet: no lease is out (and no watch is needed, we do not wait). The list
// honours ctx, and is sent again if the connection drops under it while
// our session (and so our gate) lives: zkcall.Retry, the core's own read.
func (s *Semaphore) count(ctx context.Context) (int, <-chan zk.Event, error) {
	type listing struct {
		names   []string
		changed <-chan zk.Event
	}
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	dir := s.leaseDir()
	s.emit(event.Request, "children", dir, "")
	ls, err := zkcall.Retry(ctx, s.conn, s.conn.SessionID(), func() (listing, error) {
		names, _, changed, err := s.conn.ChildrenW(dir)
		return listing{names, changed}, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("semaphore: list %s: %w", dir, err)
	}
	s.emit(event.WatchSet, "children", dir, "")
	out := 0
	for _, name := range ls.names {
		if isLease(name) {
			out++
		}
	}
	return out, ls.changed, nil
}

// leaseName is what lease nodes are called (Curator's "lease-").
const leaseName = "lease-"

// isLease says whether name is a lease node's: …lease-<10 digits>.
func isLease(name string) bool {
	_, ok := zkpath.SequenceOf(name)
	return ok && strings.HasSuffix(name[:len(name)-zkpath.SequenceDigits], leaseName)
}
