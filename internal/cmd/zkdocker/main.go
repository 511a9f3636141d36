// Command zkdocker is lockstep's Docker path: it starts the official
// ZooKeeper image through testcontainers-go, prints where it serves, and
// removes the containers when its standard input closes or on SIGTERM.
// internal/zkserver runs it (go run ./internal/cmd/zkdocker) when it finds a
// Docker engine, so that the chapters' own binaries link no Docker client:
//
//	$ go run ./internal/cmd/zkdocker -n 1
//	{"protocol":1,"msg":{"kind":"ready","servers":["127.0.0.1:32771"]}}
//
// With -kept and a zkserver.HelperRequest (op kept) it starts a kept
// ensemble instead (zkserver.StartKeptEnsemble): each member's host data
// directory bind-mounted as ZooKeeper's dataDir, its client port published
// on the host address asked for, the containers run as the host's uid:gid.
//
// Its standard output carries only the typed messages zkserver reads, one
// per line (zkserver.HelperReply, written and read by zkserver's
// WriteHelperMessage and ReadHelperMessage; see internal/zkserver/helper.go):
// ready with every server once every server serves, or error and exit
// status 1. Once ready it answers each zkserver.HelperRequest (stop or
// start ensemble member I, 0-based) with ok or error; a line that is not a
// request is answered with error. If the helper itself is killed (SIGKILL), only
// testcontainers-go's reaper (Ryuk) removes the containers, within seconds;
// with Ryuk off they stay, and the helper says so when it starts.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

func main() {
	n := flag.Int("n", 1, "1 for a standalone server, or an odd number ≥ 3 for an ensemble")
	kept := flag.String("kept", "", "a kept ensemble to start instead: a zkserver.HelperRequest, op kept, as one message of the protocol")
	flag.Parse()
	var spec *zkserver.HelperKept
	if *kept != "" {
		req, err := zkserver.ReadHelperMessage[zkserver.HelperRequest]([]byte(*kept))
		if err == nil && req.Op != zkserver.HelperKeep {
			err = fmt.Errorf("op %q, want %q", req.Op, zkserver.HelperKeep)
		}
		if err != nil {
			zkserver.WriteHelperMessage(os.Stdout, zkserver.HelperReply{Kind: zkserver.HelperError, Error: oneLine(fmt.Errorf("-kept: %w", err))})
			os.Exit(1)
		}
		spec = req.Kept
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(serve(ctx, os.Stdin, os.Stdout, func(ctx context.Context) (cluster, error) {
		var cl *containers
		var err error
		if spec != nil {
			cl, err = startKeptContainers(ctx, *spec)
		} else {
			cl, err = startContainers(ctx, *n)
		}
		if err != nil {
			return nil, err
		}
		return cl, nil
	}))
}

// cluster is what serve drives: the containers, or a test's stand-in.
type cluster interface {
	Addrs() []string
	Stop(ctx context.Context, i int) error
	Start(ctx context.Context, i int) error
	Close()
}

// serve starts the cluster, says ready or error on out, then answers the
// requests read from in until in closes or ctx ends, and removes the cluster.
// It returns the exit status.
func serve(ctx context.Context, in io.Reader, out io.Writer, start func(context.Context) (cluster, error)) int {
	requests := make(chan string)
	go func() {
		defer close(requests)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			requests <- sc.Text()
		}
	}()

	// Starting can take a minute (a pull); end-of-file on in or a signal
	// during it cancels it, and whatever was started is removed.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type started struct {
		cl  cluster
		err error
	}
	done := make(chan started, 1)
	go func() {
		cl, err := start(sctx)
		done <- started{cl, err}
	}()
	var cl cluster
	for cl == nil {
		select {
		case s := <-done:
			if s.err != nil {
				zkserver.WriteHelperMessage(out, zkserver.HelperReply{Kind: zkserver.HelperError, Error: oneLine(s.err)})
				return 1
			}
			cl = s.cl
		case _, ok := <-requests:
			if !ok {
				requests = nil // nobody is waiting for us any more
				cancel()
			}
			// a request before ready has nothing to act on: ignored
		}
	}
	defer cl.Close()
	if sctx.Err() != nil {
		return 0 // started just as we were told to stop
	}
	zkserver.WriteHelperMessage(out, zkserver.HelperReply{Kind: zkserver.HelperReady, Servers: cl.Addrs()})

	for {
		select {
		case <-ctx.Done():
			return 0
		case req, ok := <-requests:
			if !ok {
				return 0
			}
			reply := zkserver.HelperReply{Kind: zkserver.HelperOK}
			if err := handle(ctx, cl, req); err != nil {
				reply = zkserver.HelperReply{Kind: zkserver.HelperError, Error: oneLine(err)}
			}
			zkserver.WriteHelperMessage(out, reply)
		}
	}
}

// handle carries out one request line: a zkserver.HelperRequest.
func handle(ctx context.Context, cl cluster, line string) error {
	req, err := zkserver.ReadHelperMessage[zkserver.HelperRequest]([]byte(line))
	if err != nil {
		return fmt.Errorf("%q: %w", line, err)
	}
	if req.Op == zkserver.HelperKeep {
		return fmt.Errorf("%s: the servers are started already; a kept ensemble is asked for with -kept", req.Op)
	}
	if req.Member < 0 || req.Member >= len(cl.Addrs()) {
		return fmt.Errorf("%s %d: want a member 0 ≤ I < %d", req.Op, req.Member, len(cl.Addrs()))
	}
	if req.Op == zkserver.HelperStop {
		return cl.Stop(ctx, req.Member)
	}
	return cl.Start(ctx, req.Member)
}

// oneLine keeps an error on one protocol line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
