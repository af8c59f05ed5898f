package bench

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/disburse/disburse/sqlstore"
)

// postgresFloor is PostgreSQL's floor: COPY (pgx CopyFrom) on one
// connection of its own, with the settings the store gives its sessions
// where they change a plan (no JIT).
type postgresFloor struct{ conn *pgx.Conn }

func openPostgresFloor(ctx context.Context, url string) (*postgresFloor, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["jit"] = "off"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &postgresFloor{conn: conn}, nil
}

func (p *postgresFloor) close() error { return p.conn.Close(context.Background()) }

func (p *postgresFloor) begin(ctx context.Context) (floorTx, error) {
	tx, err := p.conn.Begin(ctx)
	return &postgresFloorTx{tx: tx}, err
}

type postgresFloorTx struct{ tx pgx.Tx }

// insert hands pgx ids as pgtype.UUID, which it encodes as they are: a
// uuid.UUID would go through its text form, a cost of the client's, not
// of the database's.
func (t *postgresFloorTx) insert(ctx context.Context, table string, cols []string, next func([]any) bool) error {
	dst := make([]any, len(cols))
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if !next(dst) {
			return nil, nil
		}
		for k, v := range dst {
			if u, ok := v.(uuid.UUID); ok {
				dst[k] = pgtype.UUID{Bytes: u, Valid: true}
			}
		}
		return dst, nil
	}))
	return err
}

func (t *postgresFloorTx) addToBalances(ctx context.Context, ids []uuid.UUID, deltas []int64) error {
	_, err := t.tx.Exec(ctx, `UPDATE accounts SET balance = accounts.balance + r.delta
		FROM unnest($1::uuid[], $2::bigint[]) AS r(id, delta) WHERE accounts.id = r.id`, ids, deltas)
	return err
}

func (t *postgresFloorTx) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, sqlstore.RebindDollar(query), args...)
	return tag.RowsAffected(), err
}

func (t *postgresFloorTx) query(ctx context.Context, query string, args []any, each func(func(...any) error) error) error {
	rows, err := t.tx.Query(ctx, sqlstore.RebindDollar(query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, each)
}

func (t *postgresFloorTx) commit(ctx context.Context) error { return t.tx.Commit(ctx) }
func (t *postgresFloorTx) rollback(ctx context.Context)     { _ = t.tx.Rollback(ctx) }
