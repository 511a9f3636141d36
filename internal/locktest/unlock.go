package locktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

func reuse(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, l := contender(t, impl, root+"/lock", zktest.Observe(t, "contender"))
	ctx := zktest.Context(t)
	for i := range 20 {
		if err := l.Lock(ctx); err != nil {
			t.Fatalf("round %d: Lock: %v", i, err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatalf("round %d: Unlock: %v", i, err)
		}
	}
	AssertClean(t, conn, root, root+"/lock")
}

func unlockUnheld(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, l := contender(t, impl, root+"/lock", zktest.Observe(t, "contender"))
	if err := l.Unlock(zktest.Context(t)); !errors.Is(err, impl.ErrNotHeld) {
		t.Fatalf("Unlock = %v, want %v", err, impl.ErrNotHeld)
	}
	AssertClean(t, conn, root, root+"/lock")
}

func doubleUnlock(t *testing.T, impl Impl) {
	root := zktest.Root(t)
	conn, l := contender(t, impl, root+"/lock", zktest.Observe(t, "contender"))
	ctx := zktest.Context(t)
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); !errors.Is(err, impl.ErrNotHeld) {
		t.Fatalf("second Unlock = %v, want %v", err, impl.ErrNotHeld)
	}
	AssertClean(t, conn, root, root+"/lock")
}

func foreignUnlock(t *testing.T, impl Impl) {
	h := holdOne(t, impl)
	if err := h.other.Unlock(h.ctx); !errors.Is(err, impl.ErrNotHeld) {
		t.Fatalf("other.Unlock = %v, want %v", err, impl.ErrNotHeld)
	}
	// The holder must still hold: another contender cannot get in.
	short, cancel := context.WithTimeout(h.ctx, 300*time.Millisecond)
	defer cancel()
	if err := h.other.Lock(short); err == nil {
		t.Fatal("after a foreign Unlock, another contender acquired the lock")
	}
	if err := h.holder.Unlock(h.ctx); err != nil {
		t.Fatalf("holder.Unlock: %v", err)
	}
	AssertClean(t, h.conn, h.root, h.path)
}
