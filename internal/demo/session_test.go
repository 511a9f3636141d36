package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestSessionFlagDecidesWhenACutOffHolderStepsDown: two holders, each
// dialled the demo's way (DialCuttable, with -session), take chapter
// 04's lock — with no lock option: the lock uses what the server granted
// its Session — and are cut off from ZooKeeper at the same moment.
// The one with the longer session learns it lost the lock later.
func TestSessionFlagDecidesWhenACutOffHolderStepsDown(t *testing.T) {
	type outcome struct {
		granted, lostAfter time.Duration
		err                error
	}
	cut := make(chan struct{})
	ready := make(chan struct{}, 2)
	hold := func(session string) (o outcome) {
		p := Program{Name: "00-test", Path: "lock", Run: func(ctx context.Context, env *Env) error {
			s, proxy, err := DialCuttable(ctx, env, seqlock.NewSession)
			if err != nil {
				return err
			}
			m, err := seqlock.New(s, env.Path)
			if err != nil {
				return err
			}
			if err := m.Lock(ctx); err != nil {
				return err
			}
			ready <- struct{}{}
			select {
			case <-cut:
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := proxy.Cut(); err != nil {
				return err
			}
			start := time.Now()
			select {
			case <-m.Lost():
				o.granted, o.lostAfter = env.Granted(ctx), time.Since(start)
				return nil
			case <-ctx.Done():
				return fmt.Errorf("Lost() still open: %w", ctx.Err())
			}
		}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		o.err = Execute(ctx, p, []string{"-servers", strings.Join(zktest.Servers(t), ","), "-session", session}, io.Discard)
		return o
	}
	var short, long outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Go(func() { short = hold("2s") })
		wg.Go(func() { long = hold("6s") })
		wg.Wait()
	}()
	for range 2 {
		select {
		case <-ready:
		case <-done:
			t.Fatalf("a holder ended before the cut: %v; %v", short.err, long.err)
		}
	}
	close(cut) // both links go silent at once
	zktest.Await(t, done, "the holders never ended after the cut")
	if short.err != nil || long.err != nil {
		t.Fatalf("short session: %v; long session: %v", short.err, long.err)
	}
	t.Logf("-session 2s: granted %v, Lost() closed %v after the cut; -session 6s: granted %v, closed after %v",
		short.granted, short.lostAfter.Round(time.Millisecond), long.granted, long.lostAfter.Round(time.Millisecond))
	if long.granted <= short.granted {
		t.Skipf("the server granted %v for 2s and %v for 6s: no difference to see", short.granted, long.granted)
	}
	// Not a timing of the lock: a comparison of two holders cut at the same
	// moment. Their step-downs should be about as far apart as their
	// granted timeouts; a quarter of that leaves room for a loaded machine
	// and still fails if both used one fixed timeout.
	if gap, want := long.lostAfter-short.lostAfter, (long.granted-short.granted)/4; gap < want {
		t.Errorf("the holder with the %v session stepped down %v after the one with %v, want at least %v later: -session does not reach the lock",
			long.granted, gap.Round(time.Millisecond), short.granted, want)
	}
}
