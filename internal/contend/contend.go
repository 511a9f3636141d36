// Package contend is the loop every contender in the course runs — a
// demo's worker, a contender of the conformance suite (internal/locktest),
// a contender of the bench: so many rounds of Lock, the critical section,
// Unlock. It lives once, here, so the three agree on what a round is and on
// how a hold ends when the context does: the Unlock still runs, on a
// deadline of its own, and nothing is left behind in ZooKeeper.
//
// Inside the lock the demos and the suite do the articles' unguarded
// read-modify-write of a counter znode (age++): Increment.
package contend

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// Locker is what every lockstep lock (or one side of a read-write lock)
// offers.
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// UnlockTimeout bounds each Unlock. The Unlock runs on a context detached
// from the round's, so a hold taken just as the context ended (Ctrl-C, the
// bench's time budget) is released all the same.
const UnlockTimeout = 10 * time.Second

// Stats is what a Loop did.
type Stats struct {
	Acquired, Released int
	Waits              []time.Duration // how long each successful Lock took
}

// Loop runs rounds rounds of Lock, critical, Unlock on l. A nil l runs the
// critical section without a lock (the demos' -nolock). Loop stops at the
// first error — of Lock, of the critical section, or of Unlock; after a
// failed critical section the lock is still released — and before a round
// when ctx has ended, returning ctx's error. Errors say which round.
func Loop(ctx context.Context, l Locker, rounds int, critical func(ctx context.Context) error) (Stats, error) {
	var s Stats
	for r := 1; r <= rounds; r++ {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		if l != nil {
			t0 := time.Now()
			if err := l.Lock(ctx); err != nil {
				return s, fmt.Errorf("round %d: lock: %w", r, err)
			}
			s.Waits = append(s.Waits, time.Since(t0))
			s.Acquired++
		}
		err := critical(ctx)
		if err != nil {
			err = fmt.Errorf("round %d: %w", r, err)
		}
		if l != nil {
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), UnlockTimeout)
			uerr := l.Unlock(uctx)
			cancel()
			if uerr != nil {
				err = errors.Join(err, fmt.Errorf("round %d: unlock: %w", r, uerr))
			} else {
				s.Released++
			}
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// Hold is a critical section that only waits d (or until ctx ends).
func Hold(d time.Duration) func(ctx context.Context) error {
	return func(ctx context.Context) error { return sleep(ctx, d) }
}

// Increment is the articles' unguarded age++ on a counter znode: read it,
// think for a while, write back value+1 with version -1 — no
// compare-and-swap, so only the lock keeps the count exact. A context that
// ends while it thinks leaves the counter as it was. It returns the value
// it read.
func Increment(ctx context.Context, conn *zk.Conn, counter string, think time.Duration) (int, error) {
	v, err := ReadCounter(conn, counter)
	if err != nil {
		return 0, err
	}
	if err := sleep(ctx, think); err != nil {
		return v, err
	}
	if _, err := conn.Set(counter, []byte(strconv.Itoa(v+1)), -1); err != nil {
		return v, fmt.Errorf("write counter %s: %w", counter, err)
	}
	return v, nil
}

// ReadCounter reads a counter znode as a decimal number.
func ReadCounter(conn *zk.Conn, counter string) (int, error) {
	b, _, err := conn.Get(counter)
	if err != nil {
		return 0, fmt.Errorf("read counter %s: %w", counter, err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("counter %s holds %q, not a number", counter, b)
	}
	return v, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Occupancy counts who is inside a critical section and remembers the most
// that ever were at once: what "never more than n holders" checks read (the
// tests of 04, 05 and 09, and 09's max_seen). Safe for concurrent use; the
// zero value is empty.
type Occupancy struct{ inside, peak atomic.Int64 }

// Enter counts one more inside and returns how many are inside now.
func (o *Occupancy) Enter() int64 {
	n := o.inside.Add(1)
	for p := o.peak.Load(); n > p && !o.peak.CompareAndSwap(p, n); p = o.peak.Load() {
	}
	return n
}

// Leave counts one fewer inside.
func (o *Occupancy) Leave() { o.inside.Add(-1) }

// Inside is how many are inside now.
func (o *Occupancy) Inside() int64 { return o.inside.Load() }

// Peak is the most that were ever inside at once.
func (o *Occupancy) Peak() int64 { return o.peak.Load() }
