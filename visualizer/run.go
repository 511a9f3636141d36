package main

import (
	"context"
	"io"

	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/visualizer/tui"
	"github.com/lockstep-zk/lockstep/visualizer/world"
)

// run shows o's chapter live: the world (visualizer/world: the workers,
// their sessions, the watches) on serversFlag's servers, in the view
// (visualizer/tui), until the learner quits or ctx ends. The supervisor
// always passes -servers; without it (a run of the view alone) a server
// is started and stopped here. Bad options are an error before anything
// connects. A scene's panic is returned as a *world.PanicError.
func run(ctx context.Context, serversFlag string, o tui.Options, cfg world.Config) error {
	if err := o.Check(); err != nil {
		return err
	}
	cfg.Scenes = o.Scenes
	if err := cfg.Check(); err != nil {
		return err
	}
	servers, stopServer, err := demo.Servers(ctx, serversFlag, io.Discard)
	defer stopServer()
	if err != nil {
		return err
	}
	cfg.Servers = servers
	w, err := world.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer w.Close()
	return tui.Run(ctx, w, o)
}
