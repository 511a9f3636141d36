// Package sqlfencetest gives tests a sqlfence.Store on a real database with
// nothing to install: SQLite in pure Go (modernc.org/sqlite), in memory.
// Chapter 08's tests and sqlfence's own use it, so the demo links no SQL
// engine.
package sqlfencetest

import (
	"context"
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // SQLite in pure Go

	"github.com/lockstep-zk/lockstep/08-fencing/sqlfence"
)

// Memory returns a Store on a fresh in-memory SQLite database holding the row
// id with value, written by no holder yet. database/sql may open several
// connections, and each :memory: connection is a database of its own: one
// connection keeps them one database. The database closes with the test.
func Memory(t testing.TB, id, value string) *sqlfence.Store {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	s, err := sqlfence.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, id, value); err != nil {
		t.Fatal(err)
	}
	return s
}
