package locktest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// BadInput is the bad-input table on its own, for locks that run only part
// of the suite. Each case must give an error (from New or from Lock) within
// a bounded time, must not panic, and must leave nothing in ZooKeeper.
func BadInput(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, build := impl.contender(t)
	paths := []struct{ name, path string }{
		{"an empty path", ""},
		{"a relative path", "locks/x"},
		{"a trailing slash", root + "/x/"},
		{"a double slash", root + "//x"},
		{"the root itself", "/"},
		{"a path with a NUL byte", root + "/x\x00y"},
		{"a relative element", root + "/./x"},
	}
	for _, c := range paths {
		t.Run(c.name+" is rejected", func(t *testing.T) {
			err := tryBad(t, func() (Locker, error) { return build(c.path, nil) })
			if err == nil {
				t.Fatalf("path %q was accepted", c.path)
			}
			t.Logf("path %q: %v", c.path, err)
			AssertClean(t, conn, root, root)
		})
	}
	if impl.Open != nil {
		return // a lock on a session: its chapter tests a nil session and an unreachable server (NewSession fails)
	}
	t.Run("a nil connection is rejected", func(t *testing.T) {
		if err := tryBad(t, func() (Locker, error) { return impl.New(nil, root+"/lock", nil) }); err == nil {
			t.Fatal("a nil *zk.Conn was accepted")
		}
	})
	t.Run("unreachable servers give an error, not a hang", func(t *testing.T) {
		// Nothing listens on port 1. zk.Connect itself succeeds (it dials in
		// the background); the first request must fail within the connect
		// timeout rather than block for ever.
		dead, events, err := zk.Connect([]string{"127.0.0.1:1"}, 2*time.Second, zk.WithLogInfo(false), zk.WithLogger(discard{}))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range events {
			}
		}()
		defer dead.Close()
		start := time.Now()
		err = tryBad(t, func() (Locker, error) { return impl.New(dead, root+"/lock", nil) })
		if err == nil {
			t.Fatal("Lock against an unreachable server succeeded")
		}
		t.Logf("unreachable: %v after %v", err, time.Since(start).Round(time.Millisecond))
	})
}

// tryBad builds a lock and, if that works, tries Lock with a bounded
// context; it turns a panic into a test failure.
func tryBad(t *testing.T, build func() (Locker, error)) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	l, err := build()
	if err != nil {
		return err
	}
	// Bad input fails at its first request (an unreachable server: in
	// milliseconds); a Lock still trying after badInputPatience retries
	// what it should have returned.
	ctx, cancel := context.WithTimeout(context.Background(), badInputPatience)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- panicked{r}
			}
		}()
		err := l.Lock(ctx)
		if err == nil {
			l.Unlock(ctx)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if p, ok := err.(panicked); ok {
			t.Fatalf("Lock panicked: %v", p.v)
		}
		if err != nil && ctx.Err() != nil {
			t.Fatalf("Lock only gave up when its %v context ran out: %v (it retried an error that waiting cannot cure)", badInputPatience, err)
		}
		return err
	case <-time.After(badInputPatience + 5*time.Second):
		t.Fatal("Lock hung past its context")
		return nil
	}
}

// badInputPatience bounds a Lock on bad input: 2 s of connect timeout
// and a loaded machine fit in it many times over.
const badInputPatience = 2 * promptly

type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprint("panic: ", p.v) }

type discard struct{}

func (discard) Printf(string, ...any) {}
