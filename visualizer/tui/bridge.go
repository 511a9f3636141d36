package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/lockstep-zk/lockstep/internal/demo"
)

// The chapters' -tui flag used to call Run with a chapter key, which made
// every chapter compile every other one through this package. Until each
// NN-name/main.go runs the visualizer itself, Run with a Chapter and no
// Scenes still works: it runs `go run` on the visualizer, which lists the
// scenes. Delete this file (and Options.Persistent) once no chapter's main
// imports this package: `grep -ln 'lockstep/visualizer' 0*/main.go`.

const visualizerPkg = "github.com/lockstep-zk/lockstep/visualizer"

// runVisualizer runs the visualizer on opts.Chapter in this terminal.
func runVisualizer(ctx context.Context, opts Options) error {
	args := []string{"run", visualizerPkg, "-chapter", opts.Chapter}
	if opts.Servers != "" {
		args = append(args, "-servers", opts.Servers)
	}
	if opts.Workers != 0 {
		args = append(args, "-workers", fmt.Sprint(opts.Workers))
	}
	if opts.Hold != 0 {
		args = append(args, "-hold", opts.Hold.String())
	}
	if opts.Session != 0 {
		args = append(args, "-session", opts.Session.String())
	}
	if opts.Persistent {
		args = append(args, "-persistent")
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	return cmd.Run()
}

// FromDemo turns a lock chapter's demo flags into Options for that chapter,
// for "go run ./NN-name -tui". Only the flags given on the command line are
// carried over; the others keep the visualizer's defaults (the timeline's
// 50 ms hold is too fast to watch).
func FromDemo(chapter string, cfg demo.Config) Options {
	o := Options{Chapter: chapter, Servers: cfg.Servers}
	if cfg.Set["workers"] {
		o.Workers = cfg.Workers
	}
	if cfg.Set["hold"] {
		o.Hold = cfg.Hold
	}
	if cfg.Set["session"] {
		o.Session = cfg.Session
	}
	return o
}
