package leader_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// TestCrashOfTheZooKeeperLeaderElectsNoSecondLeader stops the server that
// leads a 3-server ensemble while three candidates, each connected to all
// three servers, keep campaigning. ZooKeeper elects a new leader of its own
// and every client reconnects; through all that, at most one candidate may
// believe it leads: the one in office keeps its leadership, or it steps
// down (Lost) before anyone else starts.
func TestCrashOfTheZooKeeperLeaderElectsNoSecondLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server ensemble")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ens, err := zkserver.StartEnsemble(ctx, 3)
	t.Cleanup(ens.Close)
	if err != nil {
		t.Fatal(err)
	}

	const sessionTimeout = 4 * time.Second
	const dir = "/election"
	h := &history{}
	run, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var wg sync.WaitGroup
	var elections []*leader.Election
	for i := range 3 {
		who := fmt.Sprintf("candidate-%d", i)
		s, err := seqlock.NewSession(ctx, ens.Servers, seqlock.WithSessionTimeout(sessionTimeout))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		e := newElection(t, s, dir, seqlock.WithObserver(h.observer(who)))
		elections = append(elections, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			campaignUntilDone(run, t, e, who, h)
		}()
	}
	admin, err := seqlock.NewSession(ctx, ens.Servers, seqlock.WithSessionTimeout(sessionTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	asker := newElection(t, admin, dir)
	whoLeads := func() string {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		l, err := asker.Leader(qctx)
		if err != nil {
			return ""
		}
		return l.Value
	}
	zktest.Eventually(t, zktest.Patience, "a candidate leads", func() bool { return whoLeads() != "" })

	zkLeader, err := ens.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	if err := ens.Stop(ctx, zkLeader); err != nil {
		t.Fatal(err)
	}
	if _, err := ens.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, zktest.Patience, "a candidate leads again", func() bool { return whoLeads() != "" })
	t.Logf("stopped ZooKeeper member %d, the ensemble's leader, at +0s", zkLeader)
	// Give a second leader every chance to appear: a full session timeout.
	time.Sleep(sessionTimeout)
	if err := ens.Restart(ctx, zkLeader); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, zktest.Patience, "a candidate leads after the restart", func() bool { return whoLeads() != "" })

	stopRun()
	wg.Wait()
	h.assertOneAtATime(t)
	h.mu.Lock()
	for _, l := range h.terms {
		t.Logf("token %d: %s from +%v to +%v", l.token, l.who,
			l.start.Sub(stopped).Round(time.Millisecond), l.end.Sub(stopped).Round(time.Millisecond))
	}
	h.mu.Unlock()
}

// campaignUntilDone keeps a candidate in the race until ctx ends: campaign,
// lead until Lost, resign (which reports ErrLost and makes sure the node is
// gone), campaign again. A Campaign cut short by the crash (its request
// failed) is simply retried.
func campaignUntilDone(ctx context.Context, t testing.TB, e *leader.Election, who string, h *history) {
	for ctx.Err() == nil {
		if err := e.Campaign(ctx, who); err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Logf("%s: %v (trying again)", who, err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		select {
		case <-e.Lost():
		case <-ctx.Done():
			h.end(who, time.Now())
		}
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		e.Resign(rctx)
		cancel()
	}
}
