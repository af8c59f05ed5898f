// Package sandbox holds the three calls only a sandbox organisation has
// (docs/sandbox.md): what happens live to its payees and its float outside
// the API, on demand. Each runs in one transaction of the domain's store,
// through the domain's own steps (Service.SettleTo, Service.ExpireLegs,
// Service.DepositBy), so a sandbox's money moves as live money does. What
// the live use cases need to pay a sandbox's members and wallets is the
// domain's (sandbox.go in package disburse). A live organisation that
// calls these finds no such route (errNotSandbox).
package sandbox

import (
	"context"
	"errors"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/msisdn"
)

// errNotSandbox answers a sandbox route called by a live organisation: to
// it the route does not exist (docs/sandbox.md).
var errNotSandbox = disburse.Errorf(disburse.CodeNotFound, "no such call for a live organisation: the /sandbox calls are a sandbox organisation's")

// organisation reads the caller's organisation, which must be a sandbox.
func organisation(ctx context.Context, tx disburse.Tx, organisationID string) (disburse.Organisation, error) {
	org, err := tx.Organisation(ctx, organisationID)
	if err != nil {
		return disburse.Organisation{}, disburse.OrNotFound(err, "organisation")
	}
	if !org.Sandbox {
		return disburse.Organisation{}, errNotSandbox
	}
	return org, nil
}

// RegisterMember makes msisdn a member of the sandbox organisation and, in
// the same transaction, settles every leg its batches hold for it:
// holding → the sandbox's wallet of the payee, as a live registration
// settles a member's legs in every organisation. Registering again
// changes nothing. The payee is a member of this sandbox only.
func RegisterMember(ctx context.Context, s *disburse.Service, organisationID, payee string) (disburse.SandboxRegistration, error) {
	if !msisdn.Valid(payee) {
		return disburse.SandboxRegistration{}, disburse.Invalid("Msisdn", payee, disburse.MsisdnMessage)
	}
	var out disburse.SandboxRegistration
	var moved []disburse.Movement
	err := s.Store.Write(ctx, func(tx disburse.Tx) error {
		out, moved = disburse.SandboxRegistration{}, nil
		org, err := organisation(ctx, tx, organisationID)
		if err != nil {
			return err
		}
		now := s.Now()
		out.Member = disburse.SandboxMember{OrganisationID: org.ID, Msisdn: payee, RegisteredAt: now}
		if out.Created, err = tx.InsertSandboxMember(ctx, out.Member); err != nil || !out.Created {
			if err == nil {
				out.Member, err = tx.SandboxMember(ctx, org.ID, payee)
			}
			return err
		}
		legs, err := tx.LockSandboxLegsTo(ctx, org.ID, payee)
		if err != nil {
			return err
		}
		out.Settled = disburse.PaymentsPendingTo(legs, payee)
		if err := tx.InsertAudit(ctx, disburse.NewAuditEntry(s.Now(), disburse.ActorOf(ctx), "sandbox.member.registered", org.ID, payee,
			map[string]any{"pendingLegsSettled": out.Settled})); err != nil {
			return err
		}
		members := map[string]disburse.Member{payee: {Msisdn: payee, RegisteredAt: now}}
		moved, err = s.SettleTo(ctx, tx, now, org, legs, members)
		return err
	})
	if err == nil {
		s.Report(moved)
	}
	return out, err
}

// ExpireBatch ends the reversal period of an OPEN batch of the sandbox
// now: every leg it holds is settled if its payee is a member of the
// sandbox, else reversed from the holding account to the batch's float,
// with the transfers and events the reversal worker writes
// (Service.ReverseDue). It returns the batch as it is afterwards and how
// many payments changed.
func ExpireBatch(ctx context.Context, s *disburse.Service, organisationID, batchID string) (disburse.Batch, int, error) {
	var b disburse.Batch
	var n int
	var moved []disburse.Movement
	err := s.Store.Write(ctx, func(tx disburse.Tx) error {
		n, moved = 0, nil
		if _, err := organisation(ctx, tx, organisationID); err != nil {
			return err
		}
		// Unlocked, as the sweep reads its batches: the lock order takes
		// the payments first and the batch last (docs/ledger.md).
		read, err := disburse.OwnBatch(ctx, tx, organisationID, batchID)
		if err != nil {
			return err
		}
		if read.Status != disburse.BatchOpen {
			return disburse.Errorf(disburse.CodeInvalidState, "cannot expire: batch is %s; only an OPEN batch holds payments", read.Status)
		}
		due, err := tx.LockPendingLegsOf(ctx, read.ID)
		if err != nil {
			return err
		}
		if n = len(due); n > 0 {
			if moved, err = s.ExpireLegs(ctx, tx, due, read); err != nil {
				return err
			}
		}
		if b, err = tx.Batch(ctx, read.ID); err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.Now(), disburse.ActorOf(ctx), "sandbox.batch.expired", organisationID, b.ID,
			map[string]any{"paymentsChanged": n}))
	})
	if err == nil {
		s.Report(moved)
	}
	return b, n, err
}

// Deposit tops up a payout account of the sandbox (its default one when
// accountID is empty) from the sandbox's own funding account, as the
// operator's deposit does live (Service.DepositBy). currency must be the
// organisation's: a sandbox, like a live organisation, holds one.
func Deposit(ctx context.Context, s *disburse.Service, organisationID, accountID, amount, currency, reference string) (disburse.Transfer, error) {
	var org disburse.Organisation
	var target string
	var found bool
	err := s.Store.Read(ctx, func(tx disburse.Tx) error {
		var err error
		if org, err = organisation(ctx, tx, organisationID); err != nil {
			return err
		}
		target, found, err = payoutAccount(ctx, tx, organisationID, strings.TrimSpace(accountID))
		return err
	})
	if err != nil {
		return disburse.Transfer{}, err
	}
	var v disburse.Validation
	disburse.ValidateDeposit(&v, amount, reference)
	if v.Text(-1, "Currency", currency) && currency != org.Currency {
		v.Add(-1, "Currency", currency, "currency is required: the organisation's, "+org.Currency)
	}
	if err := v.Err(); err != nil {
		return disburse.Transfer{}, err
	}
	if !found {
		return disburse.Transfer{}, disburse.NotFound("account")
	}
	return s.DepositBy(ctx, disburse.ActorOf(ctx), target, amount, reference)
}

// payoutAccount is the id of the organisation's payout account named id,
// or of its default one when id is empty; found is false when there is
// none, which the caller reports after the input's own errors. It reads
// the id alone (Tx.PayoutAccountID), not the held sums over the account's
// batches that Tx.PayoutAccounts adds up.
func payoutAccount(ctx context.Context, tx disburse.Tx, organisationID, id string) (target string, found bool, err error) {
	if id != "" && !disburse.ValidID(id) {
		// No account's id has another form; PostgreSQL would refuse it as a uuid.
		return "", false, nil
	}
	target, err = tx.PayoutAccountID(ctx, organisationID, id)
	if errors.Is(err, disburse.ErrNotFound) {
		return "", false, nil
	}
	return target, err == nil, err
}
