package bench

import (
	"context"
	"database/sql"
	"net/url"
	"strings"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// sqliteBulk is SQLite's bulk path: multi-row INSERT statements, prepared
// once and run chunk after chunk, in one transaction, on a connection with
// the store writer's settings (sqlite/sqlite.go: WAL, synchronous FULL,
// foreign keys checked, BEGIN IMMEDIATE), so that both pay for the same
// durability and checks.
type sqliteBulk struct{ db *sql.DB }

// sqliteMaxVars is SQLite's bound on a statement's parameters
// (SQLITE_MAX_VARIABLE_NUMBER); rowsPerInsert the rows of one INSERT below it.
const (
	sqliteMaxVars = 32766
	rowsPerInsert = 1000
)

func openSQLiteBulk(path string) (*sqliteBulk, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "journal_mode(WAL)", "synchronous(FULL)", "cache_size(-65536)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &sqliteBulk{db: db}, nil
}

func (s *sqliteBulk) close() error { return s.db.Close() }

func (s *sqliteBulk) begin(ctx context.Context) (bulkTx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	return &sqliteTx{tx: tx}, err
}

type sqliteTx struct{ tx *sql.Tx }

func (t *sqliteTx) insert(ctx context.Context, table string, cols []string, n int, row func(int, []any)) error {
	if n == 0 {
		return nil
	}
	per := max(1, min(rowsPerInsert, sqliteMaxVars/len(cols)))
	values := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	query := func(rows int) string {
		return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + strings.TrimSuffix(strings.Repeat(values+", ", rows), ", ")
	}
	var full *sql.Stmt // the statement of a full chunk, prepared once
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	dst := make([]any, len(cols))
	args := make([]any, 0, per*len(cols))
	for start := 0; start < n; start += per {
		m := min(per, n-start)
		args = args[:0]
		for i := start; i < start+m; i++ {
			row(i, dst)
			args = appendSQLite(args, dst)
		}
		var err error
		switch {
		case m < per:
			_, err = t.tx.ExecContext(ctx, query(m), args...)
		case full == nil:
			if full, err = t.tx.PrepareContext(ctx, query(per)); err == nil {
				_, err = full.ExecContext(ctx, args...)
			}
		default:
			_, err = full.ExecContext(ctx, args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// update runs one prepared single-row UPDATE per row: SQLite runs a
// statement in-process, so a prepared statement's round trip is a function
// call, and each row is one lookup of the key's index.
func (t *sqliteTx) update(ctx context.Context, table string, cols []string, n int, row func(int, []any)) error {
	if n == 0 {
		return nil
	}
	set := make([]string, len(cols)-1)
	for k, c := range cols[1:] {
		set[k] = c + " = ?"
	}
	stmt, err := t.tx.PrepareContext(ctx, "UPDATE "+table+" SET "+strings.Join(set, ", ")+" WHERE "+cols[0]+" = ?")
	if err != nil {
		return err
	}
	defer stmt.Close()
	dst := make([]any, len(cols))
	args := make([]any, 0, len(cols))
	for i := range n {
		row(i, dst)
		args = appendSQLite(appendSQLite(args[:0], dst[1:]), dst[:1])
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

func (t *sqliteTx) exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, appendSQLite(nil, args)...)
	return err
}

func (t *sqliteTx) query(ctx context.Context, query string, args []any, each func(func(...any) error) error) error {
	rows, err := t.tx.QueryContext(ctx, query, appendSQLite(nil, args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (t *sqliteTx) commit(context.Context) error { return t.tx.Commit() }
func (t *sqliteTx) rollback(context.Context)     { _ = t.tx.Rollback() }

// appendSQLite appends values as SQLite stores them: ids as text.
func appendSQLite(args, values []any) []any {
	for _, v := range values {
		if u, ok := v.(uuid.UUID); ok {
			v = u.String()
		}
		args = append(args, v)
	}
	return args
}
