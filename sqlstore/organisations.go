package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/disburse/disburse"
)

const organisationColumns = `id, name, currency, referrals_enabled, reversal_period_us, holding_account_id, created_at,
	approval_threshold, api_version, sandbox`

func (t *tx) InsertOrganisation(ctx context.Context, o disburse.Organisation) error {
	return t.insert(ctx, "organisation",
		`INSERT INTO organisations (`+organisationColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		o.ID, o.Name, o.Currency, o.ReferralsEnabled, o.ReversalPeriod.Microseconds(), nullID(o.HoldingAccountID), micros(o.CreatedAt),
		nullMoney(o.ApprovalThreshold), o.APIVersion, o.Sandbox)
}

func (t *tx) Organisation(ctx context.Context, id string) (disburse.Organisation, error) {
	return t.organisation(ctx, id, "")
}

func (t *tx) LockOrganisation(ctx context.Context, id string) (disburse.Organisation, error) {
	return t.organisation(ctx, id, t.e.LockClause(false))
}

func (t *tx) organisation(ctx context.Context, id, lock string) (disburse.Organisation, error) {
	return t.organisationWhere(ctx, `id = ?`+lock, id)
}

// organisationWhere reads the first organisation that matches cond (with
// its one argument, and whatever ordering or lock clause it carries).
func (t *tx) organisationWhere(ctx context.Context, cond string, arg any) (disburse.Organisation, error) {
	o, err := scanOrganisation(t.queryRow(ctx, `SELECT `+organisationColumns+` FROM organisations WHERE `+cond, arg))
	return o, found("organisation", err)
}

func scanOrganisation(r scanner) (disburse.Organisation, error) {
	var o disburse.Organisation
	var period int64
	err := r.Scan(&o.ID, &o.Name, &o.Currency, &o.ReferralsEnabled, &period, opt(&o.HoldingAccountID), at(&o.CreatedAt),
		optMoney(&o.ApprovalThreshold), &o.APIVersion, &o.Sandbox)
	o.ReversalPeriod = time.Duration(period) * time.Microsecond
	return o, err
}

func (t *tx) OrganisationsByID(ctx context.Context, ids []string) (map[string]disburse.Organisation, error) {
	ids = distinct(ids)
	return byKey(ctx, t, "organisations", `SELECT `+organisationColumns+` FROM organisations WHERE id IN (SELECT r.id FROM @rows AS r)`,
		ids, IDCol("id", func(i int) string { return ids[i] }),
		func(r *sql.Rows) (disburse.Organisation, error) { return scanOrganisation(r) },
		func(o disburse.Organisation) string { return o.ID })
}

func (t *tx) OrganisationByName(ctx context.Context, name string) (disburse.Organisation, error) {
	return t.organisationWhere(ctx, `name = ? ORDER BY created_at, id LIMIT 1`, name)
}

func (t *tx) UpdateOrganisation(ctx context.Context, o disburse.Organisation) error {
	t.tokensChanged = true // a kept token carries its organisation's default version
	return t.update(ctx, "organisation",
		`UPDATE organisations SET name = ?, currency = ?, referrals_enabled = ?, reversal_period_us = ?, holding_account_id = ?,
			approval_threshold = ?, api_version = ? WHERE id = ?`,
		o.Name, o.Currency, o.ReferralsEnabled, o.ReversalPeriod.Microseconds(), nullID(o.HoldingAccountID), nullMoney(o.ApprovalThreshold), o.APIVersion, o.ID)
}
