// Package sqlfence is fencing in a real database: the database itself
// refuses a write that carries an older fencing token than the row's.
//
// Package fencing's Store keeps its newest token under a Go mutex, which
// shows the idea but lives in the writer's process. Here the token lives in
// the row, next to the value it guards, and one SQL statement compares and
// writes:
//
//	UPDATE fenced SET value = ?, token = ? WHERE id = ? AND token <= ?
//
// The database runs the WHERE and the SET as one statement, so there is no
// moment between the comparison and the write in which a newer holder's
// write could slip in. Rows affected says what happened: 1, the write was
// accepted; 0, it was refused.
//
// The package takes a *sql.DB and imports no driver: the statement is plain
// SQL. Its tests and example run it on modernc.org/sqlite, SQLite compiled
// to pure Go (in memory, or in a temporary file for many connections), so
// nothing needs installing; `go run ./08-fencing` does not link it.
package sqlfence

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lockstep-zk/lockstep/08-fencing/fencing"
)

var (
	// ErrStaleToken is fencing.ErrStaleToken: the row already carries a
	// newer token, a later holder has written since. One "stale" for
	// every store of the chapter.
	ErrStaleToken = fencing.ErrStaleToken
	// ErrNoToken is fencing.ErrNoToken: a token ≤ 0 is refused, so a
	// writer that never held the lock (chapter 04's Token() is 0) cannot
	// write.
	ErrNoToken = fencing.ErrNoToken
	// ErrNoRow is returned by Write and Read for an id that Create never
	// added.
	ErrNoRow = errors.New("sqlfence: no such row")
	// ErrNilDB is returned by Open for a nil *sql.DB.
	ErrNilDB = errors.New("sqlfence: nil *sql.DB")
	// ErrNoID is returned for an empty row id.
	ErrNoID = errors.New("sqlfence: empty row id")
)

// Store is a table of fenced rows in a SQL database: each row holds a value
// and the token of the write that stored it. It is safe for concurrent use,
// from one process or many: the database decides.
type Store struct {
	db *sql.DB
}

// Open returns a Store on db, creating its table ("fenced") if it does not
// exist yet.
func Open(ctx context.Context, db *sql.DB) (*Store, error) {
	if db == nil {
		return nil, ErrNilDB
	}
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS fenced (
		id    TEXT PRIMARY KEY,
		value TEXT NOT NULL,
		token INTEGER NOT NULL
	)`)
	if err != nil {
		return nil, fmt.Errorf("sqlfence: create table fenced: %w", err)
	}
	return &Store{db: db}, nil
}

// Create adds the row id with value and token 0: no holder has written it
// yet, so the first holder's write, whatever its token, is accepted.
func (s *Store) Create(ctx context.Context, id, value string) error {
	if id == "" {
		return ErrNoID
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO fenced (id, value, token) VALUES (?, ?, 0)`, id, value); err != nil {
		return fmt.Errorf("sqlfence: create row %q: %w", id, err)
	}
	return nil
}

// Write stores value in row id if token is at least the row's token, and
// returns an error wrapping ErrStaleToken otherwise, leaving the row as it
// was. An equal token is accepted, as in fencing.Store: one hold of the lock
// may write many times.
func (s *Store) Write(ctx context.Context, id string, token int64, value string) error {
	if id == "" {
		return ErrNoID
	}
	if token <= 0 {
		return fmt.Errorf("sqlfence: write row %q with token %d: %w", id, token, ErrNoToken)
	}
	// The whole of fencing is this one statement: the comparison is in the
	// WHERE, the write in the SET, and the database applies them together.
	res, err := s.db.ExecContext(ctx,
		`UPDATE fenced SET value = ?, token = ? WHERE id = ? AND token <= ?`,
		value, token, id, token)
	if err != nil {
		return fmt.Errorf("sqlfence: write row %q with token %d: %w", id, token, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlfence: write row %q with token %d: rows affected: %w", id, token, err)
	}
	if n == 1 {
		return nil
	}
	// Refused. The verdict is already given; this second query only
	// explains it (the row may have moved on again since, which changes
	// nothing: a newer token is still newer).
	_, newest, err := s.Read(ctx, id)
	if errors.Is(err, ErrNoRow) {
		return fmt.Errorf("sqlfence: write row %q: %w", id, ErrNoRow)
	}
	if err != nil {
		return fmt.Errorf("sqlfence: write row %q with token %d: refused: %w", id, token, err)
	}
	return fmt.Errorf("sqlfence: write row %q with token %d: %w: the row has token %d", id, token, ErrStaleToken, newest)
}

// Read returns row id's value and the token of the write that stored it
// (0 if no holder has written it yet).
func (s *Store) Read(ctx context.Context, id string) (value string, token int64, err error) {
	if id == "" {
		return "", 0, ErrNoID
	}
	err = s.db.QueryRowContext(ctx, `SELECT value, token FROM fenced WHERE id = ?`, id).Scan(&value, &token)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, fmt.Errorf("sqlfence: read row %q: %w", id, ErrNoRow)
	}
	if err != nil {
		return "", 0, fmt.Errorf("sqlfence: read row %q: %w", id, err)
	}
	return value, token, nil
}
