package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock"
	"github.com/lockstep-zk/lockstep/04-sequential-lock/seqlock/seqlocktest"
	"github.com/lockstep-zk/lockstep/06-reentrant/reentrant"
	"github.com/lockstep-zk/lockstep/internal/locktest"
	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func newRW(t testing.TB, s *seqlock.Session, dir string) *reentrant.RWMutex {
	t.Helper()
	rw, err := reentrant.NewRW(s, dir)
	if err != nil {
		t.Fatalf("NewRW(%q): %v", dir, err)
	}
	return rw
}

// lockIn runs lock in the background and reports its error.
func lockIn(ctx context.Context, m *reentrant.Mutex) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- m.Lock(ctx) }()
	return ch
}

func stillWaiting(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s got in (%v) while it must wait", what, err)
	case <-time.After(300 * time.Millisecond):
	}
}

func gotIn(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(zktest.Patience):
		t.Fatalf("%s never got in", what)
	}
}

// Curator's InterProcessReadWriteLock is reentrant; so is this one, with
// one owner per *RWMutex (the explicit owner of this chapter).
func TestReentrantReadWriteLock(t *testing.T) {
	t.Run("a nested read behind a queued writer re-enters instead of deadlocking", func(t *testing.T) {
		// Chapter 05's flaw (TestNotReentrant there), gone: the second Read
		// only counts, so it does not queue behind the other owner's writer.
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		owner := newRW(t, seqlocktest.Session(t), dir)
		other := newRW(t, seqlocktest.Session(t), dir)
		if err := owner.Read().Lock(ctx); err != nil {
			t.Fatal(err)
		}
		writer := lockIn(ctx, other.Write())
		stillWaiting(t, writer, "the other owner's writer")
		short, cancel := context.WithTimeout(ctx, zktest.Patience)
		defer cancel()
		if err := owner.Read().Lock(short); err != nil {
			t.Fatalf("nested Read().Lock: %v", err)
		}
		if d := owner.Read().Depth(); d != 2 {
			t.Errorf("read depth %d, want 2", d)
		}
		if err := owner.Read().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		stillWaiting(t, writer, "the writer, with our read still held at depth 1")
		if err := owner.Read().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		gotIn(t, writer, "the writer after our last read Unlock")
		if err := other.Write().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := owner.Read().Unlock(ctx); !errors.Is(err, reentrant.ErrNotHeld) {
			t.Errorf("a third Unlock = %v, want ErrNotHeld", err)
		}
		locktest.AssertClean(t, zktest.Connect(t), root, dir)
	})

	t.Run("a write holder takes the read side, and keeps reading after it lets go of the write side", func(t *testing.T) {
		root := zktest.Root(t)
		dir := root + "/lock"
		ctx := zktest.Context(t)
		owner := newRW(t, seqlocktest.Session(t), dir)
		other := newRW(t, seqlocktest.Session(t), dir)
		for range 2 {
			if err := owner.Write().Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := owner.Read().Lock(ctx); err != nil {
			t.Fatalf("the write holder's Read().Lock: %v", err)
		}
		reader := lockIn(ctx, other.Read())
		stillWaiting(t, reader, "another owner's reader while we write")
		for range 2 {
			if err := owner.Write().Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		gotIn(t, reader, "another owner's reader once we only read (the downgrade)")
		third := newRW(t, seqlocktest.Session(t), dir)
		writer := lockIn(ctx, third.Write())
		stillWaiting(t, writer, "a writer while we still read")
		if err := owner.Read().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := other.Read().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		gotIn(t, writer, "the writer after both readers left")
		if err := third.Write().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a read holder asking for the write side gets ErrUpgrade at once, at any depth", func(t *testing.T) {
		dir := zktest.Root(t) + "/lock"
		ctx := zktest.Context(t)
		owner := newRW(t, seqlocktest.Session(t), dir)
		for range 2 {
			if err := owner.Read().Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		if err := owner.Write().Lock(ctx); !errors.Is(err, reentrant.ErrUpgrade) {
			t.Fatalf("Write().Lock while reading = %v, want ErrUpgrade", err)
		}
		if owner.Write().Depth() != 0 || owner.Read().Depth() != 2 {
			t.Errorf("depths write %d read %d after the refused upgrade, want 0 and 2", owner.Write().Depth(), owner.Read().Depth())
		}
		t.Logf("refused in %v, without waiting", time.Since(start).Round(time.Millisecond))
		for range 2 {
			if err := owner.Read().Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("two owners on two sessions: readers share, each with its own count", func(t *testing.T) {
		dir := zktest.Root(t) + "/lock"
		ctx := zktest.Context(t)
		a, b := newRW(t, seqlocktest.Session(t), dir), newRW(t, seqlocktest.Session(t), dir)
		for _, rw := range []*reentrant.RWMutex{a, b, a} {
			if err := rw.Read().Lock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if a.Read().Depth() != 2 || b.Read().Depth() != 1 {
			t.Errorf("depths a %d b %d, want 2 and 1", a.Read().Depth(), b.Read().Depth())
		}
		if err := b.Write().TryLock(ctx); !errors.Is(err, reentrant.ErrUpgrade) {
			t.Errorf("b's TryLock of the write side while it reads = %v, want ErrUpgrade", err)
		}
		c := newRW(t, seqlocktest.Session(t), dir)
		if err := c.Write().TryLock(ctx); !errors.Is(err, reentrant.ErrLocked) {
			t.Errorf("a third owner's write TryLock = %v, want ErrLocked", err)
		}
		for _, rw := range []*reentrant.RWMutex{a, a, b} {
			if err := rw.Read().Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Write().TryLock(ctx); err != nil {
			t.Fatalf("write TryLock once every read is gone: %v", err)
		}
		if err := c.Write().Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
