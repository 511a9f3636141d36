// Command class is the workshop host's side of the classroom: one
// ZooKeeper ensemble for the whole room, a class tree where every learner
// has a subtree of their own, and the host's screen.
//
//	go run ./workshop/class serve [-addr 192.168.1.10] [-port 2181] [-dir lockstep-class]
//	go run ./workshop/class watch [-lang zh] [-frames 3]
//	go run ./workshop/class stop  [-forget]
//	go run ./workshop/class simulate [-learners 5]
//	go run ./workshop/class arena show|pause|resume|out NAME|play -name NAME
//
// serve starts a 3-server ensemble (Docker, else a local install: as the
// tests do) or uses ZK_SERVERS, makes the class tree with its ACLs and
// prints the one line learners paste. It runs until Ctrl-C or stop. The
// class directory keeps the class code, the admin secret and a snapshot of
// everyone's progress, so that serving again keeps the class.
//
// docs/classroom.md is the facilitator's guide.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: go run ./workshop/class <command> [flags]

  serve   start the class's ZooKeeper and print the join line (runs until Ctrl-C or stop)
  watch   the host's screen: every learner, who needs help first
  stop    end the class that serve runs
  simulate  learners of rehearsal who step through the chapters (before the room fills)
  arena   the class lock where everyone's lock queues: show, pause, resume, out NAME, play

"go run ./workshop/class <command> -h" lists a command's flags; docs/classroom.md is the guide.
`

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer cancel()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "class:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "watch":
		return watch(ctx, args[1:], stdout, stderr)
	case "stop":
		return stop(ctx, args[1:], stdout, stderr)
	case "simulate":
		return simulate(ctx, args[1:], stdout, stderr)
	case "arena":
		return arenaCmd(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "class: unknown command %q\n\n%s", args[0], usage)
	return errUsage
}
