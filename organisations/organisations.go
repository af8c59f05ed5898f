// Package organisations creates organisations and keeps their settings and
// payout accounts (docs/api.md section 7). None of it moves money: each
// call writes the organisation's rows and its audit entry through the
// domain's store, in one transaction; deposits and the ledger are the
// domain's (package disburse).
package organisations

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/apiversion"
	"github.com/disburse/disburse/internal/text"
)

// NewOrganisation is the operator's request to create an organisation (docs/api.md section 7).
type NewOrganisation struct {
	Name               string
	Currency           string // default disburse.DefaultCurrency
	ReferralsEnabled   bool
	ReversalPeriodDays *int64 // default 60
	APIVersion         string // default apiversion.First (docs/versioning.md)
	Sandbox            bool   // docs/sandbox.md
}

// Settings changes an organisation's settings; nil fields are left alone.
// Seconds exist so tests need not wait days; when both are given, seconds win.
type Settings struct {
	ReferralsEnabled      *bool
	ReversalPeriodDays    *int64
	ReversalPeriodSeconds *int64
	// ApprovalThreshold, when not nil, sets the approval threshold or
	// turns approval off (docs/api.md section 4.3).
	ApprovalThreshold *ThresholdSetting
	APIVersion        *string // the default version (docs/versioning.md)
}

// ThresholdSetting is a new approval threshold: Off turns approval off;
// else Amount, an amount's text as a JSON number writes it, is the
// threshold, 0 for every batch.
type ThresholdSetting struct {
	Off    bool
	Amount disburse.Number
}

// maxApprovalThreshold bounds the threshold as a deposit is bounded: far
// above any batch, far below overflow.
const maxApprovalThreshold = disburse.MaxDeposit

// threshold validates a new approval threshold; nil turns approval off.
func (t ThresholdSetting) threshold(v *disburse.Validation) *disburse.Money {
	if t.Off {
		return nil
	}
	amount, ok := disburse.ParseMoney(string(t.Amount))
	if !ok || amount > maxApprovalThreshold {
		v.Add(-1, "ApprovalThreshold", string(t.Amount), "approvalThreshold must be an amount with at most 2 decimal places, from 0 to "+
			maxApprovalThreshold.String()+", or null to turn approval off")
		return nil
	}
	return &amount
}

// maxReversalPeriod keeps reversal dates far from overflow: ten years.
const maxReversalPeriod = 10 * 365 * 24 * time.Hour

// Create is CreateBy as the actor in ctx.
func Create(ctx context.Context, s *disburse.Service, in NewOrganisation) (disburse.Organisation, []disburse.Account, error) {
	return CreateBy(ctx, s, disburse.ActorOf(ctx), in)
}

// CreateBy creates an organisation with its holding account and one
// default payout account, in one transaction, with its audit entry.
func CreateBy(ctx context.Context, s *disburse.Service, actor disburse.Actor, in NewOrganisation) (disburse.Organisation, []disburse.Account, error) {
	var v disburse.Validation
	name := strings.TrimSpace(in.Name)
	if v.Text(-1, "Name", in.Name) && (name == "" || len(name) > 200) {
		v.Add(-1, "Name", in.Name, "name is required, at most 200 characters")
	}
	currency := in.Currency
	if currency == "" {
		currency = disburse.DefaultCurrency
	}
	if !validCurrency(currency) {
		v.Add(-1, "Currency", in.Currency, "currency must be three upper-case letters (ISO 4217)")
	}
	period := disburse.DefaultReversalPeriod
	if in.ReversalPeriodDays != nil {
		period = reversalPeriod(&v, "ReversalPeriodDays", *in.ReversalPeriodDays, 24*time.Hour)
	}
	validVersion(&v, in.APIVersion)
	if err := v.Err(); err != nil {
		return disburse.Organisation{}, nil, err
	}
	now := s.Now()
	org := disburse.Organisation{
		ID: disburse.NewID(), Name: name, Currency: currency, ReferralsEnabled: in.ReferralsEnabled,
		ReversalPeriod: period, HoldingAccountID: disburse.NewID(), CreatedAt: now, APIVersion: cmp.Or(in.APIVersion, apiversion.First),
		Sandbox: in.Sandbox,
	}
	holding := disburse.Account{ID: org.HoldingAccountID, OrganisationID: org.ID, Kind: disburse.AccountHolding, Name: "Holding", Currency: currency, CreatedAt: now,
		Scope: disburse.ScopeOf(org)}
	payout := disburse.Account{ID: disburse.NewID(), OrganisationID: org.ID, Kind: disburse.AccountPayout, Name: "Default", Currency: currency, IsDefault: true, CreatedAt: now,
		Scope: disburse.ScopeOf(org)}
	err := s.Store.Write(ctx, func(tx disburse.Tx) error {
		if err := tx.InsertOrganisation(ctx, org); err != nil {
			return err
		}
		if err := tx.InsertAccount(ctx, holding); err != nil {
			return err
		}
		if err := tx.InsertAccount(ctx, payout); err != nil {
			return err
		}
		if err := insertSandboxFunding(ctx, tx, org); err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.Now(), actor, "organisation.created", org.ID, org.ID, auditCreated(org)))
	})
	if err != nil {
		return disburse.Organisation{}, nil, err
	}
	return org, []disburse.Account{payout}, nil
}

