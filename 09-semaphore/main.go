// Command 09-semaphore shows a counting semaphore: -workers workers, each
// with its own ZooKeeper session, take one of -leases leases -rounds times,
// hold it for -hold and give it back. In the timeline at most -leases hold
// at once; the others wait at the gate (chapter 04's mutex), and only the
// gate holder watches the leases. Then one holder is asked to give its lease
// back (revocation) and does. The last line is
//
//	leases=N max_seen=N
//
// where max_seen is the most holders seen at one instant: never more than N.
//
//	go run ./09-semaphore -workers 6 -leases 3
//	go run ./09-semaphore -tui      # the visualizer on this chapter
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"strconv"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/09-semaphore/internal/leaselock"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

var (
	workers, leases, rounds int
	hold                    time.Duration
	verbose                 bool
)

func main() { demo.MainProgram(program()) }

func program() demo.Program {
	return demo.Program{
		Name: "09-semaphore", Path: "semaphore", PathUsage: "semaphore directory",
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&workers, "workers", 6, "number of workers, each with its own session")
			fs.IntVar(&leases, "leases", 3, "leases: how many may hold at once")
			fs.IntVar(&rounds, "rounds", 2, "leases each worker takes, one after the other")
			fs.DurationVar(&hold, "hold", 200*time.Millisecond, "time each holder keeps its lease")
			fs.BoolVar(&verbose, "verbose", false, "print every request, watch and notification too")
		},
		Check: func() error {
			if workers < 1 || leases < 1 || rounds < 1 || hold < 0 {
				return errors.New("want -workers, -leases and -rounds ≥ 1, and -hold ≥ 0")
			}
			return nil
		},
		TUI: true,
		TUIArgs: func(set map[string]bool) []string {
			var args []string
			if set["workers"] {
				args = append(args, "-workers", strconv.Itoa(workers))
			}
			if set["hold"] {
				args = append(args, "-hold", hold.String())
			}
			return args
		},
		Run: run,
	}
}

func run(ctx context.Context, env *demo.Env) error {
	fmt.Fprintf(env.Out, "%d workers × %d rounds share %d leases of %s\n", workers, rounds, leases, env.Path)
	tl := demo.NewTimeline(env.Out)
	if !verbose {
		tl.Show = func(e event.Event) bool { return demo.Milestone(e) || e.Kind == event.Info }
	}

	// Part 1: contention. Everyone wants a lease; at most -leases get one.
	var held contend.Occupancy
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := 1; i <= workers; i++ {
		name := fmt.Sprintf("worker-%d", i)
		wg.Go(func() {
			if err := work(ctx, env, tl, name, &held); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := errors.Join(collect(errs)...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Part 2: revocation. A revocable holder is asked for its lease back
	// (Curator's "__REVOKE__" written into its node); it finishes and lets go.
	tl.Printf("\nrevocation: worker-1 holds a lease until someone asks for it\n")
	sess, err := demo.Dial(ctx, env, seqlock.NewSession)
	if err != nil {
		return err
	}
	s, err := semaphore.New(sess, env.Path, leases, semaphore.WithRevocable(),
		semaphore.WithLockOptions(seqlock.WithObserver(event.Observer(tl.Observe).WithOwner("worker-1"))))
	if err != nil {
		return err
	}
	l, err := s.Acquire(ctx)
	if err != nil {
		return err
	}
	holders, err := s.Holders(ctx)
	if err != nil {
		return err
	}
	tl.Say("admin", "asks %s to give its lease back", event.Short(holders[0]))
	if err := semaphore.Revoke(ctx, env.Admin, holders[0]); err != nil {
		return err
	}
	select {
	case <-l.Revoked():
		tl.Say("worker-1", "was asked for its lease: releases it")
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := l.Release(ctx); err != nil {
		return err
	}

	fmt.Fprintf(env.Out, "leases=%d max_seen=%d\n", leases, held.Peak())
	if held.Peak() > int64(leases) {
		return fmt.Errorf("%d held at once with %d leases", held.Peak(), leases)
	}
	return nil
}

// work is one worker: -rounds leases, one after the other, on a session of
// its own. A session is one ZooKeeper session: if the server ends it under
// the worker, the worker opens a new one, on it a new semaphore, and takes
// the leases it has left, as an etcd program does when its session's Done
// fires.
func work(ctx context.Context, env *demo.Env, tl *demo.Timeline, name string, held *contend.Occupancy) error {
	taken := 0 // leases held to the end of their -hold
	for {
		sess, err := demo.Dial(ctx, env, seqlock.NewSession)
		if err != nil {
			return err
		}
		s, err := semaphore.New(sess, env.Path, leases,
			semaphore.WithLockOptions(seqlock.WithObserver(event.Observer(tl.Observe).WithOwner(name)), seqlock.WithData([]byte(name))))
		if err != nil {
			sess.Close()
			return err
		}
		_, err = contend.Loop(ctx, leaselock.New(s), rounds-taken, func(ctx context.Context) error {
			now := held.Enter()
			defer held.Leave()
			tl.Say(name, "holds a lease: %d of %d out", now, leases)
			err := contend.Hold(hold)(ctx)
			if err == nil {
				taken++
			}
			return err
		})
		ended := demo.Ended(sess) // under the worker, before our Close
		sess.Close()
		if err == nil || ctx.Err() != nil || !ended {
			return err
		}
		tl.Say(name, "lost its session (%v); it opens a new one and goes on, %d of %d leases taken", err, taken, rounds)
	}
}

func collect(errs <-chan error) []error {
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}
