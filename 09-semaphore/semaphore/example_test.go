package semaphore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/09-semaphore/semaphore"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func ExampleSemaphore() {
	ctx := context.Background()
	session := zktest.ExampleSession(seqlock.NewSession)
	defer session.Close()
	dir := "/examples/semaphore/printers"
	defer zktest.DeleteTree(session.Conn(), "/examples/semaphore")

	// Two printers: at most two jobs print at once.
	printers, err := semaphore.New(session, dir, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _ := printers.Acquire(ctx)
	second, _ := printers.Acquire(ctx)
	_, err = printers.TryAcquire(ctx)
	fmt.Println("a third job while both print:", errors.Is(err, semaphore.ErrLocked))

	fmt.Println("the first job is done:", first.Release(ctx))
	third, err := printers.TryAcquire(ctx)
	fmt.Println("the third job gets a printer:", err)
	fmt.Println("its token is larger:", third.Token() > second.Token())
	second.Release(ctx)
	third.Release(ctx)
	// Output:
	// a third job while both print: true
	// the first job is done: <nil>
	// the third job gets a printer: <nil>
	// its token is larger: true
}
