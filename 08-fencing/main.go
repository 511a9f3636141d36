// Command 08-fencing plays, three times, the hard question Article 2 raises
// in "单机", under "完美了吗?": a client in a GC pause, whose heartbeats ZooKeeper no
// longer hears, while another client takes the lock.
//
// client-A takes chapter 04's lock and, right before its write, stops: a
// stop-the-world pause. Its link to ZooKeeper goes silent (its own link is
// cut), so the server hears nothing from it, expires its session after the
// session timeout, deletes its lock node and hands the lock to client-B,
// which writes. Then client-A resumes and writes too, still sure it holds
// the lock. What happens to that write depends on the resource:
//
//  1. no fencing: a plain set on the data znode. The stale write lands on
//     top of client-B's newer one: CORRUPTED.
//  2. fencing token: a fencing.Store that refuses tokens older than the
//     newest it has seen. The stale write is REFUSED with ErrStaleToken.
//  3. ZooKeeper multi: fencing.SetIfHeld checks client-A's lock node in the
//     same transaction as the write. The node is gone: REFUSED.
//
// The demo exits 1 if a fenced variant lets the stale write through.
//
//	go run ./08-fencing
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/08-fencing/fencing"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/demo"
	"github.com/lockstep-zk/lockstep/internal/zksession"
)

var verbose bool

// program is the demo; the test runs it too.
var program = demo.Program{
	Name: "08-fencing", Path: "lock", PathUsage: "lock path; the data znode is created beside it",
	Session:      time.Second,
	SessionUsage: "session timeout to ask for: how long client-A's pause must last to lose the lock (the server may grant more)",
	Flags: func(fs *flag.FlagSet) {
		fs.BoolVar(&verbose, "verbose", false, "print every request, watch and notification of the locks too")
	},
	Run: func(ctx context.Context, env *demo.Env) error { _, err := run(ctx, env); return err },
}

func main() { demo.MainProgram(program) }

// A variant is one kind of resource both clients write to.
type variant struct {
	title string
	// refusal is the error a fenced resource refuses a stale write with
	// (nil: the resource is not fenced).
	refusal error
	// write is one client's write of value, as the (supposed) holder of m.
	write func(ctx context.Context, conn *zk.Conn, m *seqlock.Mutex, value string) error
	read  func() (string, error)
}

func variants(admin *zk.Conn, data string) []variant {
	store := &fencing.Store{}
	get := func() (string, error) { b, _, err := admin.Get(data); return string(b), err }
	return []variant{{
		title: "no fencing: both clients write the data znode with a plain set",
		write: func(ctx context.Context, conn *zk.Conn, m *seqlock.Mutex, value string) error {
			return retry(ctx, func() error { _, err := conn.Set(data, []byte(value), -1); return err })
		},
		read: get,
	}, {
		title: "fencing token: both clients write to a fencing.Store with their lock's Token()", refusal: fencing.ErrStaleToken,
		write: func(_ context.Context, _ *zk.Conn, m *seqlock.Mutex, value string) error {
			return store.Write(m.Token(), value)
		},
		read: func() (string, error) { v, _ := store.Read(); return v, nil },
	}, {
		title: "ZooKeeper multi: fencing.SetIfHeld checks the writer's lock node and sets the data znode in one transaction", refusal: fencing.ErrNotHeld,
		write: func(ctx context.Context, conn *zk.Conn, m *seqlock.Mutex, value string) error {
			return retry(ctx, func() error { _, err := fencing.SetIfHeld(ctx, conn, m.Node(), data, []byte(value)); return err })
		},
		read: get,
	}}
}

// verdict is what one variant ended with.
type verdict struct {
	StaleWriteErr error  // what client-A's write returned
	Final         string // the data after both writes
	Corrupted     bool   // client-A's stale value replaced client-B's
	Refused       bool   // the resource refused client-A's write as stale
}

