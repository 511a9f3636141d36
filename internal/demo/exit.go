package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Signalled is the cause of a demo's context when a signal ended it.
type Signalled struct{ Signal os.Signal }

func (s *Signalled) Error() string { return "stopped by " + s.Signal.String() }

// signalContext ends on the first Ctrl-C (SIGINT), SIGTERM or SIGHUP (the
// terminal went away); its cause is a *Signalled. A second signal is not
// caught: it ends the program at once, as a second Ctrl-C should.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&Signalled{s})
		case <-done:
		}
	}()
	return ctx, func() {
		select {
		case <-done:
		default:
			close(done)
		}
		signal.Stop(sigs)
	}
}

// ExitCode is an error that only carries an exit code (the visualizer's,
// after -tui): Exit exits with it and prints nothing.
type ExitCode int

func (c ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// usageError is a flag error: the flag package has printed it with the usage.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// Exit ends a demo's main: exit code 0 after success, 2 after a bad flag
// (0 after -h), 128+n after signal n (by then every lock has been released,
// every session closed, the run's nodes deleted and the server we started
// stopped), the visualizer's own code after -tui, and 1 after any other
// error, which it prints.
func Exit(ctx context.Context, err error) {
	var code ExitCode
	var bad usageError
	var sig *Signalled
	switch {
	case errors.As(err, &code):
		os.Exit(int(code))
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &bad):
		os.Exit(2)
	case errors.As(context.Cause(ctx), &sig):
		if errors.Is(err, errNodesLeft) || (err != nil && !errors.Is(err, context.Canceled)) {
			// One true line: what went wrong on the way out, not the
			// clean-exit promise after it.
			fmt.Fprintln(os.Stderr, "error:", err)
			fmt.Fprintf(os.Stderr, "interrupted (%v): stopped, but not everything could be cleaned up (above)\n", sig.Signal)
		} else {
			fmt.Fprintf(os.Stderr, "interrupted (%v): locks released, sessions closed, this run's nodes gone\n", sig.Signal)
		}
		n := 1
		if s, ok := sig.Signal.(syscall.Signal); ok {
			n = int(s)
		}
		os.Exit(128 + n)
	case err != nil:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
