// Command player is one learner's lock in the class's arena: the worker
// the workshop runner starts when a learner whose 04 passes presses A. The
// runner builds it as the check builds chapter 04 (-tags workshop and
// course.Overlay), so the seqlock it links is the learner's own
// acquire_workshop.go.
//
//	go build -tags workshop -overlay <overlay.json> -o player ./workshop/class/player
//	player -class 'zk://…/lockstep-class?code=…' -name ada
//
// It speaks one typed message: a JSON line on stdout per round, an
// arena.Outcome. It ends on SIGINT or SIGTERM (its lock node goes with
// its session), or when the lock's session expires; errors go to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

func main() {
	line := flag.String("class", "", "the class's join line")
	name := flag.String("name", "", "the learner's name in the arena")
	rounds := flag.Int("rounds", 0, "rounds to play (0: until stopped)")
	dwell := flag.Duration("dwell", 200*time.Millisecond, "time inside the lock, between the read and the write")
	session := flag.Duration("session", 4*time.Second, "the lock's session timeout")
	flag.Parse()
	jl, err := classroom.ParseJoinLine(*line)
	if err != nil {
		fmt.Fprintln(os.Stderr, "player:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := json.NewEncoder(os.Stdout)
	err = classroom.Play(ctx, jl, *name, *rounds, *dwell, *session, func(o arena.Outcome) { out.Encode(o) })
	if err != nil && !errors.Is(err, context.Canceled) {
		if errors.Is(err, seqlock.ErrSessionExpired) {
			fmt.Fprintln(os.Stderr, "player: the lock's session expired")
		} else {
			fmt.Fprintln(os.Stderr, "player:", err)
		}
		os.Exit(1)
	}
}
