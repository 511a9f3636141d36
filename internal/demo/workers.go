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
			if err := ch.work(ctx, env, cfg, w, tl, obs.WithOwner(w.Name)); err != nil {
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
// critical section — age++ for a writer, a read for a reader. A session is
// one ZooKeeper session: if the server ends it under the worker (an
// expiry), the worker opens a new one, builds a new lock on it, and does
// the rounds it has left, as an etcd program does when its session's Done
// fires. The round the session ended in is done again unless its critical
// section had already run (an Unlock that finds the hold lost), so the
// counter still comes out exact.
func (ch Chapter) work(ctx context.Context, env *Env, cfg Config, w Worker, tl *Timeline, obs event.Observer) error {
	done := 0 // critical sections that ran
	for {
		s, err := ch.open(ctx, env, w.Reader)
		if err != nil {
			return err
		}
		err = ch.rounds(ctx, cfg, w, obs, s, cfg.Rounds-done, &done)
		ended := s.ended() // under the worker, before our close
		s.close()
		if err == nil || ctx.Err() != nil || !ended {
			return err
		}
		tl.Say(w.Name, "lost its session (%v); it opens a new one and goes on, %d of %d rounds done", err, done, cfg.Rounds)
	}
}

// rounds does n rounds on s, counting in done the critical sections that ran.
func (ch Chapter) rounds(ctx context.Context, cfg Config, w Worker, obs event.Observer, s opened, n int, done *int) error {
	var l Locker
	if !cfg.NoLock {
		var err error
		if l, err = s.newLock(cfg.Path, obs); err != nil {
			return err
		}
	}
	critical := func(ctx context.Context) error {
		v, err := contend.Increment(ctx, s.conn, cfg.Counter, cfg.Hold)
		if err == nil {
			*done++
			obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("counter %d → %d", v, v+1)})
		}
		return err
	}
	if w.Reader {
		critical = func(ctx context.Context) error {
			v, err := contend.ReadCounter(s.conn, cfg.Counter)
			if err == nil {
				obs.Emit(event.Event{Kind: event.Info, Node: cfg.Counter, Detail: fmt.Sprintf("reads counter = %d", v)})
				if err = contend.Hold(cfg.Hold)(ctx); err == nil {
					*done++
				}
			}
			return err
		}
	}
	_, err := contend.Loop(ctx, l, n, critical)
	return err
}

// opened is one worker's session: its conn, the constructor of its lock
// (the read lock for a reader), and how it ends.
type opened struct {
	conn    *zk.Conn
	newLock func(path string, obs event.Observer) (Locker, error)
	close   func()
	done    <-chan struct{} // closed when the session ends; nil for 02–03's plain conn, whose sessions go-zookeeper replaces itself
}

// ended says whether the session ended (before the worker closed it).
func (s opened) ended() bool {
	if s.done == nil {
		return false
	}
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// open opens one worker's session.
func (ch Chapter) open(ctx context.Context, env *Env, reader bool) (opened, error) {
	if ch.Sessions.open == nil {
		conn, err := env.Dial(ctx)
		if err != nil {
			return opened{}, err
		}
		return opened{conn: conn, close: conn.Close,
			newLock: func(p string, obs event.Observer) (Locker, error) { return ch.NewLock(conn, p, obs) }}, nil
	}
	s, err := ch.Sessions.open(ctx, env)
	if err != nil {
		return opened{}, err
	}
	newLock := ch.Sessions.lock
	if reader {
		newLock = ch.Sessions.readLock
	}
	return opened{conn: s.Conn(), close: s.Close, done: s.Done(),
		newLock: func(p string, obs event.Observer) (Locker, error) { return newLock(s, p, obs) }}, nil
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
