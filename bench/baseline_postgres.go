package bench

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/sqlstore"
)

// postgresBulk is PostgreSQL's bulk path: COPY (pgx CopyFrom) on one
// connection of its own; updates COPY the new values into a temporary
// table and apply them with one UPDATE ... FROM.
type postgresBulk struct{ conn *pgx.Conn }

func openPostgresBulk(ctx context.Context, url string) (*postgresBulk, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	return &postgresBulk{conn: conn}, nil
}

func (p *postgresBulk) close() error { return p.conn.Close(context.Background()) }

func (p *postgresBulk) begin(ctx context.Context) (bulkTx, error) {
	tx, err := p.conn.Begin(ctx)
	return &postgresTx{tx: tx}, err
}

type postgresTx struct{ tx pgx.Tx }

func (t *postgresTx) insert(ctx context.Context, table string, cols []string, n int, row func(int, []any)) error {
	if n == 0 {
		return nil
	}
	dst := make([]any, len(cols))
	i := 0
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		row(i, dst)
		i++
		return dst, nil
	}))
	return err
}

// update copies the rows into a temporary table shaped like table's
// columns, analyses it so that the planner knows its size, and joins it.
func (t *postgresTx) update(ctx context.Context, table string, cols []string, n int, row func(int, []any)) error {
	if n == 0 {
		return nil
	}
	tmp := "bench_" + table
	_, err := t.tx.Exec(ctx, "CREATE TEMP TABLE "+tmp+" ON COMMIT DROP AS SELECT "+strings.Join(cols, ", ")+" FROM "+table+" WITH NO DATA")
	if err != nil {
		return err
	}
	if err := t.insert(ctx, tmp, cols, n, row); err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, "ANALYZE "+tmp); err != nil {
		return err
	}
	set := make([]string, len(cols)-1)
	for k, c := range cols[1:] {
		set[k] = c + " = r." + c
	}
	_, err = t.tx.Exec(ctx, "UPDATE "+table+" SET "+strings.Join(set, ", ")+" FROM "+tmp+" r WHERE "+table+"."+cols[0]+" = r."+cols[0])
	return err
}

func (t *postgresTx) exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.Exec(ctx, sqlstore.RebindDollar(query), args...)
	return err
}

func (t *postgresTx) query(ctx context.Context, query string, args []any, each func(func(...any) error) error) error {
	rows, err := t.tx.Query(ctx, sqlstore.RebindDollar(query), args...)
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

func (t *postgresTx) commit(ctx context.Context) error { return t.tx.Commit(ctx) }
func (t *postgresTx) rollback(ctx context.Context)     { _ = t.tx.Rollback(ctx) }
