package leader_test

import (
	"context"
	"fmt"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/lockstep-zk/lockstep/07-leader/leader"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func ExampleElection() {
	ctx := context.Background()
	// Each candidate has its own session, as separate processes would.
	sessionA, sessionB := zktest.ExampleSession(seqlock.NewSession), zktest.ExampleSession(seqlock.NewSession)
	defer sessionA.Close()
	defer sessionB.Close()
	dir := "/examples/leader/billing"
	defer zktest.DeleteTree(sessionA.Conn(), "/examples/leader")

	a, _ := leader.New(sessionA, dir)
	b, _ := leader.New(sessionB, dir)

	if err := a.Campaign(ctx, "host-a"); err != nil {
		panic(err)
	}
	l, _ := b.Leader(ctx)
	fmt.Println("leader:", l.Value)

	won := make(chan error, 1)
	go func() { won <- b.Campaign(ctx, "host-b") }() // waits behind host-a

	tokenA := a.Token()
	a.Resign(ctx) // host-b is woken and leads
	if err := <-won; err != nil {
		panic(err)
	}
	l, _ = a.Leader(ctx)
	fmt.Println("leader:", l.Value)
	fmt.Println("new token is larger:", b.Token() > tokenA)
	b.Resign(ctx)
	// Output:
	// leader: host-a
	// leader: host-b
	// new token is larger: true
}

func ExampleElection_Observe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	dir := "/examples/leader/observed"
	defer zktest.DeleteTree(s.Conn(), "/examples/leader")

	watcher, _ := leader.New(s, dir)
	leaders := watcher.Observe(ctx)

	for _, name := range []string{"first", "second"} {
		e, _ := leader.New(s, dir)
		if err := e.Campaign(ctx, name); err != nil {
			panic(err)
		}
		fmt.Println("observed:", (<-leaders).Value)
		e.Resign(ctx)
	}
	// Output:
	// observed: first
	// observed: second
}
