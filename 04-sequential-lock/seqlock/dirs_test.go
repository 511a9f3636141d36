package seqlock_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestASessionThatLocksManyDirectoriesRemembersFewOfThem: a service that
// locks one directory per entity (/locks/orders/<id>) on one long-lived
// Session must not grow with every directory it ever used. The Session
// remembers a bounded number of them (seqlock.KnownDirs).
func TestASessionThatLocksManyDirectoriesRemembersFewOfThem(t *testing.T) {
	const dirs, bound = 1000, 256 // 10,000 passes too (22 s on a busy 2-core machine); four times the bound shows it holds
	root := zktest.Root(t)
	ctx := zktest.Context(t)
	s := seqlocktest.Session(t)
	var wg sync.WaitGroup
	busy := make(chan struct{}, 8) // eight directories at a time
	failed := make(chan error, dirs)
	for i := range dirs {
		busy <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-busy; wg.Done() }()
			dir := fmt.Sprintf("%s/orders/%d", root, i)
			m, err := seqlock.New(s, dir)
			if err == nil {
				err = m.Lock(ctx)
			}
			if err == nil {
				err = m.Unlock(ctx)
			}
			if err != nil {
				failed <- fmt.Errorf("lock and unlock %s: %w", dir, err)
			}
		}()
		select {
		case err := <-failed:
			t.Fatal(err)
		default:
		}
		if n := seqlock.KnownDirs(s); n > bound {
			t.Fatalf("after %d lock directories the Session remembers %d of them, want at most %d", i+1, n, bound)
		}
	}
	wg.Wait()
	close(failed)
	for err := range failed {
		t.Fatal(err)
	}
	if n := seqlock.KnownDirs(s); n > bound {
		t.Fatalf("after %d lock directories the Session remembers %d of them, want at most %d", dirs, n, bound)
	}
}
