package zktest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

// The package's server is started by the first test that asks for it
// (Server, Servers, ExampleServers, and everything that dials through
// them), not by Main: a run of table tests only (a chapter's rule, the
// workshop's first tier) starts no ZooKeeper and does not wait for one.
// Main stops it after the tests if it was started.
var shared struct {
	once sync.Once
	srv  *zkserver.Server
	err  error
	// main: Main is running the tests, so a server may be started (and
	// will be stopped).
	main bool
}

// errNoMain is the error of a test that asks for the server in a package
// whose TestMain does not call Main.
var errNoMain = errors.New("zktest: no server; does the package's TestMain call zktest.Main?")

// errOver is the error of a goroutine that asks for the server after Main's
// tests are over and it is stopped.
var errOver = errors.New("zktest: the tests are over and the package's server is stopped")

// startBound bounds the server's start (a cold Docker pull, a JVM on a busy
// machine).
const startBound = 3 * time.Minute

// sharedServer returns the package's server, starting it the first time
// (see zkserver.Start); every later call gets the same server, or the same
// error.
func sharedServer() (*zkserver.Server, error) {
	if !shared.main {
		return nil, errNoMain
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startBound)
		defer cancel()
		shared.srv, shared.err = zkserver.Start(ctx)
	})
	return shared.srv, shared.err
}

// stopSharedServer stops the package's server if a test started it, and
// makes sure no late caller starts one after the tests.
func stopSharedServer() {
	shared.once.Do(func() { shared.err = errOver })
	shared.srv.Close() // nil-safe
}
