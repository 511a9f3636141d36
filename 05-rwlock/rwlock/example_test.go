package rwlock_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"

	"github.com/lockstep-zk/lockstep/05-rwlock/rwlock"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func Example() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()

	// Three clients of one lock directory (one connection is enough here:
	// every RWMutex has its own nodes).
	alice, _ := rwlock.New(s, "/examples/rwlock/report")
	bob, _ := rwlock.New(s, "/examples/rwlock/report")
	carol, _ := rwlock.New(s, "/examples/rwlock/report")

	if err := alice.Read().Lock(ctx); err != nil {
		panic(err)
	}
	if err := bob.Read().Lock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("alice and bob read at once")

	err := carol.Write().TryLock(ctx)
	fmt.Println("carol's TryLock while they read:", errors.Is(err, rwlock.ErrLocked))

	alice.Read().Unlock(ctx)
	bob.Read().Unlock(ctx)
	if err := carol.Write().Lock(ctx); err != nil {
		panic(err)
	}
	err = alice.Read().TryLock(ctx)
	fmt.Println("alice's TryLock while carol writes:", errors.Is(err, rwlock.ErrLocked))
	carol.Write().Unlock(ctx)

	// Output:
	// alice and bob read at once
	// carol's TryLock while they read: true
	// alice's TryLock while carol writes: true
}

func ExampleSide_Lock_downgrade() {
	ctx := context.Background()
	s := zktest.ExampleSession(seqlock.NewSession)
	defer s.Close()
	cache, _ := rwlock.New(s, "/examples/rwlock/cache")

	// Write, then keep reading what we wrote without letting a writer in
	// between: take the read lock before releasing the write lock.
	if err := cache.Write().Lock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("read while writing:", cache.Read().Lock(ctx))
	fmt.Println("release the write lock:", cache.Write().Unlock(ctx))

	// The other way round would deadlock; it is refused instead.
	err := cache.Write().Lock(ctx)
	fmt.Println("upgrade refused:", errors.Is(err, rwlock.ErrUpgrade))
	fmt.Println("release the read lock:", cache.Read().Unlock(ctx))

	// Output:
	// read while writing: <nil>
	// release the write lock: <nil>
	// upgrade refused: true
	// release the read lock: <nil>
}
