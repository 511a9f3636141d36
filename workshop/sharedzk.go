package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// sharedZK is the runner's one ZooKeeper. Without it every check's go test
// starts a server of its own (internal/zktest, at the first test that needs
// one): a JVM start of 1–2.5 s per check, more on a busy machine. The
// runner lives long, so it starts one server when it starts, beside the
// learner's first edit, and hands it to the lesson's checks as ZK_SERVERS;
// each test works in a random root of its own (zktest.Root), so checks of
// different chapters never meet. The full suite still starts its own: a
// few of its tests skip on a server given in ZK_SERVERS, and the full
// verdict keeps all of its tests.
//
// It is not started in a class (the class's servers are used) nor when the
// learner set ZK_SERVERS (theirs is used, as by every check). If it cannot
// start, or dies, the checks start their own again, as before, and the
// runner says so once.
type sharedZK struct {
	ready  chan struct{} // closed when the start is over: srv or err is set
	srv    *zkserver.Server
	err    error
	cancel context.CancelFunc

	mu   sync.Mutex
	gone error // why the checks no longer use it; nil while they do
}

// startSharedZK starts the server in the background.
func startSharedZK(ctx context.Context) *sharedZK {
	ctx, cancel := context.WithCancel(ctx)
	z := &sharedZK{ready: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(z.ready)
		z.srv, z.err = zkserver.Start(ctx)
	}()
	return z
}

// wantSharedZK: not in a class, and not when the learner set ZK_SERVERS.
func wantSharedZK(inClass bool) bool {
	return !inClass && strings.TrimSpace(os.Getenv("ZK_SERVERS")) == ""
}

// servers is the ZK_SERVERS value a check uses: the server's address once
// it is up (a check that comes first waits for its start), "" if there is
// none. lost is non-nil the first time the server is found unusable (it
// did not start, or no longer answers), and only that time: the caller
// says so, once. A nil sharedZK has no server.
func (z *sharedZK) servers(ctx context.Context) (list string, lost error) {
	if z == nil {
		return "", nil
	}
	select {
	case <-z.ready:
	case <-ctx.Done():
		return "", nil
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.gone != nil {
		return "", nil
	}
	err := z.err
	if err == nil {
		err = z.answers(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", nil // the check was stopped, not the server
		}
		z.gone = err
		return "", err
	}
	return z.srv.ConnectString(), nil
}

// answers asks the server what it is (srvr, which every server allows): a
// server that died, or hangs, or no longer serves, is not handed to a
// check, which would then fail for a reason not its own.
func (z *sharedZK) answers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := zkserver.Mode(ctx, z.srv.Servers[0])
	return err
}

// stop stops the server, or its start, and waits until it is gone. A nil
// sharedZK has nothing to stop.
func (z *sharedZK) stop() {
	if z == nil {
		return
	}
	z.cancel()
	<-z.ready
	z.srv.Close()
}
