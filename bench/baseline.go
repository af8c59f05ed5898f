package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse"
)

// baseline writes a batch's rows straight into the database, in one
// transaction each for add and submit, through the fastest bulk path the
// engine has (bulkDB): the floor the service's figures are compared with.
// It writes what the service writes, so the ledger audit still passes:
//   - add: the payment rows, and the batch's summary;
//   - submit: a transfer per leg, the payments' new states, an SMS per
//     held leg, the balances of the accounts touched (one row each), the
//     members' wallets where missing, and the batch's status and summary.
type baseline struct {
	db    bulkDB
	org   *org
	clock *clock
	// ids keeps each baseline batch's payment ids from add to submit.
	ids map[string][]uuid.UUID
}

// bulkDB is one engine's bulk path: multi-row INSERTs in one transaction
// on SQLite, COPY on PostgreSQL.
type bulkDB interface {
	begin(ctx context.Context) (bulkTx, error)
	close() error
}

// bulkTx writes in one transaction. Row functions fill dst with row i's
// values in the order of cols: nil, string, int64, bool or uuid.UUID.
type bulkTx interface {
	// insert adds n rows to table.
	insert(ctx context.Context, table string, cols []string, n int, row func(i int, dst []any)) error
	// update sets cols[1:] of the n rows of table whose cols[0] (a key) matches.
	update(ctx context.Context, table string, cols []string, n int, row func(i int, dst []any)) error
	// exec runs one statement with ? placeholders.
	exec(ctx context.Context, query string, args ...any) error
	// query runs one query with ? placeholders and calls each for every row.
	query(ctx context.Context, query string, args []any, each func(scan func(dest ...any) error) error) error
	commit(ctx context.Context) error
	rollback(ctx context.Context)
}

// openBaseline opens the database the store runs on, a second time, for
// the baseline's own connection.
func openBaseline(ctx context.Context, url string, o *org, c *clock) (*baseline, error) {
	var db bulkDB
	var err error
	switch engineOf(url) {
	case "sqlite":
		db, err = openSQLiteBulk(strings.TrimPrefix(url, "sqlite:"))
	case "postgres", "postgresql":
		db, err = openPostgresBulk(ctx, url)
	default:
		err = fmt.Errorf("no baseline for %q", url)
	}
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return &baseline{db: db, org: o, clock: c, ids: make(map[string][]uuid.UUID)}, nil
}

func (b *baseline) close() error { return b.db.close() }

// now is the service's clock, at the precision the stores keep.
func (b *baseline) now() time.Time { return b.clock.now().UTC().Truncate(time.Microsecond) }

// transact runs fn in one transaction and returns how long it all took,
// from BEGIN to COMMIT.
func (b *baseline) transact(ctx context.Context, fn func(tx bulkTx) error) (time.Duration, error) {
	start := time.Now()
	tx, err := b.db.begin(ctx)
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
	p := disburse.Payment{Amount: spec.amount(i), Status: disburse.PaymentDraft}
	p.Msisdn, p.IsMember = spec.payee(i)
	if amount, to, _ := spec.referral(i); amount > 0 {
		p.ReferralAmount, p.ReferralMsisdn, p.ReferralStatus = amount, to, disburse.PaymentDraft
	}
	return p
}

// add inserts spec's payments into the batch and writes its summary.
func (b *baseline) add(ctx context.Context, batchID string, spec batchSpec) (time.Duration, error) {
	batch, orgID := uuid.MustParse(batchID), uuid.MustParse(b.org.id)
	return b.transact(ctx, func(tx bulkTx) error {
		now := micros(b.now())
		ids := make([]uuid.UUID, spec.n)
		for i := range ids {
			ids[i] = uuid.Must(uuid.NewV7())
		}
		b.ids[batchID] = ids
		var s disburse.Summary
		cols := []string{"id", "batch_id", "organisation_id", "msisdn", "amount", "firstname", "lastname", "external_id",
			"status", "is_member", "created_at", "referral_amount", "referral_msisdn", "referral_status"}
		err := tx.insert(ctx, "payments", cols, spec.n, func(i int, dst []any) {
			p := spec.payment(i)
			s.Change(disburse.Payment{Status: disburse.PaymentDeleted}, p)
			dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7] = ids[i], batch, orgID, p.Msisdn, int64(p.Amount), "Amina", "Otieno", spec.externalID(i)
			dst[8], dst[9], dst[10], dst[11], dst[12], dst[13] = string(p.Status), p.IsMember, now, int64(p.ReferralAmount), p.ReferralMsisdn, string(p.ReferralStatus)
		})
		if err != nil {
			return err
		}
		return updateBatch(ctx, tx, batch, disburse.BatchDraft, s, nil)
	})
}

// updateBatch writes a batch's status, summary and submission time.
func updateBatch(ctx context.Context, tx bulkTx, id uuid.UUID, status disburse.BatchStatus, s disburse.Summary, submitted any) error {
	return tx.exec(ctx, `UPDATE batches SET status = ?, payments_amount = ?, payments_count = ?, referrals_amount = ?,
		draft_amount = ?, draft_count = ?, pending_amount = ?, pending_count = ?, settled_amount = ?, settled_count = ?,
		cancelled_amount = ?, cancelled_count = ?, held_amount = ?, submitted_at = ? WHERE id = ?`,
		string(status), int64(s.PaymentsAmount), s.PaymentsCount, int64(s.ReferralsAmount), int64(s.DraftAmount), s.DraftCount,
		int64(s.PendingAmount), s.PendingCount, int64(s.SettledAmount), s.SettledCount,
		int64(s.CancelledAmount), s.CancelledCount, int64(s.HeldAmount), submitted, id)
}

// micros is a time as the stores keep it: unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }
