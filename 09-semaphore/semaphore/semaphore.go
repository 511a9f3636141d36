// Package semaphore is chapter 09: a counting semaphore on ZooKeeper. Up to
// n clients hold a lease at once; the others wait, first come first served,
// and a holder can be asked to give its lease back (revocation).
//
//	s, _ := semaphore.New(conn, "/semaphores/printers", 3)
//	lease, err := s.Acquire(ctx) // blocks while 3 leases are out
//	defer lease.Release(ctx)
//	select { case <-lease.Lost(): …; case <-lease.Revoked(): … }
//
// It is chapter 04's queue core used twice, the way Curator's
// InterProcessSemaphoreV2 and kazoo's Semaphore are built:
//
//  1. Take the gate: a chapter 04 mutex on dir (its nodes are named
//     …-lock-<seq>). Waiters queue there, each watching only its
//     predecessor, so nobody herds.
//  2. The gate holder lists dir with a children watch and counts the
//     leases (…-lease-<seq>). While n are out, it waits for that watch:
//     one waiter, woken by any change (a release, or someone joining the
//     gate queue: then it counts again).
//  3. With fewer than n out, it creates its lease: an ephemeral-sequential
//     node …-lease-<seq> in dir (the core's Acquire with the rule Leases(n)).
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
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zkpath"
)

// The vocabulary of every chapter (docs/concepts.md): 04's values.
var (
	ErrNotHeld = seqlock.ErrNotHeld // Release of a lease already released; Revoke of a lease that is gone
	ErrLocked  = seqlock.ErrLocked  // TryAcquire: all n leases are out
	ErrLost    = seqlock.ErrLost    // the lease was lost before Release
	ErrNilConn = seqlock.ErrNilConn
)

// Semaphore is one client's handle on a semaphore directory with n leases.
// It may be shared by goroutines: each Acquire returns its own Lease.
type Semaphore struct {
	conn   *zk.Conn
	dir    string
	n      int
	opts   options
	gate   []seqlock.Option // for each acquisition's gate mutex
	leases *seqlock.Queue
}

// New returns a semaphore with n leases on the directory dir. Every client
// of one directory must use the same n. Nothing is sent until Acquire.
func New(conn *zk.Conn, dir string, n int, opts ...Option) (*Semaphore, error) {
	if conn == nil {
		return nil, ErrNilConn
	}
	if err := zkpath.Validate(dir); err != nil {
		return nil, fmt.Errorf("semaphore: directory: %w", err)
	}
	if n < 1 {
		return nil, fmt.Errorf("semaphore: %d leases: want at least 1", n)
	}
	s := &Semaphore{conn: conn, dir: dir, n: n}
	for _, o := range opts {
		o(&s.opts)
	}
	s.gate = s.opts.core
	leases, err := seqlock.NewQueue(conn, dir, leaseName, Leases(n), s.opts.core...)
	if err != nil {
		return nil, err
	}
	s.leases = leases
	return s, nil
}

// Leases is the rule of the lease queue: the first n nodes hold a lease;
// a later one waits for the node n places ahead (which, under the gate,
// never happens: the gate holder creates its lease only when fewer than n
// are out). Without the gate it is the index rule the package comment
// explains, and its flaw.
func Leases(n int) seqlock.Rule {
	return func(queue []seqlock.Node, ours int) (bool, string) {
		if ours < n {
			return true, ""
		}
		return false, queue[ours-n].Name
	}
}

// Acquire blocks until this client holds one of the n leases, or ctx ends
// (then it leaves nothing behind).
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, true) }

// TryAcquire takes a lease if one is free now, else returns ErrLocked.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) { return s.acquire(ctx, false) }

func (s *Semaphore) acquire(ctx context.Context, wait bool) (*Lease, error) {
	// Step 1: the gate. One mutex per acquisition: goroutines sharing the
	// Semaphore queue at the gate like separate clients.
	gate, err := seqlock.New(s.conn, s.dir, s.gate...)
	if err != nil {
		return nil, err
	}
	take := gate.Lock
	if !wait {
		take = gate.TryLock
	}
	if err := take(ctx); err != nil {
		return nil, fmt.Errorf("semaphore: gate: %w", err)
	}
	defer gate.Unlock(context.WithoutCancel(ctx)) // step 4

	// Step 2: wait, alone, for fewer than n leases.
	for {
		out, changed, err := s.count(ctx)
		if err != nil {
			return nil, err
		}
		if out < s.n {
			break
		}
		if !wait {
			return nil, ErrLocked
		}
		s.emit(event.Waiting, "", s.dir, fmt.Sprintf("%d of %d leases out", out, s.n))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case ev := <-changed:
			s.emit(event.Notified, "", s.dir, ev.Type.String())
		}
	}

	// Step 3: our lease. Under the gate nobody else creates one, so the
	// rule lets us hold at once.
	h, err := s.leases.Acquire(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("semaphore: lease: %w", err)
	}
	l := &Lease{Hold: h, conn: s.conn, revoked: make(chan struct{})}
	if s.opts.revocable {
		l.watchRevocation(s)
	}
	return l, nil
}

// count lists dir with a children watch, which fires at the next node
// created or deleted there, and counts the leases. The gate holder owns a
// gate node in dir, so dir exists.
func (s *Semaphore) count(ctx context.Context) (int, <-chan zk.Event, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	s.emit(event.Request, "children", s.dir, "")
	names, _, changed, err := s.conn.ChildrenW(s.dir)
	if err != nil {
		return 0, nil, fmt.Errorf("semaphore: list %s: %w", s.dir, err)
	}
	s.emit(event.WatchSet, "children", s.dir, "")
	out := 0
	for _, name := range names {
		if isLease(name) {
			out++
		}
	}
	return out, changed, nil
}

// leaseName is what lease nodes are called, beside the gate's "lock-".
const leaseName = "lease-"

func isLease(name string) bool {
	const digits = 10
	n := len(name) - digits
	return n > 0 && strings.HasSuffix(name[:n], leaseName) && strings.TrimLeft(name[n:], "0123456789") == ""
}

// Holders returns the full paths of the leases out now, oldest first: whom
// Revoke can ask.
func (s *Semaphore) Holders(ctx context.Context) ([]string, error) {
	ps, err := seqlock.Participants(s.conn, s.dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range ps {
		if isLease(event.Short(p.Node)) {
			out = append(out, p.Node)
		}
	}
	return out, ctx.Err()
}

func (s *Semaphore) emit(kind event.Kind, op, node, detail string) {
	s.opts.observer.Emit(event.Event{Lock: s.dir, Kind: kind, Op: op, Node: node, Detail: detail})
}
