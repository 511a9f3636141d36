package interop

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lockstep-zk/lockstep/internal/zktest"
)

// The check znode is how the tests see who was inside at once, across two
// processes and two languages: every holder enters it right after its lock
// says it holds, and leaves it right before it releases. Entering and
// leaving are compare-and-set writes (Set with the version we read, again
// on ErrBadVersion), so every entry and exit lands exactly once, in one
// order that both sides share. Interop.java's Check is the same code in
// Java; the data is nine numbers, in this order:
type record struct {
	InsideGo, InsideJava int64 // holders of each side inside now
	Writers              int64 // exclusive holders inside now (mutex, writer, leader)
	Max                  int64 // the most holders ever inside at once
	Together             int64 // entries after which both sides had someone inside
	Bad                  int64 // entries that broke the rule: exclusive with anyone inside, or anyone with an exclusive holder inside
	Last                 int64 // the side of the last entry: 0 Go, 1 Java, -1 none yet
	Switches             int64 // entries by the other side than the entry before
	Entries              int64 // every entry
}

const (
	sideGo   = 0
	sideJava = 1
)

func (r record) String() string {
	return fmt.Sprintf("inside go %d java %d, writers %d, max %d, together %d, bad %d, switches %d, entries %d",
		r.InsideGo, r.InsideJava, r.Writers, r.Max, r.Together, r.Bad, r.Switches, r.Entries)
}

func (r *record) fields() []*int64 {
	return []*int64{&r.InsideGo, &r.InsideJava, &r.Writers, &r.Max, &r.Together, &r.Bad, &r.Last, &r.Switches, &r.Entries}
}

func (r record) encode() []byte {
	var f []string
	for _, p := range r.fields() {
		f = append(f, strconv.FormatInt(*p, 10))
	}
	return []byte(strings.Join(f, " "))
}

func decode(b []byte) (record, error) {
	var r record
	f := strings.Fields(string(b))
	ps := r.fields()
	if len(f) != len(ps) {
		return r, fmt.Errorf("check record %q: want %d numbers", b, len(ps))
	}
	for i, p := range ps {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return r, fmt.Errorf("check record %q: %w", b, err)
		}
		*p = v
	}
	return r, nil
}

// newCheck creates a fresh check znode at p.
func newCheck(tb testing.TB, conn *zk.Conn, p string) string {
	tb.Helper()
	if _, err := conn.Create(p, record{Last: -1}.encode(), 0, zk.WorldACL(zk.PermAll)); err != nil {
		tb.Fatalf("create the check %s: %v", p, err)
	}
	return p
}

// enter records that a Go holder is inside.
func enter(conn *zk.Conn, check string, exclusive bool) error {
	return update(conn, check, func(r *record) {
		if exclusive && r.InsideGo+r.InsideJava > 0 || !exclusive && r.Writers > 0 {
			r.Bad++
		}
		r.InsideGo++
		if exclusive {
			r.Writers++
		}
		r.Max = max(r.Max, r.InsideGo+r.InsideJava)
		if r.InsideGo > 0 && r.InsideJava > 0 {
			r.Together++
		}
		if r.Last != sideGo {
			if r.Last >= 0 {
				r.Switches++
			}
			r.Last = sideGo
		}
		r.Entries++
	})
}

// leave records that a Go holder is about to release.
func leave(conn *zk.Conn, check string, exclusive bool) error {
	return update(conn, check, func(r *record) {
		r.InsideGo--
		if exclusive {
			r.Writers--
		}
	})
}

func update(conn *zk.Conn, check string, change func(*record)) error {
	for {
		b, stat, err := conn.Get(check)
		if err != nil {
			return fmt.Errorf("read the check: %w", err)
		}
		r, err := decode(b)
		if err != nil {
			return err
		}
		change(&r)
		_, err = conn.Set(check, r.encode(), stat.Version)
		if errors.Is(err, zk.ErrBadVersion) {
			continue // the other side (or another goroutine) wrote first: again
		}
		if err != nil {
			return fmt.Errorf("write the check: %w", err)
		}
		return nil
	}
}

