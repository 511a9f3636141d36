package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/demo"
)

// shop is the inventory demo of the Curator article (-inventory): many
// buyers — goroutines of one process, sharing one ZooKeeper session, each
// with a lock object of its own, as the article's 1000 threads share one
// CuratorFramework — each buy one item: holding the lock, a buyer reads the
// stock and, if any is left, writes it back one less. The stock is a znode,
// so the read-think-write is the same unguarded step as the counter's
// age++. Without the lock (-nolock) buyers who read the same stock sell the
// same item: oversold. The last line is
//
//	stock=<left> sold=<sold> oversold=<sold beyond the stock>
type shop struct {
	on     bool
	buyers int
	stock  int
}

// instead is the shop under -inventory, for demo.Chapter's Instead; nil
// otherwise, and the workers run.
func (s *shop) instead() demo.Story {
	if !s.on {
		return nil
	}
	return s.run
}

func (s *shop) flags(fs *flag.FlagSet) {
	fs.BoolVar(&s.on, "inventory", false, "run the article's shop instead: -buyers goroutines on ONE session buy from -stock items")
	fs.IntVar(&s.buyers, "buyers", 1000, "-inventory: buyers, goroutines sharing one session, each with its own lock")
	fs.IntVar(&s.stock, "stock", 100, "-inventory: items in stock at the start")
}

func (s *shop) check() error {
	if s.on && (s.buyers < 1 || s.stock < 0) {
		return fmt.Errorf("-buyers %d -stock %d: want at least 1 buyer and a stock ≥ 0", s.buyers, s.stock)
	}
	return nil
}

func (s *shop) run(ctx context.Context, env *demo.Env, cfg demo.Config) error {
	stock := env.Root + "/stock"
	if _, err := env.Admin.Create(stock, []byte(strconv.Itoa(s.stock)), 0, env.ACL()); err != nil {
		return fmt.Errorf("create the stock %s: %w", stock, env.Explain(err))
	}
	defer env.Admin.Delete(stock, -1)
	sess, err := demo.Dial(ctx, env, seqlock.NewSession) // one session for every buyer (closed at the end of the run)
	if err != nil {
		return err
	}
	conn := sess.Conn()
	mode := "each takes the lock " + cfg.Path
	if cfg.NoLock {
		mode = "WITHOUT the lock (-nolock)"
	}
	fmt.Fprintln(env.Out, title)
	fmt.Fprintf(env.Out, "the shop: %d buyers share one session, %s; stock %s starts at %d\n", s.buyers, mode, stock, s.stock)

	// Buyers think 1 ms between reading the stock and writing it back,
	// unless -hold says otherwise: 50 ms × 1000 buyers would be a long wait.
	think := time.Millisecond
	if cfg.Set["hold"] {
		think = cfg.Hold
	}
	tally := &event.Tally{}
	var sold atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, s.buyers)
	start := time.Now()
	for i := range s.buyers {
		var l demo.Locker
		if !cfg.NoLock {
			if l, err = seqlock.New(sess, cfg.Path, seqlock.WithObserver(tally.Observe)); err != nil {
				return err
			}
		}
		wg.Go(func() {
			_, errs[i] = contend.Loop(ctx, l, 1, func(ctx context.Context) error {
				left, err := contend.ReadCounter(conn, stock)
				if err != nil || left <= 0 {
					return err
				}
				if err := contend.Hold(think)(ctx); err != nil {
					return err
				}
				if _, err := conn.Set(stock, []byte(strconv.Itoa(left-1)), -1); err != nil {
					return fmt.Errorf("sell from %s: %w", stock, err)
				}
				sold.Add(1)
				return nil
			})
		})
	}
	wg.Wait()
	// The buyers share one session: if the server expired it, every lock
	// on it went with it, and every buyer still in line failed the same
	// way. One sentence says it better than a thousand errors.
	if demo.Ended(sess) && ctx.Err() == nil {
		return fmt.Errorf("the shop's one session expired after %d sales: every buyer's lock went with it; run the shop again", sold.Load())
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	left, err := contend.ReadCounter(env.Admin, stock)
	if err != nil {
		return err
	}
	n := int(sold.Load())
	fmt.Fprintf(env.Out, "%d buyers served in %v: requests=%d notifications=%d acquisitions=%d\n", s.buyers,
		time.Since(start).Round(10*time.Millisecond), tally.Count(event.Request), tally.Count(event.Notified), tally.Count(event.Acquired))
	fmt.Fprintf(env.Out, "stock=%d sold=%d oversold=%d\n", left, n, max(0, n-s.stock))
	return nil
}
