package locktest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// Exclusion is the suite's first scenario on its own, for tests that build
// the contenders their own way (reliability/: each over a slow link): N
// contenders, M rounds each of Lock, the unguarded age++ on a counter
// znode, Unlock. It fails on two holders at once, a lost update, a token
// that does not increase, or anything left behind.
func Exclusion(t *testing.T, impl Impl) {
	n, m := impl.sizes()
	root := zktest.Root(t)
	lockPath, counter := root+"/lock", root+"/counter"
	admin := zktest.Connect(t)
	if _, err := admin.Create(counter, []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	var inside atomic.Int32
	var mu sync.Mutex
	var tokens []int64
	var wg sync.WaitGroup
	errs := make(chan error, 2*n*m)
	// Who held, from when to when, is what the suite sees (Lock returned,
	// Unlock was called), whatever the lock says: a broken lock may hold
	// without saying so. The rest of a replay (requests, watches,
	// notifications: why a second one got in) is the lock's own word.
	rec := zktest.Recorder(t)
	for i := range n {
		obs := rec.Observer(fmt.Sprint("contender-", i))
		conn, l := contender(t, impl, lockPath, ownWork(obs))
		wg.Go(func() {
			// The same loop as the demos' workers: Lock, the articles'
			// age++ (read, think, write back, no version check), Unlock.
			_, err := contend.Loop(zktest.Context(t), l, m, func(ctx context.Context) error {
				held := heldEvent(l, lockPath)
				obs.Emit(held)
				defer func() { held.Kind, held.Time = event.Released, time.Time{}; obs.Emit(held) }()
				defer inside.Add(-1)
				if in := inside.Add(1); in != 1 {
					rec.BrokeWhere(event.SecondHolder, fmt.Sprintf("contender-%d acquired the lock while another held it", i))
					errs <- fmt.Errorf("contender %d: %d holders at once", i, in)
				}
				if tk, ok := l.(Tokener); ok {
					mu.Lock()
					tokens = append(tokens, tk.Token())
					mu.Unlock()
				}
				_, err := contend.Increment(ctx, conn, counter, time.Millisecond)
				return err
			})
			if err != nil {
				errs <- fmt.Errorf("contender %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	b, _, err := admin.Get(counter)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != strconv.Itoa(n*m) {
		t.Errorf("counter = %s, want %d: updates were lost", got, n*m)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] < tokens[i-1] {
			rec.BrokeWhere(tokenNotIncreasing, fmt.Sprintf("token %d after %d: fencing tokens must increase", tokens[i], tokens[i-1]))
			t.Errorf("token %d after %d: fencing tokens must increase", tokens[i], tokens[i-1])
			break
		}
		if tokens[i] == tokens[i-1] {
			// Every token of the lockstep locks is the directory's pzxid
			// as the holder's listing saw it; the previous holder's
			// delete changes it. An equal token is a hold taken on a
			// listing made before the previous holder let go.
			rec.BrokeWhere(tokenNotIncreasing, fmt.Sprintf("token %d twice: a holder took the lock on a listing made before the previous holder let go", tokens[i]))
			t.Errorf("token %d twice: fencing tokens must increase (a holder took the lock on a listing made before the previous holder let go: it did not list the queue again after its wait)", tokens[i])
			break
		}
	}
	AssertClean(t, admin, root, lockPath, counter)
}

// ownWork passes on what a lock tells of its work, for the recording, but
// not its Acquired, Released or Lost: who holds is the suite's to say.
func ownWork(o event.Observer) event.Observer {
	if o == nil {
		return nil
	}
	return func(e event.Event) {
		switch e.Kind {
		case event.Acquired, event.Released, event.Lost:
			return
		}
		o(e)
	}
}

// heldEvent is the Acquired event the suite records for l, with its node
// (a lock without Node, 02's and 03's, holds the lock path itself) and
// token where the lock tells them.
func heldEvent(l Locker, lockPath string) event.Event {
	e := event.Event{Lock: lockPath, Kind: event.Acquired, Node: lockPath}
	if n, ok := l.(interface{ Node() string }); ok {
		e.Node = n.Node()
	}
	if tk, ok := l.(Tokener); ok {
		e.Token = tk.Token()
	}
	return e
}

// tokenNotIncreasing is the first Acquired whose token is not above the
// one before it, -1 if none.
func tokenNotIncreasing(events []event.Event) int {
	var last int64
	for i, e := range events {
		if e.Kind != event.Acquired || e.Token == 0 {
			continue
		}
		if e.Token <= last {
			return i
		}
		last = e.Token
	}
	return -1
}