// reversalPeriod validates a period given as a count of unit.
func reversalPeriod(v *disburse.Validation, field string, n int64, unit time.Duration) time.Duration {
	if n < 1 || n > int64(maxReversalPeriod/unit) {
		v.Add(-1, field, strconv.FormatInt(n, 10), "reversal period must be positive and at most ten years")
		return 0
	}
	return time.Duration(n) * unit
}

func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

// Get returns an organisation with its payout accounts.
func Get(ctx context.Context, s *disburse.Service, id string) (disburse.Organisation, []disburse.Account, error) {
	if !disburse.ValidID(id) {
		return disburse.Organisation{}, nil, disburse.NotFound("organisation")
	}
	var org disburse.Organisation
	var accounts []disburse.Account
	err := s.Store.Read(ctx, func(tx disburse.Tx) error {
		var err error
		if org, err = tx.Organisation(ctx, id); err != nil {
			return disburse.OrNotFound(err, "organisation")
		}
		accounts, err = tx.PayoutAccounts(ctx, id)
		return err
	})
	return org, accounts, err
}

// UpdateSettings is UpdateSettingsBy as the actor in ctx.
func UpdateSettings(ctx context.Context, s *disburse.Service, id string, in Settings) (disburse.Organisation, []disburse.Account, error) {
	return UpdateSettingsBy(ctx, s, disburse.ActorOf(ctx), id, in)
}

// UpdateSettingsBy changes an organisation's settings. A new reversal period
// applies to batches submitted after the change (docs/api.md section 6), a
// new approval threshold to submits after it (section 4.3).
func UpdateSettingsBy(ctx context.Context, s *disburse.Service, actor disburse.Actor, id string, in Settings) (disburse.Organisation, []disburse.Account, error) {
	if !disburse.ValidID(id) {
		return disburse.Organisation{}, nil, disburse.NotFound("organisation")
	}
	var v disburse.Validation
	var period time.Duration
	switch {
	case in.ReversalPeriodSeconds != nil:
		period = reversalPeriod(&v, "ReversalPeriodSeconds", *in.ReversalPeriodSeconds, time.Second)
	case in.ReversalPeriodDays != nil:
		period = reversalPeriod(&v, "ReversalPeriodDays", *in.ReversalPeriodDays, 24*time.Hour)
	}
	var threshold *disburse.Money
	if in.ApprovalThreshold != nil {
		threshold = in.ApprovalThreshold.threshold(&v)
	}
	if in.APIVersion != nil {
		validVersion(&v, *in.APIVersion)
	}
	if err := v.Err(); err != nil {
		return disburse.Organisation{}, nil, err
	}
	var org disburse.Organisation
	var accounts []disburse.Account
	err := s.Store.Write(ctx, func(tx disburse.Tx) error {
		var err error
		if org, err = tx.Organisation(ctx, id); err != nil {
			return disburse.OrNotFound(err, "organisation")
		}
		before := disburse.AuditOrganisation(org)
		if in.ReferralsEnabled != nil {
			org.ReferralsEnabled = *in.ReferralsEnabled
		}
		if period > 0 {
			org.ReversalPeriod = period
		}
		if in.ApprovalThreshold != nil {
			// A batch waiting for an approval keeps waiting: the
			// threshold is read at each submit, not again at approval.
			org.ApprovalThreshold = threshold
		}
		if in.APIVersion != nil && *in.APIVersion != "" {
			org.APIVersion = *in.APIVersion
		}
		if err := tx.UpdateOrganisation(ctx, org); err != nil {
			return err
		}
		if err := tx.InsertAudit(ctx, disburse.NewAuditEntry(s.Now(), actor, "settings.changed", org.ID, org.ID,
			disburse.Change(before, disburse.AuditOrganisation(org)))); err != nil {
			return err
		}
		accounts, err = tx.PayoutAccounts(ctx, id)
		return err
	})
	return org, accounts, err
}

