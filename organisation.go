package disburse

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/text"
)

// NewOrganisation is the operator's request to create an organisation (docs/api.md section 7).
type NewOrganisation struct {
	Name               string
	Currency           string // default defaultCurrency
	ReferralsEnabled   bool
	ReversalPeriodDays *int64 // default 60
	APIVersion         string // default FirstVersion (docs/versioning.md)
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
	Amount Number
}

// maxApprovalThreshold bounds the threshold as a deposit is bounded: far
// above any batch, far below overflow.
const maxApprovalThreshold = maxDeposit

// threshold validates a new approval threshold; nil turns approval off.
func (t ThresholdSetting) threshold(v *Validation) *Money {
	if t.Off {
		return nil
	}
	amount, ok := ParseMoney(string(t.Amount))
	if !ok || amount > maxApprovalThreshold {
		v.Add(-1, "ApprovalThreshold", string(t.Amount), "approvalThreshold must be an amount with at most 2 decimal places, from 0 to "+
			maxApprovalThreshold.String()+", or null to turn approval off")
		return nil
	}
	return &amount
}

// maxReversalPeriod keeps reversal dates far from overflow: ten years.
const maxReversalPeriod = 10 * 365 * 24 * time.Hour

// CreateOrganisation is CreateOrganisationBy as the actor in ctx.
func (s *Service) CreateOrganisation(ctx context.Context, in NewOrganisation) (Organisation, []Account, error) {
	return s.CreateOrganisationBy(ctx, ActorOf(ctx), in)
}

// CreateOrganisationBy creates an organisation with its holding account and one
// default payout account, in one transaction, with its audit entry.
func (s *Service) CreateOrganisationBy(ctx context.Context, actor Actor, in NewOrganisation) (Organisation, []Account, error) {
	var v Validation
	name := strings.TrimSpace(in.Name)
	if v.Text(-1, "Name", in.Name) && (name == "" || len(name) > 200) {
		v.Add(-1, "Name", in.Name, "name is required, at most 200 characters")
	}
	currency := in.Currency
	if currency == "" {
		currency = defaultCurrency
	}
	if !validCurrency(currency) {
		v.Add(-1, "Currency", in.Currency, "currency must be three upper-case letters (ISO 4217)")
	}
	period := DefaultReversalPeriod
	if in.ReversalPeriodDays != nil {
		period = reversalPeriod(&v, "ReversalPeriodDays", *in.ReversalPeriodDays, 24*time.Hour)
	}
	validVersion(&v, "ApiVersion", in.APIVersion)
	if err := v.Err(); err != nil {
		return Organisation{}, nil, err
	}
	now := s.now()
	org := Organisation{
		ID: NewID(), Name: name, Currency: currency, ReferralsEnabled: in.ReferralsEnabled,
		ReversalPeriod: period, HoldingAccountID: NewID(), CreatedAt: now, APIVersion: cmp.Or(in.APIVersion, FirstVersion),
		Sandbox: in.Sandbox,
	}
	holding := Account{ID: org.HoldingAccountID, OrganisationID: org.ID, Kind: AccountHolding, Name: "Holding", Currency: currency, CreatedAt: now,
		Scope: scopeOf(org)}
	payout := Account{ID: NewID(), OrganisationID: org.ID, Kind: AccountPayout, Name: "Default", Currency: currency, IsDefault: true, CreatedAt: now,
		Scope: scopeOf(org)}
	err := s.Store.Write(ctx, func(tx Tx) error {
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
		return s.audit(ctx, tx, actor, "organisation.created", org.ID, org.ID, auditCreated(org))
	})
	if err != nil {
		return Organisation{}, nil, err
	}
	return org, []Account{payout}, nil
}

