package disburse

import (
	"context"
	"math"
	"strings"
)

// MaxDeposit bounds one deposit, far above any payout and far below overflow.
const MaxDeposit Money = 1_000_000_000_000 * 100

// ValidateDeposit checks a deposit's amount and reference into v and
// returns the amount.
func ValidateDeposit(v *Validation, amountText, reference string) Money {
	amount, ok := ParseMoney(amountText)
	if !ok || amount <= 0 || amount > MaxDeposit {
		v.Add(-1, "Amount", amountText, "amount must be a number with at most 2 decimal places, from 0.01 to "+MaxDeposit.String())
	}
	if v.Text(-1, "Reference", reference) && len([]rune(reference)) > 200 {
		v.Add(-1, "Reference", reference, "reference is at most 200 characters")
	}
	return amount
}

// Deposit is DepositBy as the actor in ctx.
func (s *Service) Deposit(ctx context.Context, accountID, amountText, reference string) (Transfer, error) {
	return s.DepositBy(ctx, ActorOf(ctx), accountID, amountText, reference)
}

// DepositBy credits a payout account from the funding account: money arriving
// from outside the service, recorded as a ledger transfer like any other.
func (s *Service) DepositBy(ctx context.Context, actor Actor, accountID, amountText, reference string) (Transfer, error) {
	if !ValidID(accountID) {
		return Transfer{}, NotFound("account")
	}
	var v Validation
	amount := ValidateDeposit(&v, amountText, reference)
	if err := v.Err(); err != nil {
		return Transfer{}, err
	}
	t := Transfer{ID: NewID(), FromAccountID: FundingAccountID, ToAccountID: accountID, Amount: amount,
		Kind: TransferDeposit, Reference: strings.TrimSpace(reference), CreatedAt: s.Now()}
	err := s.Store.Write(ctx, func(tx Tx) error {
		a, err := tx.LockAccount(ctx, accountID)
		if err != nil {
			return OrNotFound(err, "account")
		}
		if a.Kind != AccountPayout {
			return NotFound("account")
		}
		// A sandbox's float comes from its own funding account (docs/ledger.md "Scopes").
		if t.FromAccountID, err = fundingAccountOf(ctx, tx, a); err != nil {
			return err
		}
		if a.Balance > math.MaxInt64-amount {
			return Invalid("Amount", amount.String(), "the account's balance would overflow")
		}
		if err := tx.InsertTransfers(ctx, []Transfer{t}); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, "account.deposited", a.OrganisationID, a.ID, map[string]string{
			"balanceBefore": a.Balance.String(), "balanceAfter": (a.Balance + amount).String(),
			"amount": amount.String(), "reference": t.Reference, "transfer": t.ID})
	})
	return t, err
}