func run(ctx context.Context, env *demo.Env) ([]verdict, error) {
	data := env.Root + "/data"
	tl := demo.NewTimeline(env.Out)
	if !verbose {
		tl.Show = demo.Milestone
	}
	tl.Printf("08 fencing: a paused holder writes after its lock is gone (lock %s, data %s, session timeout: asked %v, granted %v)\n",
		env.Path, data, env.Session, env.Granted(ctx))

	var verdicts []verdict
	for i, v := range variants(env.Admin, data) {
		tl.Restart()
		tl.Printf("\n%d/3 %s\n", i+1, v.title)
		if err := reset(env.Admin, data, env.ACL()); err != nil {
			return nil, err
		}
		vd, err := play(ctx, env, v, tl)
		if err != nil {
			return nil, fmt.Errorf("variant %d: %w", i+1, err)
		}
		switch {
		case vd.Corrupted:
			tl.Printf("  verdict: CORRUPTED: the stale holder overwrote client-B's newer write\n")
		case vd.Refused:
			tl.Printf("  verdict: SAFE: the stale write was refused, client-B's write stands\n")
		}
		if want := v.refusal != nil; vd.Refused != want || vd.Corrupted == want {
			return nil, fmt.Errorf("variant %d: want refused=%v corrupted=%v, got client-A's write %v and data %q",
				i+1, want, !want, vd.StaleWriteErr, vd.Final)
		}
		verdicts = append(verdicts, vd)
	}
	return verdicts, nil
}

// play runs the story once: A holds, A pauses, B takes over and writes, A
// resumes and writes.
func play(ctx context.Context, env *demo.Env, v variant, tl *demo.Timeline) (verdict, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second+10*env.Granted(ctx))
	defer cancel()

	// client-A talks to ZooKeeper over a link of its own, so that its
	// pause can be made to look, from the server, like a real one.
	sessA, link, err := demo.DialCuttable(ctx, env, seqlock.NewSession)
	if err != nil {
		return verdict{}, err
	}
	defer sessA.Close()
	defer link.Restore() // first: let client-A's goodbye through
	// client-B keeps the default session timeout: only client-A's session
	// is meant to expire.
	sessB, err := demo.Dial(ctx, env, seqlock.NewSession, seqlock.WithSessionTimeout(zksession.DefaultTimeout))
	if err != nil {
		return verdict{}, err
	}
	defer sessB.Close()
	// The resource is not the lock service: each client writes the data
	// znode through a client of its own, opened now, not through its
	// lock's Session. client-A's lock Session ends with the expiry (its
	// conn is closed: a ZooKeeper handle is dead after Expired), but its
	// resource client, like a database client, reconnects and writes.
	// client-A's goes over the same link: a paused process is silent on
	// every connection it has.
	resA, err := env.DialConnOver(ctx, link, zksession.DefaultTimeout)
	if err != nil {
		return verdict{}, err
	}
	defer resA.Close()
	resB, err := env.DialTimeout(ctx, zksession.DefaultTimeout)
	if err != nil {
		return verdict{}, err
	}
	defer resB.Close()

	bWaits := make(chan struct{})
	var once sync.Once
	// client-A's lock has its loss check turned off (WithoutDisconnectCheck):
	// a process in a stop-the-world pause runs nothing, not even the
	// goroutine that would notice the silence. It learns of the loss only
	// when its conn hears, after the pause, that the session expired.
	a, err := seqlock.New(sessA, env.Path, seqlock.WithoutDisconnectCheck(), seqlock.WithObserver(observer(tl, "client-A", nil)))
	if err != nil {
		return verdict{}, err
	}
	b, err := seqlock.New(sessB, env.Path, seqlock.WithObserver(observer(tl, "client-B", func(e event.Event) {
		if e.Kind == event.Waiting {
			once.Do(func() { close(bWaits) })
		}
	})))
	if err != nil {
		return verdict{}, err
	}

	if err := a.Lock(ctx); err != nil {
		return verdict{}, fmt.Errorf("client-A lock: %w", err)
	}
	bLocked := make(chan error, 1)
	go func() { bLocked <- b.Lock(ctx) }()
	select {
	case <-bWaits:
	case err := <-bLocked:
		return verdict{}, fmt.Errorf("client-B got the lock while client-A held it (err %v)", err)
	case <-ctx.Done():
		return verdict{}, ctx.Err()
	}

	// client-A checks that it still holds the lock, as a careful client
	// would, and then stops right before its write. From the server's side
	// a stop-the-world pause is silence: no requests, no heartbeats, the
	// TCP connection still open. A cut link is exactly that.
	select {
	case <-a.Lost():
		return verdict{}, errors.New("client-A lost the lock before its pause")
	default:
	}
	staleValue := fmt.Sprintf("client-A, token %d", a.Token())
	tl.Say("client-A", "checks Lost(): still open, the lock is mine; about to write %q, and PAUSES (its link goes silent)", staleValue)
	if err := link.Cut(); err != nil {
		return verdict{}, err
	}
	paused := time.Now()

	// The server expires client-A's session, deletes its node, and the
	// next in line, client-B, gets the lock and writes.
	if err := <-bLocked; err != nil {
		return verdict{}, fmt.Errorf("client-B lock: %w", err)
	}
	newValue := fmt.Sprintf("client-B, token %d", b.Token())
	if err := v.write(ctx, resB, b, newValue); err != nil {
		return verdict{}, fmt.Errorf("client-B write: %w", err)
	}
	tl.Say("client-B", "writes %q: ok", newValue)

	// client-A resumes where it stopped: it writes.
	link.Restore()
	tl.Say("client-A", "resumes after %.2fs and writes %q", time.Since(paused).Seconds(), staleValue)
	staleErr := v.write(ctx, resA, a, staleValue)
	if staleErr != nil {
		tl.Say("client-A", "write refused: %v", staleErr)
	} else {
		tl.Say("client-A", "write: ok")
	}

	final, err := v.read()
	if err != nil {
		return verdict{}, fmt.Errorf("read the data: %w", err)
	}
	tl.Printf("  data = %q\n", final)

	// client-A learns of the loss only now, once its conn has heard from
	// the server that the session expired.
	select {
	case <-a.Lost():
	case <-ctx.Done():
		return verdict{}, fmt.Errorf("client-A never learned it lost the lock: %w", ctx.Err())
	}
	tl.Say("client-A", "unlock: %v", a.Unlock(ctx))
	if err := b.Unlock(ctx); err != nil {
		return verdict{}, fmt.Errorf("client-B unlock: %w", err)
	}
	return verdict{StaleWriteErr: staleErr, Final: final,
		Corrupted: staleErr == nil && final == staleValue,
		Refused:   v.refusal != nil && errors.Is(staleErr, v.refusal) && final == newValue}, nil
}

// retry repeats a ZooKeeper write that failed only because client-A's
// resource client was reconnecting after its pause, as any
// ZooKeeper client retries on connection loss. The answer that counts is
// the server's.
func retry(ctx context.Context, write func() error) error {
	for {
		err := write()
		if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrSessionExpired) && !errors.Is(err, zk.ErrNoServer) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last attempt: %w)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// reset creates the data znode (and its parents) or sets it back.
func reset(conn *zk.Conn, data string, acl []zk.ACL) error {
	const initial = "nobody wrote yet"
	for i := 1; i < len(data); i++ {
		if data[i] != '/' {
			continue
		}
		_, err := conn.Create(data[:i], nil, 0, acl)
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", data[:i], err)
		}
	}
	if _, err := conn.Create(data, []byte(initial), 0, acl); errors.Is(err, zk.ErrNodeExists) {
		_, err = conn.Set(data, []byte(initial), -1)
		if err != nil {
			return fmt.Errorf("reset %s: %w", data, err)
		}
	} else if err != nil {
		return fmt.Errorf("create %s: %w", data, err)
	}
	return nil
}

// observer prints client's lock events on the timeline, after also (if
// set) has seen each.
func observer(tl *demo.Timeline, client string, also func(event.Event)) event.Observer {
	return event.Observer(func(e event.Event) {
		if also != nil {
			also(e)
		}
		tl.Observe(e)
	}).WithOwner(client)
}