// reversalPeriod validates a period given as a count of unit.
func reversalPeriod(v *Validation, field string, n int64, unit time.Duration) time.Duration {
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

// Organisation returns an organisation with its payout accounts.
func (s *Service) Organisation(ctx context.Context, id string) (Organisation, []Account, error) {
	if !ValidID(id) {
		return Organisation{}, nil, NotFound("organisation")
	}
	var org Organisation
	var accounts []Account
	err := s.Store.Read(ctx, func(tx Tx) error {
		var err error
		if org, err = tx.Organisation(ctx, id); err != nil {
			return OrNotFound(err, "organisation")
		}
		accounts, err = tx.PayoutAccounts(ctx, id)
		return err
	})
	return org, accounts, err
}

// UpdateSettings is UpdateSettingsBy as the actor in ctx.
func (s *Service) UpdateSettings(ctx context.Context, id string, in Settings) (Organisation, []Account, error) {
	return s.UpdateSettingsBy(ctx, ActorOf(ctx), id, in)
}

// UpdateSettingsBy changes an organisation's settings. A new reversal period
// applies to batches submitted after the change (docs/api.md section 6), a
// new approval threshold to submits after it (section 4.3).
func (s *Service) UpdateSettingsBy(ctx context.Context, actor Actor, id string, in Settings) (Organisation, []Account, error) {
	if !ValidID(id) {
		return Organisation{}, nil, NotFound("organisation")
	}
	var v Validation
	var period time.Duration
	switch {
	case in.ReversalPeriodSeconds != nil:
		period = reversalPeriod(&v, "ReversalPeriodSeconds", *in.ReversalPeriodSeconds, time.Second)
	case in.ReversalPeriodDays != nil:
		period = reversalPeriod(&v, "ReversalPeriodDays", *in.ReversalPeriodDays, 24*time.Hour)
	}
	var threshold *Money
	if in.ApprovalThreshold != nil {
		threshold = in.ApprovalThreshold.threshold(&v)
	}
	if in.APIVersion != nil {
		validVersion(&v, "ApiVersion", *in.APIVersion)
	}
	if err := v.Err(); err != nil {
		return Organisation{}, nil, err
	}
	var org Organisation
	var accounts []Account
	err := s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if org, err = tx.Organisation(ctx, id); err != nil {
			return OrNotFound(err, "organisation")
		}
		before := auditOrganisation(org)
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
		if err := s.audit(ctx, tx, actor, "settings.changed", org.ID, org.ID, Change(before, auditOrganisation(org))); err != nil {
			return err
		}
		accounts, err = tx.PayoutAccounts(ctx, id)
		return err
	})
	return org, accounts, err
}

// CreateAccount is CreateAccountBy as the actor in ctx.
func (s *Service) CreateAccount(ctx context.Context, organisationID, name string) (Account, error) {
	return s.CreateAccountBy(ctx, ActorOf(ctx), organisationID, name)
}

// CreateAccountBy adds a payout account to an organisation.
func (s *Service) CreateAccountBy(ctx context.Context, actor Actor, organisationID, name string) (Account, error) {
	if !ValidID(organisationID) {
		return Account{}, NotFound("organisation")
	}
	if !text.Valid(name) {
		return Account{}, Invalid("Name", name, textMessage("name"))
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return Account{}, Invalid("Name", name, "name is required, at most 200 characters")
	}
	var a Account
	err := s.Store.Write(ctx, func(tx Tx) error {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return OrNotFound(err, "organisation")
		}
		a = Account{ID: NewID(), OrganisationID: org.ID, Kind: AccountPayout, Name: name, Currency: org.Currency, CreatedAt: s.now(),
			Scope: scopeOf(org)}
		if err := tx.InsertAccount(ctx, a); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, "account.created", org.ID, a.ID, map[string]string{"name": a.Name, "currency": a.Currency})
	})
	return a, err
}

// Accounts lists an organisation's payout accounts with their float and held balances.
func (s *Service) Accounts(ctx context.Context, organisationID string) ([]Account, error) {
	return read(ctx, s.Store, func(tx Tx) ([]Account, error) { return tx.PayoutAccounts(ctx, organisationID) })
}
