package seqlock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/event"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// The examples run against the package's test server (zktest.Main); a
// program passes its own connect string, such as
// []string{"127.0.0.1:2181"}. ExampleMutex, in seqlock_test.go, is the
// tour of a Mutex: Lock, TryLock, Unlock, Token and Participants.

func ExampleNewSession() {
	ctx := context.Background()
	opts := []seqlock.SessionOption{seqlock.WithSessionTimeout(6 * time.Second)}
	session, err := seqlock.NewSession(ctx, zktest.ExampleServers(), opts...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	// The server grants a timeout within its own bounds (a stock server:
	// 4 s to 40 s); the locks count with what it granted.
	fmt.Println("granted a timeout:", session.Timeout() > 0)
	// Conn is the session's conn, for requests of your own.
	_, _, err = session.Conn().Exists("/")
	fmt.Println("exists /:", err)
	// Output:
	// granted a timeout: true
	// exists /: <nil>
}

// A Session is one ZooKeeper session: when it ends (the server expired it,
// or Close), Done is closed, every hold on it is lost, and a Lock on it
// fails at once. Nothing reopens it. A program that must go on opens a new
// Session, as an etcd program opens a new concurrency.Session when the old
// one's Done fires. Here Close ends each session, as an expiry would (a
// Lock then says ErrSessionExpired instead of ErrSessionClosed).
func ExampleSession_Done() {
	ctx := context.Background()
	for session := 1; session <= 2; session++ {
		s, err := seqlock.NewSession(ctx, zktest.ExampleServers())
		if err != nil {
			fmt.Println(err)
			return
		}
		orders, _ := seqlock.New(s, "/seqlock-example/done")
		if err := orders.Lock(ctx); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("session %d holds the lock\n", session)

		s.Close() // stands for the server expiring the session
		<-s.Done()
		<-orders.Lost()
		err = orders.Unlock(ctx)
		fmt.Println("  the hold was lost:", errors.Is(err, seqlock.ErrLost))
		err = orders.Lock(ctx)
		fmt.Println("  Lock on the ended session:", err)
		if errors.Is(err, seqlock.ErrSessionExpired) || errors.Is(err, seqlock.ErrSessionClosed) {
			// Everything built on s is gone: go round, open a new Session.
			continue
		}
	}
	// Output:
	// session 1 holds the lock
	//   the hold was lost: true
	//   Lock on the ended session: seqlock: session closed
	// session 2 holds the lock
	//   the hold was lost: true
	//   Lock on the ended session: seqlock: session closed
}

// Lost is closed when a hold ends without Unlock: the session ended, or
// the conn has been without it for a sixth of the session timeout. The
// holder stops working on what the lock protects, and Unlock says why.
func ExampleMutex_Lost() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	orders, _ := seqlock.New(s, "/seqlock-example/lost")
	if err := orders.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("holding", orders.Node() != "")

	s.Close() // the session ends under the holder
	select {
	case <-orders.Lost():
		fmt.Println("lost: stop writing")
	case <-time.After(zktest.Patience):
		fmt.Println("Lost never closed")
	}
	fmt.Println("Unlock says ErrLost:", errors.Is(orders.Unlock(ctx), seqlock.ErrLost))
	fmt.Println("no node, no token:", orders.Node() == "", orders.Token() == 0)
	// Output:
	// holding true
	// lost: stop writing
	// Unlock says ErrLost: true
	// no node, no token: true true
}

func ExampleFirst() {
	queue := []seqlock.Node{
		{Name: "_c_9f…-lock-0000000004", Seq: 4},
		{Name: "_c_1a…-lock-0000000005", Seq: 5},
		{Name: "_c_77…-lock-0000000007", Seq: 7},
	}
	for ours := range queue {
		holds, watch := seqlock.First(queue, ours)
		fmt.Printf("node %d: holds %v, watches %q\n", queue[ours].Seq, holds, watch)
	}
	// Output:
	// node 4: holds true, watches ""
	// node 5: holds false, watches "_c_9f…-lock-0000000004"
	// node 7: holds false, watches "_c_1a…-lock-0000000005"
}

// A Rule is the one thing a later chapter writes: the queue core joins,
// lists, watches and releases. This one lets two contenders hold at once,
// as chapter 09's Leases(2) does; each waiter watches the node two places
// ahead of its own, whose going makes it one of the first two.
func ExampleNewWithRule() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	var twoAtOnce seqlock.Rule = func(queue []seqlock.Node, ours int) (bool, string) {
		if ours < 2 {
			return true, ""
		}
		return false, queue[ours-2].Name
	}
	dir := "/seqlock-example/two-at-once"
	var leases []*seqlock.Mutex
	for range 3 {
		lease, err := seqlock.NewWithRule(s, dir, "lease-", twoAtOnce)
		if err != nil {
			fmt.Println(err)
			return
		}
		leases = append(leases, lease)
	}
	fmt.Println("first:", leases[0].TryLock(ctx))
	fmt.Println("second:", leases[1].TryLock(ctx))
	fmt.Println("third:", leases[2].TryLock(ctx))
	leases[0].Unlock(ctx)
	fmt.Println("third, once the first let go:", leases[2].TryLock(ctx))
	leases[1].Unlock(ctx)
	leases[2].Unlock(ctx)
	// Output:
	// first: <nil>
	// second: <nil>
	// third: seqlock: locked by another contender
	// third, once the first let go: <nil>
}

func ExampleParticipants() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	dir := "/seqlock-example/participants"
	alice, _ := seqlock.New(s, dir, seqlock.WithData([]byte("alice")))
	if err := alice.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	bob, _ := seqlock.New(s, dir, seqlock.WithData([]byte("bob")))
	bobLocked := make(chan error, 1)
	go func() { bobLocked <- bob.Lock(ctx) }()

	// Any conn may ask, contender or not; here the Session's own.
	var queue []seqlock.Participant
	for len(queue) < 2 {
		queue, _ = seqlock.Participants(ctx, s.Conn(), dir)
	}
	for _, p := range queue {
		fmt.Printf("%s\n", p.Data)
	}
	fmt.Println("in order of sequence numbers:", queue[0].Seq < queue[1].Seq)
	fmt.Println("the holder is first:", queue[0].Node == alice.Node())

	alice.Unlock(ctx)
	<-bobLocked
	bob.Unlock(ctx)
	_, err := seqlock.Participants(ctx, nil, dir)
	fmt.Println("nil conn:", errors.Is(err, seqlock.ErrNilConn))
	// Output:
	// alice
	// bob
	// in order of sequence numbers: true
	// the holder is first: true
	// nil conn: true
}

// WithContenders puts nodes of other names in the same queue: chapter 05's
// readers and writers queue together this way. Without it, a Mutex sees
// only the nodes of its own name.
func ExampleWithContenders() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	dir := "/seqlock-example/contenders"
	writer, _ := seqlock.NewWithRule(s, dir, "write-", seqlock.First)
	if err := writer.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	blind, _ := seqlock.NewWithRule(s, dir, "read-", seqlock.First)
	fmt.Println("a reader blind to writers:", blind.TryLock(ctx))
	blind.Unlock(ctx)
	reader, _ := seqlock.NewWithRule(s, dir, "read-", seqlock.First, seqlock.WithContenders("write-"))
	fmt.Println("a reader that counts writers:", reader.TryLock(ctx))
	writer.Unlock(ctx)
	// Output:
	// a reader blind to writers: <nil>
	// a reader that counts writers: seqlock: locked by another contender
}

// WithObserver hears every step of the recipe; the visualizer and the
// tests' tallies are observers. This one keeps what a holder sees.
func ExampleWithObserver() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	var seen []string
	observer := event.Observer(func(e event.Event) {
		if e.Kind == event.Acquired || e.Kind == event.Released {
			seen = append(seen, e.Kind.String())
		}
	})
	orders, _ := seqlock.New(s, "/seqlock-example/observed", seqlock.WithObserver(observer))
	if err := orders.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	orders.Unlock(ctx)
	fmt.Println(seen)
	// Output:
	// [acquired released]
}

// With credentials (WithDigest) the nodes a lock creates are creator-only;
// WithACL chooses their ACL instead.
func ExampleWithDigest() {
	ctx := context.Background()
	s, err := seqlock.NewSession(ctx, zktest.ExampleServers(), seqlock.WithDigest("orders-service", "s3cret"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	private, _ := seqlock.New(s, "/seqlock-example/digest/private")
	open, _ := seqlock.New(s, "/seqlock-example/digest/open", seqlock.WithACL(zk.WorldACL(zk.PermAll)))
	for _, m := range []*seqlock.Mutex{private, open} {
		if err := m.Lock(ctx); err != nil {
			fmt.Println(err)
			return
		}
		acl, _, err := s.Conn().GetACL(m.Node())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("node ACL scheme:", acl[0].Scheme)
		m.Unlock(ctx)
	}
	// Output:
	// node ACL scheme: digest
	// node ACL scheme: world
}

// WithoutDisconnectCheck keeps a hold through a cut of any length short of
// expiry: chapters 06 and 07 use it to measure the flaw the check prevents
// (a holder that learns of its loss only after someone else holds). A
// real program leaves the check on.
func ExampleWithoutDisconnectCheck() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	opts := []seqlock.Option{seqlock.WithoutDisconnectCheck()}
	orders, _ := seqlock.New(s, "/seqlock-example/no-disconnect-check", opts...)
	fmt.Println("Lock:", orders.Lock(ctx))
	fmt.Println("Unlock:", orders.Unlock(ctx))
	// Output:
	// Lock: <nil>
	// Unlock: <nil>
}

// The errors are sentinel values, checked with errors.Is; later chapters
// return the same values.
func Example_errors() {
	ctx := context.Background()
	_, err := seqlock.New(nil, "/seqlock-example/errors")
	fmt.Println(errors.Is(err, seqlock.ErrNilSession))

	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	orders, _ := seqlock.New(s, "/seqlock-example/errors")
	fmt.Println(errors.Is(orders.Unlock(ctx), seqlock.ErrNotHeld))
	if err := orders.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(errors.Is(orders.Lock(ctx), seqlock.ErrAlreadyHeld))
	other, _ := seqlock.New(s, "/seqlock-example/errors")
	fmt.Println(errors.Is(other.TryLock(ctx), seqlock.ErrLocked))
	orders.Unlock(ctx)
	// Output:
	// true
	// true
	// true
	// true
}
