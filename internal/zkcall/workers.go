package zkcall

import "time"

// A request whose ctx can end runs on a worker goroutine. Starting one per
// request would cost a goroutine for each of the three to six requests of
// a lock's acquisition; a worker that has run one waits a while for the
// next instead, so a busy process starts new workers only when more
// requests are in flight at once than before.

// jobs hands a request to an idle worker; a send succeeds only when one is
// waiting on it.
var jobs = make(chan func())

// idleFor is how long a worker waits for its next request before it ends.
const idleFor = 2 * time.Second

// run runs f on an idle worker, or on a new one if none is idle.
func run(f func()) {
	select {
	case jobs <- f:
	default:
		go work(f)
	}
}

func work(f func()) {
	idle := time.NewTimer(idleFor)
	defer idle.Stop()
	for {
		f()
		idle.Reset(idleFor)
		if f = next(idle); f == nil {
			return
		}
	}
}

// next waits for the worker's next request, nil once it has idled for
// idleFor. (Tests that look for leaked goroutines ignore a worker here.)
func next(idle *time.Timer) func() {
	select {
	case f := <-jobs:
		return f
	case <-idle.C:
		return nil
	}
}
