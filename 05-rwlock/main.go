// Command 05-rwlock shows the read-write lock: readers read the counter
// under the read lock, several at once; writers do the articles' unguarded
// age++ under the write lock, alone. Every node says READ or WRIT, and the
// timeline shows who waits behind whom:
//
//	go run ./05-rwlock                       # 3 workers, 2 of them readers
//	go run ./05-rwlock -workers 6 -readers 1
//	go run ./05-rwlock -nolock               # writers lose updates
//
// The last line is counter=N expected=N, where only writers count. The
// common demo (internal/demo) has every worker increment, so this chapter
// runs its own small loop with the same flags and the same timeline.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zkconn"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
)

func main() {
	fs := flag.NewFlagSet("05-rwlock", flag.ExitOnError)
	cfg := demo.Flags(fs, "05-rwlock")
	readers := fs.String("readers", "0.5", "how many workers read: a count (2) or a fraction of -workers, rounded (0.5)")
	fs.Parse(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg.Set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { cfg.Set[f.Name] = true })
	run := func() error { return run(ctx, *cfg, *readers, os.Stdout) }
	if cfg.TUI { // the visualizer on this chapter instead of the timeline
		run = func() error { return tui.Run(ctx, tui.FromDemo("05", *cfg)) }
	}
	err := run()
	stop()
	demo.Exit(ctx, err)
}

func run(ctx context.Context, cfg demo.Config, readersFlag string, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	readers, err := readerCount(readersFlag, cfg.Workers)
	if err != nil {
		return err
	}
	servers, stopServer, err := demo.Servers(ctx, cfg.Servers, out)
	defer stopServer()
	if err != nil {
		return err
	}
	admin, events, err := zkconn.Dial(ctx, servers, cfg.Session)
	if err != nil {
		return err
	}
	go zkconn.Drain(events)
	defer admin.Close()
	start, err := demo.EnsureCounter(admin, cfg.Counter)
	if err != nil {
		return err
	}

	writers := cfg.Workers - readers
	mode := "with the lock"
	if cfg.NoLock {
		mode = "WITHOUT the lock (-nolock)"
	}
	fmt.Fprintln(out, "05-rwlock: readers share, writers exclude, everyone in order")
	fmt.Fprintf(out, "readers: %d, writers: %d, rounds: %d each; lock %s, %s; counter %s starts at %d\n",
		readers, writers, cfg.Rounds, cfg.Path, mode, cfg.Counter, start)

	tl := &demo.Timeline{Out: out, Quiet: cfg.Quiet, Start: time.Now()}
	tally := &event.Tally{}
	obs := event.Observer(event.Tee(tl.Observe, tally.Observe))
	var wg sync.WaitGroup
	errs := make(chan error, cfg.Workers)
	nr, nw := 0, 0
	for i := range cfg.Workers {
		// Alternate the kinds so readers and writers start side by side.
		reader := nr < readers && (i%2 == 0 || nw == writers)
		name := fmt.Sprintf("writer-%d", nw+1)
		if reader {
			nr++
			name = fmt.Sprintf("reader-%d", nr)
		} else {
			nw++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(ctx, cfg, servers, reader, obs.WithOwner(name)); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if err := errors.Join(all...); err != nil {
		return err
	}
	final, err := demo.ReadCounter(admin, cfg.Counter)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "requests=%d notifications=%d acquisitions=%d\n",
		tally.Count(event.Request), tally.Count(event.Notified), tally.Count(event.Acquired))
	fmt.Fprintf(out, "counter=%d expected=%d\n", final, start+writers*cfg.Rounds)
	return nil
}

// work is one worker with its own session: a reader reads the counter under
// the read lock, a writer does age++ under the write lock.
func work(ctx context.Context, cfg demo.Config, servers []string, reader bool, obs event.Observer) error {
	conn, events, err := zkconn.Dial(ctx, servers, cfg.Session)
	if err != nil {
		return err
	}
	go zkconn.Drain(events)
	defer conn.Close()
	m, err := rwlock.New(conn, cfg.Path, rwlock.WithObserver(obs), rwlock.WithSessionTimeout(cfg.Session))
	if err != nil {
		return err
	}
	side := m.Write()
	if reader {
		side = m.Read()
	}
	for range cfg.Rounds {
		if !cfg.NoLock {
			if err := side.Lock(ctx); err != nil {
				return err
			}
		}
		v, err := demo.ReadCounter(conn, cfg.Counter)
		time.Sleep(cfg.Hold)
		switch {
		case err != nil:
		case reader:
			obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("reads counter = %d", v)})
		default: // unguarded: only the lock keeps it correct
			if _, err = conn.Set(cfg.Counter, []byte(strconv.Itoa(v+1)), -1); err == nil {
				obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("counter %d → %d", v, v+1)})
			}
		}
		if !cfg.NoLock {
			// Unlock even if ctx is done (Ctrl-C), so nothing is left behind.
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			err = errors.Join(err, side.Unlock(uctx))
			cancel()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readerCount reads -readers: a count, or a fraction of the workers.
func readerCount(s string, workers int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f < 0 || f > 1 {
			return 0, fmt.Errorf("-readers %q: want a count or a fraction between 0 and 1", s)
		}
		n = int(f*float64(workers) + 0.5)
	}
	if n < 0 || n > workers {
		return 0, fmt.Errorf("-readers %d: want between 0 and -workers (%d)", n, workers)
	}
	return n, nil
}