func readCheck(tb testing.TB, conn *zk.Conn, check string) record {
	tb.Helper()
	b, _, err := conn.Get(check)
	if err != nil {
		tb.Fatalf("read the check: %v", err)
	}
	r, err := decode(b)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// newCounter creates the shared counter at p, at 0.
func newCounter(tb testing.TB, conn *zk.Conn, p string) string {
	tb.Helper()
	if _, err := conn.Create(p, []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		tb.Fatalf("create the counter %s: %v", p, err)
	}
	return p
}

// increment is the unguarded read-modify-write the lock must protect (the
// articles' age++): read, then write back one more with version -1,
// whatever is there now. Two holders at once lose an update.
func increment(conn *zk.Conn, counter string) error {
	b, _, err := conn.Get(counter)
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("counter %q: %w", b, err)
	}
	_, err = conn.Set(counter, []byte(strconv.Itoa(v+1)), -1)
	return err
}

func readCounter(tb testing.TB, conn *zk.Conn, counter string) int {
	tb.Helper()
	b, _, err := conn.Get(counter)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := strconv.Atoi(string(b))
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// waitChildren returns once dir has exactly n children, woken by a
// children watch (an exists watch while dir does not exist yet). More
// than n fails at once: someone is in the queue who should not be. So does
// a line on quiet (nil: none), what a waiter says when it stops waiting.
func waitChildren(tb testing.TB, conn *zk.Conn, dir string, n int, quiet <-chan string) []string {
	tb.Helper()
	timeout := time.After(zktest.Patience)
	for {
		names, _, changed, err := conn.ChildrenW(dir)
		if errors.Is(err, zk.ErrNoNode) {
			var exists bool
			exists, _, changed, err = conn.ExistsW(dir)
			if err == nil && exists {
				continue // created meanwhile: list it
			}
		}
		if err != nil {
			tb.Fatalf("list %s: %v", dir, err)
		}
		if len(names) == n {
			return names
		}
		if len(names) > n {
			tb.Fatalf("%s has %d children, want %d:\n  %s", dir, len(names), n, strings.Join(names, "\n  "))
		}
		select {
		case <-changed:
		case line := <-quiet:
			tb.Fatalf("%q while waiting for %s to have %d children (it has %d: %v)", line, path.Base(dir), n, len(names), names)
		case <-timeout:
			tb.Fatalf("after %v %s has %d children, want %d: %v", zktest.Patience, path.Base(dir), len(names), n, names)
		}
	}
}

// within waits for err from a goroutine, at most zktest.Patience.
func within(tb testing.TB, what string, done <-chan error) {
	tb.Helper()
	select {
	case err := <-done:
		if err != nil {
			tb.Fatalf("%s: %v", what, err)
		}
	case <-time.After(zktest.Patience):
		tb.Fatalf("%s: not done within %v", what, zktest.Patience)
	}
}

// notYet fails if done has already delivered: a Go waiter that must still
// be waiting.
func notYet(tb testing.TB, what string, done <-chan error) {
	tb.Helper()
	select {
	case err := <-done:
		tb.Fatalf("%s, while the other side still holds (err %v)", what, err)
	default:
	}
}

// goRounds is one Go contender: k times Lock, enter the check, increment
// the counter (exclusive holders only: shared ones may not), leave,
// Unlock.
func goRounds(ctx context.Context, conn *zk.Conn, l locker, k int, exclusive bool, counter, check string) error {
	for i := 0; i < k; i++ {
		if err := l.Lock(ctx); err != nil {
			return fmt.Errorf("round %d: lock: %w", i, err)
		}
		if err := enter(conn, check, exclusive); err != nil {
			return err
		}
		if exclusive {
			if err := increment(conn, counter); err != nil {
				return err
			}
		}
		if err := leave(conn, check, exclusive); err != nil {
			return err
		}
		if err := l.Unlock(ctx); err != nil {
			return fmt.Errorf("round %d: unlock: %w", i, err)
		}
	}
	return nil
}
