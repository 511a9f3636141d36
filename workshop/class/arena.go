package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
	"github.com/lockstep-zk/lockstep/workshop/class/classroom"
)

const arenaUsage = `usage: go run ./workshop/class arena [-dir lockstep-class] <action>

  show [-follow N]        the arena now: pause, counter, queue, every caught write (-follow: N more frames, one per change)
  pause | resume          stop the arena after the rounds in progress, or let it go on
  out NAME                take NAME out: delete their lock nodes (a holder does not notice; its next write is refused)
  play -name NAME [-rounds N] [-dwell D]
                          a rehearsal learner with chapter 04's reference lock (SIGSTOP its process for the lid test)
`

// arenaCmd is the host's side of the arena (package arena): it reads the
// class directory serve keeps, and makes the arena under the class root
// the first time.
func arenaCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, arenaUsage) }
	dir := fs.String("dir", "lockstep-class", "the class directory serve keeps")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprint(stderr, arenaUsage)
		return errUsage
	}
	st, err := readState(*dir)
	if err != nil {
		return fmt.Errorf("arena: read the class directory (is this where serve runs? -dir): %w", err)
	}
	if !st.External && !serving(*dir) {
		return fmt.Errorf("arena: no class is served from %s (start it: go run ./workshop/class serve -dir %s)", *dir, *dir)
	}
	h, err := classroom.OpenHost(ctx, st.Servers, st.Root, st.AdminSecret)
	if err != nil {
		return fmt.Errorf("arena: %w", err)
	}
	defer h.Close()
	a, err := h.OpenArena(ctx, st.Code, st.AdminSecret)
	if err != nil {
		return fmt.Errorf("arena: %w", err)
	}
	action, rest := fs.Arg(0), fs.Args()[1:]
	switch action {
	case "show":
		sf := flag.NewFlagSet("arena show", flag.ContinueOnError)
		sf.SetOutput(stderr)
		follow := sf.Int("follow", 0, "print this many more frames, one at each change (watches, not polling)")
		if err := sf.Parse(rest); err != nil || *follow < 0 {
			return errUsage
		}
		return showArena(ctx, a, *follow, stdout)
	case "pause":
		if err := a.Pause(ctx); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "arena paused: the rounds in progress finish, no new one starts (resume: go run ./workshop/class arena resume)")
		return nil
	case "resume":
		if err := a.Resume(ctx); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "arena running")
		return nil
	case "out":
		if len(rest) != 1 {
			return fmt.Errorf("arena out: want one name")
		}
		gone, err := a.TakeOut(ctx, rest[0])
		if err != nil {
			return err
		}
		if len(gone) == 0 {
			fmt.Fprintf(stdout, "%s has no node in the class lock\n", rest[0])
			return nil
		}
		for _, n := range gone {
			fmt.Fprintf(stdout, "deleted %s (%s's): if it held, it still believes it does; its next write will be refused\n", n, rest[0])
		}
		return nil
	case "play":
		return playArena(ctx, st, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "arena: unknown action %q\n\n%s", action, arenaUsage)
	return errUsage
}

// showArena prints the arena, then follow more frames, one per change.
func showArena(ctx context.Context, a *arena.Arena, follow int, out io.Writer) error {
	for i := 0; ; i++ {
		next, err := a.Next(ctx) // set before reading: no change falls between
		if err != nil {
			return err
		}
		frame, err := arenaFrame(ctx, a)
		if err != nil {
			return err
		}
		fmt.Fprint(out, frame)
		if i == follow {
			return nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			return nil
		}
	}
}

// arenaFrame is the arena as text: what the projector shows.
func arenaFrame(ctx context.Context, a *arena.Arena) (string, error) {
	paused, err := a.Paused(ctx)
	if err != nil {
		return "", err
	}
	c, _, err := a.Counter(ctx)
	if err != nil {
		return "", err
	}
	q, err := a.Queue(ctx)
	if err != nil {
		return "", err
	}
	caught, err := a.Caught(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	state := "running"
	if paused {
		state = "paused"
	}
	last := ""
	if c.Writer != "" {
		last = " (last: " + c.Writer + ")"
	}
	fmt.Fprintf(&b, "arena %s · %s · count %d%s\n", a.Dir(), state, c.N, last)
	names := make([]string, len(q))
	for i, e := range q {
		names[i] = e.Name
		if i == 0 {
			names[i] += " (holds)"
		}
	}
	if len(q) == 0 {
		names = []string{"nobody"}
	}
	fmt.Fprintf(&b, "queue (%d): %s\n", len(q), strings.Join(names, " · "))
	fmt.Fprintf(&b, "caught (%d)\n", len(caught))
	for _, x := range caught {
		fmt.Fprintf(&b, "  %v\n", x)
	}
	return b.String(), nil
}

// playArena is one rehearsal learner: chapter 04's reference lock, on a
// session of its own, and the counter on another (the resource's client,
// as in chapter 08). It prints a line per round.
func playArena(ctx context.Context, st classState, args []string, stdout, stderr io.Writer) error {
	pf := flag.NewFlagSet("arena play", flag.ContinueOnError)
	pf.SetOutput(stderr)
	name := pf.String("name", "", "the learner's name in the arena")
	rounds := pf.Int("rounds", 0, "rounds to play (0: until Ctrl-C)")
	dwell := pf.Duration("dwell", 200*time.Millisecond, "time inside the lock, between the read and the write")
	session := pf.Duration("session", 4*time.Second, "the lock's session timeout (how long a closed lid holds the queue)")
	if err := pf.Parse(args); err != nil {
		return errUsage
	}
	if err := classroom.CheckName(*name); err != nil {
		return fmt.Errorf("arena play: -name: %w", err)
	}
	jl := classroom.JoinLine{Servers: st.Servers, Root: st.Root, Code: st.Code}
	err := classroom.Play(ctx, jl, *name, *rounds, *dwell, *session, func(o arena.Outcome) {
		switch {
		case o.Caught != nil:
			fmt.Fprintf(stdout, "%s: caught: %v\n", *name, o.Caught)
		default:
			fmt.Fprintf(stdout, "%s: wrote %d\n", *name, o.Count)
		}
	})
	if errors.Is(err, context.Canceled) || errors.Is(err, seqlock.ErrSessionExpired) {
		fmt.Fprintf(stdout, "%s: leaves the arena (%v)\n", *name, err)
		return nil
	}
	return err
}
