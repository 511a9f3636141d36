package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// measure takes one sample of s within budget. The znodes and sessions it
// made are gone when it returns, so samples don't disturb each other.
func (b *bench) measure(ctx context.Context, s spec, budget time.Duration) (x sample) {
	x.packets = -1
	if s.kind.jvm {
		switch {
		case b.curatorSkip != "":
			x.skipped = b.curatorSkip
			return x
		case b.curator == nil:
			x.err = fmt.Errorf("curator runner: %w", b.curatorErr)
			return x
		}
	}
	name := s.kind.name
	if s.workload == "floor" {
		name = "floor"
	}
	root := fmt.Sprintf("%s/%s-%d-%s", b.base, name, s.contenders, randhex.String(3))
	if _, err := b.admin.Create(root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		x.err = fmt.Errorf("create row root %s: %w", root, err)
		return x
	}
	defer znode.DeleteTree(b.admin, root)
	// Sequential locks and the floor get a directory made for them; the
	// naive and watch locks get a path that does not exist yet.
	path := root + "/lock"
	if s.workload == "floor" || s.kind.dir {
		if _, err := b.admin.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			x.err = fmt.Errorf("create lock directory %s: %w", path, err)
			return x
		}
	}

	if s.kind.jvm {
		return b.curator.measure(ctx, b, s, path, budget)
	}

	// Sessions: one per contender, or one for all (-shared, the seed).
	w := newWire()
	nconn := s.contenders
	if s.shared || s.workload == "floor" {
		nconn = 1
	}
	conns, err := b.openSessions(ctx, nconn, w)
	defer closeSessions(conns)
	if err != nil {
		x.err = err
		return x
	}

	// One lock object per contender, even on a shared session.
	var work []func(ctx context.Context) (acquired, released int, waits []time.Duration, err error)
	if s.workload == "floor" {
		work = append(work, func(ctx context.Context) (int, int, []time.Duration, error) {
			return floor(ctx, conns[0].Conn(), path+"/pair-", s.rounds)
		})
	} else {
		for i := range s.contenders {
			l, err := s.kind.new(conns[i%nconn], path)
			if err != nil {
				x.err = fmt.Errorf("new %s lock on %s: %w", s.kind.name, path, err)
				return x
			}
			work = append(work, func(ctx context.Context) (int, int, []time.Duration, error) {
				return runContender(ctx, l, s.rounds, b.hold)
			})
		}
	}

	// Everybody starts at once; the window is from the start signal to
	// the last Unlock, and the counters are read at both ends of it.
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		startCh = make(chan struct{})
	)
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	for _, f := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startCh
			a, r, ws, err := f(bctx)
			mu.Lock()
			defer mu.Unlock()
			x.acquires += a
			x.releases += r
			x.waits = append(x.waits, ws...)
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	packetsBefore, mntrErr := b.packets(ctx)
	wireBefore := w.snapshot()
	// The garbage of what came before is collected first: the window pays
	// for its own.
	runtime.GC()
	cpuBefore, cpuOK := processCPU()
	start := time.Now()
	close(startCh)
	wg.Wait()
	x.elapsed = time.Since(start)
	cpuAfter, cpuAfterOK := processCPU()
	x.cpu, x.cpuOK = cpuAfter-cpuBefore, cpuOK && cpuAfterOK
	x.wire = w.snapshot().sub(wireBefore)
	packetsAfter, err := b.packets(ctx)
	if mntrErr == nil && err == nil {
		// The server counts the mntr command itself as a packet received:
		// the window holds one of them per server, which no lock sent.
		x.packets = packetsAfter - packetsBefore - int64(len(b.servers))
	}
	x.err = errors.Join(errs...)
	return x
}

// openSessions opens n sessions counted by w, a few at a time: one by one,
// 64 sessions take seconds of a default run on a busy machine. The
// sessions opened so far are returned with an error too, to be closed.
func (b *bench) openSessions(ctx context.Context, n int, w *wire) ([]*seqlock.Session, error) {
	opts := []seqlock.SessionOption{seqlock.WithSessionTimeout(b.session), zksession.DialWith(w.dialer())}
	auth, err := zksession.AuthFromEnv()
	if err != nil {
		return nil, err
	}
	if auth != nil {
		opts = append(opts, seqlock.WithDigest(auth.User, auth.Password))
	}
	conns := make([]*seqlock.Session, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := seqlock.NewSession(ctx, b.servers, opts...)
			if err != nil {
				errs[i] = fmt.Errorf("open session %d of %d: %w", i+1, n, err)
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	opened := slices.DeleteFunc(conns, func(c *seqlock.Session) bool { return c == nil })
	return opened, errors.Join(errs...)
}

// closeSessions closes conns all at once: each Close waits for the
// server's answer.
func closeSessions(conns []*seqlock.Session) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(c.Close)
	}
	wg.Wait()
}

// runContender is one contender: rounds times Lock, hold, Unlock, in the
// loop the demos and the conformance suite run too (internal/contend). It
// stops early, without an error, when the row's time budget runs out; a
// lock taken just before is still released (the loop's Unlock runs on a
// deadline of its own) and counted.
//
// A Session is one ZooKeeper session: if the server expires a contender's
// during the row, its locks fail from then on (seqlock.ErrSessionExpired)
// and the bench opens no other, for a row half on a new session is not the
// row it set out to measure. The error says so.
func runContender(budget context.Context, l locker, rounds int, hold time.Duration) (acquired, released int, waits []time.Duration, err error) {
	s, err := contend.Loop(budget, l, rounds, contend.Hold(hold))
	if err != nil && budget.Err() != nil && errors.Is(err, budget.Err()) && s.Released == s.Acquired {
		err = nil // out of time: a partial row, not a failure
	}
	if errors.Is(err, seqlock.ErrSessionExpired) {
		err = fmt.Errorf("a contender's session expired during the row (a loaded machine, or -session too short): %w", err)
	}
	return s.Acquired, s.Released, s.Waits, err
}

// floor is the best any ZooKeeper lock can do on one session: it must at
// least create its node and delete it again, one round trip each, so
// sequential create+delete pairs per second bound every lock's
// acquisitions per second. The "wait" of a pair is its create.
func floor(budget context.Context, conn *zk.Conn, prefix string, rounds int) (pairs, deletes int, waits []time.Duration, err error) {
	for range rounds {
		if budget.Err() != nil {
			return
		}
		t0 := time.Now()
		node, err := conn.Create(prefix, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return pairs, deletes, waits, fmt.Errorf("floor: create under %s: %w", prefix, err)
		}
		waits = append(waits, time.Since(t0))
		pairs++
		if err := conn.Delete(node, -1); err != nil {
			return pairs, deletes, waits, fmt.Errorf("floor: delete %s: %w", node, err)
		}
		deletes++
	}
	return
}
