package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lockstep-zk/lockstep/internal/zkserver"
	"github.com/lockstep-zk/lockstep/internal/zksession"
	"github.com/lockstep-zk/lockstep/visualizer/observe"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

// runObserve is -observe DIR: the queue of a lock directory the visualizer
// does not own, on servers someone else runs (-servers, else $ZK_SERVERS),
// with ZK_AUTH's credentials if set. It starts no server, runs no worker
// and writes nothing, so it needs no supervisor: quitting leaves nothing
// behind. When DIR is the class's arena, or its class lock's directory, it
// watches the class lock and shows the arena's counter and catches too
// (arena.go).
func runObserve(dir, serversFlag string, o tui.Options) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := observeDir(ctx, dir, serversFlag, o); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		return 1
	}
	return 0
}

func observeDir(ctx context.Context, dir, serversFlag string, o tui.Options) error {
	if !strings.HasPrefix(dir, "/") || (len(dir) > 1 && strings.HasSuffix(dir, "/")) {
		return fmt.Errorf("-observe %q: want a znode path, like /locks/orders", dir)
	}
	if serversFlag == "" {
		serversFlag = os.Getenv("ZK_SERVERS")
	}
	if serversFlag == "" {
		return errors.New("-observe watches someone else's ZooKeeper: give -servers host:port,… or set ZK_SERVERS")
	}
	servers, err := zkserver.ParseServers(serversFlag)
	if err != nil {
		return err
	}
	conn, events, err := zksession.Connect(ctx, servers, zksession.DefaultTimeout)
	if err != nil {
		return fmt.Errorf("observe %s: %w", dir, err)
	}
	defer conn.Close()
	a, lockDir, isArena, err := findArena(ctx, conn, dir)
	if err != nil {
		return fmt.Errorf("observe %s: %w", dir, err)
	}
	dir = lockDir
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := observe.Start(wctx, conn, dir)
	go obs.Follow(events) // until the observer stops
	if isArena {
		done := make(chan struct{})
		go func() { defer close(done); followArena(wctx, a, obs.Add) }()
		defer func() { cancel(); <-done }()
	}
	ro := tui.ObserveOptions{Dir: dir, Lang: o.Lang, Frames: o.Frames, Interval: o.Interval}
	if o.Frames > 0 {
		ro.Width, ro.Height = o.Width, o.Height
	}
	return tui.RunObserve(ctx, obs, ro)
}
