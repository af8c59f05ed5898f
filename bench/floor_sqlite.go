package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// sqliteFloor is SQLite's floor, which has no COPY: prepared multi-row
// INSERTs, chunk after chunk, in one transaction, on a connection with the
// store writer's settings (sqlite/sqlite.go: WAL, synchronous FULL, foreign
// keys checked, its page cache, BEGIN IMMEDIATE), so that both pay for the
// same durability and checks.
type sqliteFloor struct{ db *sql.DB }

// sqliteMaxVars is SQLite's bound on a statement's parameters
// (SQLITE_MAX_VARIABLE_NUMBER); rowsPerInsert the rows of one INSERT below it.
const (
	sqliteMaxVars = 32766
	rowsPerInsert = 1000
)

func openSQLiteFloor(path string) (*sqliteFloor, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "journal_mode(WAL)", "synchronous(FULL)", "cache_size(-65536)", "journal_size_limit(67108864)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &sqliteFloor{db: db}, nil
}

func (s *sqliteFloor) close() error { return s.db.Close() }

func (s *sqliteFloor) begin(ctx context.Context) (floorTx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	return &sqliteFloorTx{tx: tx}, err
}

type sqliteFloorTx struct{ tx *sql.Tx }

// insert prepares the INSERT of a full chunk once and runs it for every
// full chunk; the last, shorter chunk has its own statement.
func (t *sqliteFloorTx) insert(ctx context.Context, table string, cols []string, next func([]any) bool) error {
	per := max(1, min(rowsPerInsert, sqliteMaxVars/len(cols)))
	values := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	query := func(rows int) string {
		return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + strings.TrimSuffix(strings.Repeat(values+", ", rows), ", ")
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	dst := make([]any, len(cols))
	args := make([]any, 0, per*len(cols))
	for more := true; more; {
		args = args[:0]
		m := 0
		for m < per {
			if more = next(dst); !more {
				break
			}
			args = appendSQLite(args, dst)
			m++
		}
		var err error
		switch {
		case m == 0:
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

// addToBalances joins the accounts to the pairs passed as one JSON array.
func (t *sqliteFloorTx) addToBalances(ctx context.Context, ids []uuid.UUID, deltas []int64) error {
	b := []byte{'['}
	for k, id := range ids {
		if k > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "[%q,%d]", id.String(), deltas[k])
	}
	_, err := t.tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + r.delta
		FROM (SELECT value ->> 0 AS id, value ->> 1 AS delta FROM json_each(?)) AS r WHERE accounts.id = r.id`, string(append(b, ']')))
	return err
}

func (t *sqliteFloorTx) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, query, appendSQLite(nil, args)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *sqliteFloorTx) query(ctx context.Context, query string, args []any, each func(func(...any) error) error) error {
	rows, err := t.tx.QueryContext(ctx, query, appendSQLite(nil, args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, each)
}

func (t *sqliteFloorTx) commit(context.Context) error { return t.tx.Commit() }
func (t *sqliteFloorTx) rollback(context.Context)     { _ = t.tx.Rollback() }

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
