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
	sessionOfHostA := zktest.ExampleSession(seqlock.NewSession)
	sessionOfHostB := zktest.ExampleSession(seqlock.NewSession)
	defer sessionOfHostA.Close()
	defer sessionOfHostB.Close()
	dir := "/examples/leader/billing"
	defer zktest.DeleteTree(sessionOfHostA.Conn(), "/examples/leader")

	hostA, _ := leader.New(sessionOfHostA, dir)
	hostB, _ := leader.New(sessionOfHostB, dir)

	if err := hostA.Campaign(ctx, "host-a"); err != nil {
		panic(err)
	}
	current, _ := hostB.Leader(ctx)
	fmt.Println("leader:", current.Value)

	hostBLeads := make(chan error, 1)
	go func() { hostBLeads <- hostB.Campaign(ctx, "host-b") }() // waits behind host-a

	tokenOfHostA := hostA.Token()
	hostA.Resign(ctx) // host-b is woken and leads
	if err := <-hostBLeads; err != nil {
		panic(err)
	}
	current, _ = hostA.Leader(ctx)
	fmt.Println("leader:", current.Value)
	fmt.Println("new token is larger:", hostB.Token() > tokenOfHostA)
	hostB.Resign(ctx)
	// Output:
	// leader: host-a
	// leader: host-b
	// new token is larger: true
}

func ExampleElection_Observe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	session := zktest.ExampleSession(seqlock.NewSession)
	defer session.Close()
	dir := "/examples/leader/observed"
	defer zktest.DeleteTree(session.Conn(), "/examples/leader")

	observer, _ := leader.New(session, dir)
	leaders := observer.Observe(ctx)

	for _, name := range []string{"first", "second"} {
		candidate, _ := leader.New(session, dir)
		if err := candidate.Campaign(ctx, name); err != nil {
			panic(err)
		}
		fmt.Println("observed:", (<-leaders).Value)
		candidate.Resign(ctx)
	}
	// Output:
	// observed: first
	// observed: second
}