// CreateAccount is CreateAccountBy as the actor in ctx.
func CreateAccount(ctx context.Context, s *disburse.Service, organisationID, name string) (disburse.Account, error) {
	return CreateAccountBy(ctx, s, disburse.ActorOf(ctx), organisationID, name)
}

// CreateAccountBy adds a payout account to an organisation.
func CreateAccountBy(ctx context.Context, s *disburse.Service, actor disburse.Actor, organisationID, name string) (disburse.Account, error) {
	if !disburse.ValidID(organisationID) {
		return disburse.Account{}, disburse.NotFound("organisation")
	}
	if !text.Valid(name) {
		return disburse.Account{}, disburse.Invalid("Name", name, disburse.TextMessage("name"))
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return disburse.Account{}, disburse.Invalid("Name", name, "name is required, at most 200 characters")
	}
	var a disburse.Account
	err := s.Store.Write(ctx, func(tx disburse.Tx) error {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return disburse.OrNotFound(err, "organisation")
		}
		a = disburse.Account{ID: disburse.NewID(), OrganisationID: org.ID, Kind: disburse.AccountPayout, Name: name, Currency: org.Currency, CreatedAt: s.Now(),
			Scope: disburse.ScopeOf(org)}
		if err := tx.InsertAccount(ctx, a); err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.Now(), actor, "account.created", org.ID, a.ID, map[string]string{"name": a.Name, "currency": a.Currency}))
	})
	return a, err
}

// Accounts lists an organisation's payout accounts with their float and held balances.
func Accounts(ctx context.Context, s *disburse.Service, organisationID string) ([]disburse.Account, error) {
	return s.Store.PayoutAccounts(ctx, organisationID)
}

// validVersion checks an optional apiVersion into v: empty is left to the
// caller's default.
func validVersion(v *disburse.Validation, version string) {
	if version != "" && !apiversion.Known(version) {
		v.Add(-1, "ApiVersion", version, "apiVersion must be one of "+strings.Join(apiversion.All, ", "))
	}
}

// insertSandboxFunding gives a new sandbox organisation the funding
// account its deposits come from: its own outside world, so its money
// never comes from, nor sums with, the live one's (docs/sandbox.md).
func insertSandboxFunding(ctx context.Context, tx disburse.Tx, org disburse.Organisation) error {
	if !org.Sandbox {
		return nil
	}
	return tx.InsertAccount(ctx, disburse.Account{ID: disburse.NewID(), Kind: disburse.AccountFunding, Name: "Sandbox funding", Scope: org.ID, CreatedAt: org.CreatedAt})
}

// auditCreated is what the log keeps of a new organisation; a sandbox's
// entry says it is one.
func auditCreated(org disburse.Organisation) map[string]any {
	details := disburse.AuditOrganisation(org)
	if org.Sandbox {
		details["sandbox"] = true
	}
	return details
}
