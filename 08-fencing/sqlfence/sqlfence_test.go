package sqlfence_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // SQLite in pure Go: the database under test, nothing to install

	"github.com/lockstep-zk/lockstep/08-fencing/fencing"
	"github.com/lockstep-zk/lockstep/08-fencing/sqlfence"
	"github.com/lockstep-zk/lockstep/08-fencing/sqlfence/sqlfencetest"
)

func ctxFor(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func read(t testing.TB, s *sqlfence.Store, id string) (string, int64) {
	t.Helper()
	v, tok, err := s.Read(ctxFor(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return v, tok
}

func TestFencedUpdate(t *testing.T) {
	t.Run("a new row has token 0 and the first holder's write is accepted", func(t *testing.T) {
		s := sqlfencetest.Memory(t, "orders", "initial")
		if v, tok := read(t, s, "orders"); v != "initial" || tok != 0 {
			t.Fatalf("new row: %q, token %d; want initial, 0", v, tok)
		}
		if err := s.Write(ctxFor(t), "orders", 16, "A"); err != nil {
			t.Fatal(err)
		}
		if v, tok := read(t, s, "orders"); v != "A" || tok != 16 {
			t.Fatalf("row: %q, token %d; want A, 16", v, tok)
		}
	})
	t.Run("an older token is refused by the UPDATE with ErrStaleToken and the row is unchanged", func(t *testing.T) {
		s := sqlfencetest.Memory(t, "orders", "initial")
		if err := s.Write(ctxFor(t), "orders", 36, "B"); err != nil {
			t.Fatal(err)
		}
		err := s.Write(ctxFor(t), "orders", 34, "A")
		if !errors.Is(err, sqlfence.ErrStaleToken) || !errors.Is(err, fencing.ErrStaleToken) {
			t.Fatalf("err = %v, want ErrStaleToken (fencing's own)", err)
		}
		if v, tok := read(t, s, "orders"); v != "B" || tok != 36 {
			t.Fatalf("row: %q, token %d; want B, 36", v, tok)
		}
		t.Logf("refused with: %v", err)
	})
	t.Run("the same token may write again, even the same value: rows affected counts the row matched", func(t *testing.T) {
		s := sqlfencetest.Memory(t, "orders", "initial")
		for _, v := range []string{"first", "second", "second"} {
			if err := s.Write(ctxFor(t), "orders", 7, v); err != nil {
				t.Fatalf("write %q with token 7: %v", v, err)
			}
		}
		if v, _ := read(t, s, "orders"); v != "second" {
			t.Fatalf("row: %q, want second", v)
		}
	})
	t.Run("a token of 0 or less is refused with ErrNoToken and never reaches the database", func(t *testing.T) {
		s := sqlfencetest.Memory(t, "orders", "initial")
		for _, tok := range []int64{0, -1} {
			if err := s.Write(ctxFor(t), "orders", tok, "x"); !errors.Is(err, sqlfence.ErrNoToken) {
				t.Fatalf("token %d: err = %v, want ErrNoToken", tok, err)
			}
		}
		if v, tok := read(t, s, "orders"); v != "initial" || tok != 0 {
			t.Fatalf("row: %q, token %d after refused writes; want initial, 0", v, tok)
		}
	})
	t.Run("a row that was never created is ErrNoRow, not a stale token", func(t *testing.T) {
		s := sqlfencetest.Memory(t, "orders", "initial")
		err := s.Write(ctxFor(t), "missing", 5, "x")
		if !errors.Is(err, sqlfence.ErrNoRow) || errors.Is(err, sqlfence.ErrStaleToken) {
			t.Fatalf("Write: err = %v, want ErrNoRow without ErrStaleToken", err)
		}
		if _, _, err := s.Read(ctxFor(t), "missing"); !errors.Is(err, sqlfence.ErrNoRow) {
			t.Fatalf("Read: err = %v, want ErrNoRow", err)
		}
	})
	t.Run("bad input is a clear error and writes nothing", func(t *testing.T) {
		if _, err := sqlfence.Open(ctxFor(t), nil); !errors.Is(err, sqlfence.ErrNilDB) {
			t.Errorf("Open(nil): err = %v, want ErrNilDB", err)
		}
		s := sqlfencetest.Memory(t, "orders", "initial")
		if err := s.Create(ctxFor(t), "", "x"); !errors.Is(err, sqlfence.ErrNoID) {
			t.Errorf("Create(\"\"): err = %v, want ErrNoID", err)
		}
		if err := s.Write(ctxFor(t), "", 5, "x"); !errors.Is(err, sqlfence.ErrNoID) {
			t.Errorf("Write(\"\"): err = %v, want ErrNoID", err)
		}
		if _, _, err := s.Read(ctxFor(t), ""); !errors.Is(err, sqlfence.ErrNoID) {
			t.Errorf("Read(\"\"): err = %v, want ErrNoID", err)
		}
		if err := s.Create(ctxFor(t), "orders", "again"); err == nil {
			t.Errorf("Create of an existing row: no error")
		}
		if v, tok := read(t, s, "orders"); v != "initial" || tok != 0 {
			t.Fatalf("row: %q, token %d after bad input; want initial, 0", v, tok)
		}
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Write(cancelled, "orders", 5, "x"); !errors.Is(err, context.Canceled) {
			t.Errorf("Write with a cancelled ctx: err = %v, want context.Canceled", err)
		}
		if v, tok := read(t, s, "orders"); v != "initial" || tok != 0 {
			t.Fatalf("row: %q, token %d after a cancelled write; want initial, 0", v, tok)
		}
	})
}

// TestWritersOnManyConnectionsNeverTurnTheTokenBack runs writers on
// separate connections to one database file, as separate processes would:
// only the database can order their writes, and it never lets an older
// token replace a newer one.
func TestWritersOnManyConnectionsNeverTurnTheTokenBack(t *testing.T) {
	const writers, writes = 4, 100
	ctx := ctxFor(t)
	dsn := "file:" + filepath.Join(t.TempDir(), "fenced.db") +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(writers + 1)
	s, err := sqlfence.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "orders", "initial"); err != nil {
		t.Fatal(err)
	}

	var next atomic.Int64 // tokens from one counter, as zxids come from one log
	var refused atomic.Int64
	var highestAccepted atomic.Int64
	stop := make(chan struct{})
	readerDone := make(chan error, 1)
	go func() {
		// Every value is its token's decimal form: a value with another
		// token would be a write that was not one statement.
		var last int64
		for {
			v, tok, err := s.Read(ctx, "orders")
			switch {
			case err != nil:
				readerDone <- err
				return
			case tok < last:
				readerDone <- fmt.Errorf("token went down: %d after %d", tok, last)
				return
			case tok != 0 && v != strconv.FormatInt(tok, 10):
				readerDone <- fmt.Errorf("value %q stored with token %d", v, tok)
				return
			}
			last = tok
			select {
			case <-stop:
				readerDone <- nil
				return
			default:
			}
		}
	}()
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range writes {
				tok := next.Add(1)
				err := s.Write(ctx, "orders", tok, strconv.FormatInt(tok, 10))
				switch {
				case err == nil:
					for h := highestAccepted.Load(); tok > h && !highestAccepted.CompareAndSwap(h, tok); h = highestAccepted.Load() {
					}
				case errors.Is(err, sqlfence.ErrStaleToken):
					refused.Add(1)
				default:
					t.Errorf("token %d: %v", tok, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	select {
	case err := <-readerDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the reader never stopped")
	}
	if _, tok := read(t, s, "orders"); tok != next.Load() || tok != highestAccepted.Load() {
		t.Fatalf("final token %d, want the highest written, %d", tok, next.Load())
	}
	t.Logf("%d writes on %d connections: %d refused as stale", writers*writes, writers, refused.Load())
}

func ExampleStore() {
	ctx := context.Background()
	db, _ := sql.Open("sqlite", ":memory:") // modernc.org/sqlite: SQLite in pure Go
	defer db.Close()
	db.SetMaxOpenConns(1) // one in-memory database, not one per connection

	rows, _ := sqlfence.Open(ctx, db)
	rows.Create(ctx, "orders", "nobody wrote yet")
	fmt.Println(rows.Write(ctx, "orders", 34, "client-A, token 34"))
	fmt.Println(rows.Write(ctx, "orders", 36, "client-B, token 36"))
	fmt.Println(rows.Write(ctx, "orders", 34, "client-A, back from its pause"))
	fmt.Println(rows.Read(ctx, "orders"))
	// Output:
	// <nil>
	// <nil>
	// sqlfence: write row "orders" with token 34: fencing: stale token: the row has token 36
	// client-B, token 36 36 <nil>
}
