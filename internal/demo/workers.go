package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/contend"
	"github.com/lockstep-zk/lockstep/internal/znode"
)

// workers casts them: the chapter's Workers, or worker-1 … worker-n.
func (ch Chapter) workers(n int) ([]Worker, error) {
	if ch.Workers != nil {
		return ch.Workers(n)
	}
	ws := make([]Worker, n)
	for i := range ws {
		ws[i] = Worker{Name: fmt.Sprintf("worker-%d", i+1)}
	}
	return ws, nil
}

func (ch Chapter) run(ctx context.Context, env *Env, cfg Config) (Result, error) {
	ws, err := ch.workers(cfg.Workers)
	if err != nil {
		return Result{}, err
	}
	if cfg.Counter == "" {
		cfg.Counter = env.Root + "/counter"
	}
	start, err := ensureCounter(ctx, env, env.Admin, cfg.Counter)
	if err != nil {
		return Result{}, err
	}
	writers := 0
	for _, w := range ws {
		if !w.Reader {
			writers++
		}
	}

	fmt.Fprintln(env.Out, ch.Title)
	mode := "with the lock"
	if cfg.NoLock {
		mode = "WITHOUT the lock (-nolock)"
	}
	who := plural(len(ws), "worker")
	if ch.Workers != nil { // a cast of the chapter's own: who reads, who writes
		who += fmt.Sprintf(" (%s, %s)", plural(len(ws)-writers, "reader"), plural(writers, "writer"))
	}
	fmt.Fprintf(env.Out, "%s × %s on %s, %s; counter %s starts at %d\n", who, plural(cfg.Rounds, "round"), cfg.Path, mode, cfg.Counter, start)

	tl := NewTimeline(env.Out)
	if cfg.Quiet {
		tl.Show = Milestone
	}
	tally := &event.Tally{}
	obs := event.Tee(tl.Observe, tally.Observe)
	var wg sync.WaitGroup
	errs := make([]error, len(ws))
	for i, w := range ws {
		wg.Go(func() {
			if err := ch.work(ctx, env, cfg, w, obs.WithOwner(w.Name)); err != nil {
				errs[i] = fmt.Errorf("%s: %w", w.Name, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}

	final, err := contend.ReadCounter(env.Admin, cfg.Counter)
	if err != nil {
		return Result{}, err
	}
	res := Result{Start: start, Final: final, Expected: start + writers*cfg.Rounds, Tally: tally}
	fmt.Fprintf(env.Out, "requests=%d notifications=%d acquisitions=%d\n",
		tally.Count(event.Request), tally.Count(event.Notified), tally.Count(event.Acquired))
	fmt.Fprintf(env.Out, "counter=%d expected=%d\n", res.Final, res.Expected)
	return res, nil
}

// work is one worker: its own session, its own lock, Rounds times the
// critical section — age++ for a writer, a read for a reader.
func (ch Chapter) work(ctx context.Context, env *Env, cfg Config, w Worker, obs event.Observer) error {
	conn, newLock, closeSession, err := ch.open(ctx, env, w.Reader)
	if err != nil {
		return err
	}
	defer closeSession()
	var l Locker
	if !cfg.NoLock {
		if l, err = newLock(cfg.Path, obs); err != nil {
			return err
		}
	}
	critical := func(ctx context.Context) error {
		v, err := contend.Increment(ctx, conn, cfg.Counter, cfg.Hold)
		if err == nil {
			obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("counter %d → %d", v, v+1)})
		}
		return err
	}
	if w.Reader {
		critical = func(ctx context.Context) error {
			v, err := contend.ReadCounter(conn, cfg.Counter)
			if err == nil {
				obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("reads counter = %d", v)})
				err = contend.Hold(cfg.Hold)(ctx)
			}
			return err
		}
	}
	_, err = contend.Loop(ctx, l, cfg.Rounds, critical)
	return err
}

// open opens one worker's session and returns its conn and the
// constructor of its lock (the read lock for a reader).
func (ch Chapter) open(ctx context.Context, env *Env, reader bool) (*zk.Conn, func(string, event.Observer) (Locker, error), func(), error) {
	if ch.Sessions.open == nil {
		conn, err := env.Dial(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return conn, func(p string, obs event.Observer) (Locker, error) { return ch.NewLock(conn, p, obs) }, conn.Close, nil
	}
	s, err := ch.Sessions.open(ctx, env)
	if err != nil {
		return nil, nil, nil, err
	}
	newLock := ch.Sessions.lock
	if reader {
		newLock = ch.Sessions.readLock
	}
	return s.Conn(), func(p string, obs event.Observer) (Locker, error) { return newLock(s, p, obs) }, s.Close, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ensureCounter creates the counter (and its parents) with 0 if missing,
// and returns its value.
func ensureCounter(ctx context.Context, env *Env, conn *zk.Conn, counter string) (int, error) {
	if err := znode.CreateParents(ctx, conn, counter, env.ACL(), nil); err != nil {
		return 0, fmt.Errorf("create the parents of counter %s: %w", counter, env.Explain(err))
	}
	_, err := conn.Create(counter, []byte("0"), 0, env.ACL())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return 0, fmt.Errorf("create counter %s: %w", counter, env.Explain(err))
	}
	return contend.ReadCounter(conn, counter)
}
