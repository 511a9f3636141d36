package arena_test

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/internal/randhex"
	"github.com/lockstep-zk/lockstep/internal/zktest"
	"github.com/lockstep-zk/lockstep/workshop/class/arena"
)

// An arena on any ZooKeeper, open to anyone (the class's is made by
// classroom's Host.OpenArena, with the class code as its players): one
// learner plays two rounds with chapter 04's lock.
func ExampleWorker() {
	ctx := context.Background()
	conn := zktest.ExampleConn() // the host's session, and here the counter's client too
	defer conn.Close()
	dir := "/example-arena-" + randhex.String(4)
	host, _ := arena.Open(conn, dir)
	if err := host.Create(ctx, zk.WorldACL(zk.PermAll), zk.WorldACL(zk.PermAll)); err != nil {
		fmt.Println(err)
		return
	}
	defer zktest.DeleteTree(conn, dir)

	s := zktest.ExampleSession(seqlock.NewSession) // the lock's session: not the counter's
	defer s.Close()
	lock, _ := seqlock.New(s, host.LockDir(), arena.LockOptions("ada")...)
	w := &arena.Worker{Name: "ada", Lock: lock, Arena: host}
	w.Run(ctx, 2, func(o arena.Outcome) { fmt.Println("ada wrote", o.Count) })

	c, _, _ := host.Counter(ctx)
	caught, _ := host.Caught(ctx)
	fmt.Printf("count %d, last written by %s; %d caught\n", c.N, c.Writer, len(caught))
	// Output:
	// ada wrote 1
	// ada wrote 2
	// count 2, last written by ada; 0 caught
}
