package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse"
)

// floor writes a batch's rows straight into the database, in one
// transaction each for add and submit: the least work the database must do
// to hold what the service's add and submit leave behind, with none of the
// service's checks, reads or locks. The service's figures are read as a
// ratio to it (docs/benchmarks.md, "What the floors do").
//
//   - add: the payment rows in one bulk insert (COPY on PostgreSQL), then
//     the batch's summary;
//   - submit: one set-based UPDATE of the payments' states, the transfers
//     in one bulk insert, the outbox's SMS in another, one UPDATE of the
//     balances touched, the members' wallets where missing, the batch's
//     queued member check, and the batch's status and summary.
//
// It writes the same rows into the same tables, and so the same indexes,
// as the service does for the same batch (TestFloorWritesWhatServiceWrites),
// so that the ledger audit passes and a ratio compares like with like.
type floor struct {
	db    floorDB
	org   *org
	clock *clock
	// ids keeps each floor batch's payment ids from add to submit, for its
	// transfers: reading them back would be work the service does not do.
	ids map[string][]uuid.UUID
}

// floorDB is one engine's cheapest way to write rows: COPY on PostgreSQL,
// prepared multi-row INSERTs on SQLite.
type floorDB interface {
	begin(ctx context.Context) (floorTx, error)
	close() error
}

// floorTx writes in one transaction. Values are nil, string, int64, bool
// or uuid.UUID; statements take ? placeholders.
type floorTx interface {
	// insert adds rows to table: next fills dst with the next row's values
	// in the order of cols, and reports false when there are no more.
	insert(ctx context.Context, table string, cols []string, next func(dst []any) bool) error
	// addToBalances adds deltas[k] to the balance of account ids[k], in
	// one statement.
	addToBalances(ctx context.Context, ids []uuid.UUID, deltas []int64) error
	// exec runs one statement and returns the rows it changed.
	exec(ctx context.Context, query string, args ...any) (int64, error)
	// query runs one query and calls each for every row.
	query(ctx context.Context, query string, args []any, each func(scan func(dest ...any) error) error) error
	commit(ctx context.Context) error
	rollback(ctx context.Context)
}

// rows are a query's rows, pgx's or database/sql's.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// eachRow calls each for every row.
func eachRow(r rows, each func(scan func(dest ...any) error) error) error {
	for r.Next() {
		if err := each(r.Scan); err != nil {
			return err
		}
	}
	return r.Err()
}

// openFloor opens the database the store runs on, a second time, for the
// floor's own connection.
func openFloor(ctx context.Context, url string, o *org, c *clock) (*floor, error) {
	var db floorDB
	var err error
	switch engineOf(url) {
	case "sqlite":
		db, err = openSQLiteFloor(strings.TrimPrefix(url, "sqlite:"))
	case "postgres", "postgresql":
		db, err = openPostgresFloor(ctx, url)
	default:
		err = fmt.Errorf("no floor for %q", url)
	}
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	return &floor{db: db, org: o, clock: c, ids: make(map[string][]uuid.UUID)}, nil
}

func (f *floor) close() error { return f.db.close() }

// now is the service's clock, at the precision the stores keep.
func (f *floor) now() time.Time { return f.clock.now().UTC().Truncate(time.Microsecond) }

// transact runs fn in one transaction and returns how long it all took,
// from BEGIN to COMMIT.
func (f *floor) transact(ctx context.Context, fn func(tx floorTx) error) (time.Duration, error) {
	start := time.Now()
	tx, err := f.db.begin(ctx)
	if err != nil {
		return 0, err
	}
	if err := fn(tx); err != nil {
		tx.rollback(ctx)
		return 0, err
	}
	if err := tx.commit(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// payment is payment i of spec as the service would store it when added.
func (spec batchSpec) payment(i int) disburse.Payment {
	p := disburse.Payment{Amount: spec.amount(i), Status: disburse.PaymentDraft, ExternalID: spec.externalID(i)}
	p.Msisdn, p.IsMember = spec.payee(i)
	if amount, to, _ := spec.referral(i); amount > 0 {
		p.ReferralAmount, p.ReferralMsisdn, p.ReferralStatus = amount, to, disburse.PaymentDraft
	}
	return p
}

// paymentCols are the columns the service's add writes (sqlstore's
// InsertPayments), with the floor's values in addRow.
var paymentCols = []string{"id", "batch_id", "organisation_id", "msisdn", "amount", "firstname", "lastname", "external_id",
	"held_external_id", "status", "is_member", "created_at", "referral_amount", "referral_msisdn", "referral_status"}

// add inserts spec's payments into the batch and writes its summary.
func (f *floor) add(ctx context.Context, batchID string, spec batchSpec) (time.Duration, error) {
	batch, orgID := uuid.MustParse(batchID), uuid.MustParse(f.org.id)
	ids := make([]uuid.UUID, spec.n)
	var s disburse.Summary
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7())
		s.Change(disburse.Payment{Status: disburse.PaymentDeleted}, spec.payment(i))
	}
	f.ids[batchID] = ids
	return f.transact(ctx, func(tx floorTx) error {
		now, i := micros(f.now()), 0
		err := tx.insert(ctx, "payments", paymentCols, func(dst []any) bool {
			if i == spec.n {
				return false
			}
			p := spec.payment(i)
			dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7] = ids[i], batch, orgID, p.Msisdn, int64(p.Amount), "Amina", "Otieno", p.ExternalID
			dst[8], dst[9], dst[10], dst[11], dst[12], dst[13], dst[14] = p.ExternalID, string(p.Status), p.IsMember, now, int64(p.ReferralAmount), p.ReferralMsisdn, string(p.ReferralStatus)
			i++
			return true
		})
		if err != nil {
			return err
		}
		return updateBatch(ctx, tx, batch, disburse.BatchDraft, s, nil, nil)
	})
}

// updateBatch writes a batch's status, summary, submission time and
// reversal date.
func updateBatch(ctx context.Context, tx floorTx, id uuid.UUID, status disburse.BatchStatus, s disburse.Summary, submitted, due any) error {
	n, err := tx.exec(ctx, `UPDATE batches SET status = ?, payments_amount = ?, payments_count = ?, referrals_amount = ?,
		draft_amount = ?, draft_count = ?, pending_amount = ?, pending_count = ?, settled_amount = ?, settled_count = ?,
		cancelled_amount = ?, cancelled_count = ?, held_amount = ?, submitted_at = ?, reversal_due_at = ? WHERE id = ?`,
		string(status), int64(s.PaymentsAmount), s.PaymentsCount, int64(s.ReferralsAmount), int64(s.DraftAmount), s.DraftCount,
		int64(s.PendingAmount), s.PendingCount, int64(s.SettledAmount), s.SettledCount,
		int64(s.CancelledAmount), s.CancelledCount, int64(s.HeldAmount), submitted, due, id)
	if err == nil && n != 1 {
		err = fmt.Errorf("batch %s: updated %d rows", id, n)
	}
	return err
}

// micros is a time as the stores keep it: unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }
