// Command zkserve starts a ZooKeeper from the local install and keeps it
// running until its standard input closes or it is interrupted, then stops
// it and removes its directory. It prints the connect string, alone on the
// first line of standard output, once every server serves:
//
//	go run ./internal/cmd/zkserve -config stock -servers 3
//	127.0.0.1:40111,127.0.0.1:40114,127.0.0.1:40117
//
// scripts/stock-zookeeper runs the whole suite against what it prints
// (ZK_SERVERS=…), to prove the course works on ZooKeeper as installed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
)

func main() {
	configName := flag.String("config", "stock", "stock (the install's sample zoo.cfg, no JVM options) or fast (the course's own)")
	n := flag.Int("servers", 1, "1 for a standalone server, or an odd number ≥ 3 for an ensemble")
	flag.Parse()
	config, err := zkserver.ParseConfig(*configName)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	var connect string
	var stop func()
	if *n == 1 {
		srv, err := zkserver.StartLocalWith(ctx, config)
		stop = srv.Close
		if err == nil {
			connect = srv.ConnectString()
		}
		err = fail(err)
	} else {
		e, err := zkserver.StartLocalEnsembleWith(ctx, *n, config)
		stop = e.Close
		if err == nil {
			connect = e.ConnectString()
			_, err = e.WaitLeader(ctx)
		}
		err = fail(err)
	}
	cancel()
	if connect == "" {
		stop()
		os.Exit(1)
	}
	fmt.Println(connect)
	fmt.Fprintf(os.Stderr, "zkserve: ZooKeeper %s (%s configuration) at %s; close standard input or press Ctrl-C to stop it\n",
		zkserver.Version(context.Background(), firstOf(connect)), config, connect)

	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	select {
	case <-done:
	case <-sig:
	}
	stop()
}

func fail(err error) error {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return err
}

func firstOf(connect string) string {
	for i, c := range connect {
		if c == ',' {
			return connect[:i]
		}
	}
	return connect
}
