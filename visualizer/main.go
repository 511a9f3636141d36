// Command visualizer shows a chapter's lock at work: K workers, each with
// its own ZooKeeper session, contend for the chapter's real lock against a
// real server, and the terminal shows the queue of lock nodes, who watches
// whom, whom each deletion wakes, and every request. Press k to kill the
// holder, e to expire its session, 3 and 4 to compare the herd with the
// hand-off, q to quit.
//
//	go run ./visualizer                 # chapter 04, 5 workers
//	go run ./visualizer -chapter 03 -workers 8
//	go run ./visualizer -frames 6 -width 80 -height 24   # print frames, no TUI
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

func main() {
	tui.PreflightChild() // -impl exercise checks the learner's lock in a child first
	var o tui.Options
	flag.StringVar(&o.Servers, "servers", "", "ZooKeeper servers host:port,… (default: $ZK_SERVERS, else Docker, else a local install)")
	flag.StringVar(&o.Chapter, "chapter", "04", "chapter to show: 01 to 07 (keys 1-7 switch while running)")
	flag.IntVar(&o.Workers, "workers", 5, "workers, each with its own session")
	flag.DurationVar(&o.Hold, "hold", 300_000_000, "time each holder keeps the lock")
	flag.DurationVar(&o.Session, "session", zkconn.DefaultSessionTimeout, "ZooKeeper session timeout")
	flag.StringVar(&o.Impl, "impl", "reference", "whose locks: reference, or exercise (your code in NN-name/exercise)")
	flag.BoolVar(&o.Persistent, "persistent", false, "chapter 02: use the persistent lock node (a killed holder leaves it stuck)")
	flag.StringVar(&o.Script, "script", "", `keys to press at given times, e.g. "2s:k,6s:e"`)
	flag.IntVar(&o.Frames, "frames", 0, "print this many frames without colour and exit (no TUI)")
	flag.DurationVar(&o.Interval, "interval", 500_000_000, "time between two -frames")
	flag.IntVar(&o.Width, "width", 100, "-frames: width")
	flag.IntVar(&o.Height, "height", 30, "-frames: height")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := tui.Run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "visualizer:", err)
		os.Exit(1)
	}
}
