package disburse

import (
	"context"
	"strings"
)

// The three calls only a sandbox organisation has (docs/sandbox.md): what
// happens live to its payees and its float outside the API, on demand. A
// live organisation that calls them finds no such route (errNotSandbox).

// SandboxRegistration is the answer of RegisterSandboxMember: the member,
// whether this call made it one, and how many legs pending to it settled.
type SandboxRegistration struct {
	Member  SandboxMember
	Created bool
	Settled int
}

// RegisterSandboxMember makes msisdn a member of the sandbox organisation
// and, in the same transaction, settles every leg its batches hold for it:
// holding → the sandbox's wallet of the payee, as a live registration
// settles a member's legs in every organisation. Registering again
// changes nothing. The payee is a member of this sandbox only.
func (s *Service) RegisterSandboxMember(ctx context.Context, organisationID, msisdn string) (SandboxRegistration, error) {
	if !validMsisdn(msisdn) {
		return SandboxRegistration{}, Invalid("Msisdn", msisdn, msisdnMessage)
	}
	var out SandboxRegistration
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		out, moved = SandboxRegistration{}, nil
		org, err := sandboxOrganisation(ctx, tx, organisationID)
		if err != nil {
			return err
		}
		m := writeBuffer{now: s.Now()}
		out.Member = SandboxMember{OrganisationID: org.ID, Msisdn: msisdn, RegisteredAt: m.now}
		if out.Created, err = tx.InsertSandboxMember(ctx, out.Member); err != nil || !out.Created {
			if err == nil {
				out.Member, err = tx.SandboxMember(ctx, org.ID, msisdn)
			}
			return err
		}
		legs, err := tx.LockSandboxLegsTo(ctx, org.ID, msisdn)
		if err != nil {
			return err
		}
		out.Settled = PaymentsPendingTo(legs, msisdn)
		if err := s.audit(ctx, tx, ActorOf(ctx), "sandbox.member.registered", org.ID, msisdn,
			map[string]any{"pendingLegsSettled": out.Settled}); err != nil {
			return err
		}
		members := map[string]Member{msisdn: {Msisdn: msisdn, RegisteredAt: m.now}}
		defer func() { moved = m.moved }()
		return s.settleToMembers(ctx, tx, &m, legs, members)
	})
	if err == nil {
		s.report(moved)
	}
	return out, err
}

// PaymentsPendingTo counts the payments of legs with a leg pending to
// msisdn (one whose two legs both go to it counts once): what a
// registration of msisdn settles.
func PaymentsPendingTo(legs []Payment, msisdn string) int { return pendingLegsTo(legs)[msisdn] }

// ExpireSandboxBatch ends the reversal period of an OPEN batch of the
// sandbox now: every leg it holds is settled if its payee is a member of
// the sandbox, else reversed from the holding account to the batch's
// float, with the transfers and events the reversal worker writes
// (ReverseDue). It returns the batch as it is afterwards and how many
// payments changed.
func (s *Service) ExpireSandboxBatch(ctx context.Context, organisationID, batchID string) (Batch, int, error) {
	var b Batch
	var n int
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		n, moved = 0, nil
		if _, err := sandboxOrganisation(ctx, tx, organisationID); err != nil {
			return err
		}
		// Unlocked, as the sweep reads its batches: the lock order takes
		// the payments first and the batch last (docs/ledger.md).
		read, err := ownBatch(ctx, tx, organisationID, batchID, false)
		if err != nil {
			return err
		}
		if read.Status != BatchOpen {
			return Errorf(CodeInvalidState, "cannot expire: batch is %s; only an OPEN batch holds payments", read.Status)
		}
		due, err := tx.LockPendingLegsOf(ctx, read.ID)
		if err != nil {
			return err
		}
		if n = len(due); n > 0 {
			m := writeBuffer{now: s.Now()}
			defer func() { moved = m.moved }()
			if err := s.reverseLegs(ctx, tx, &m, due, map[string]Batch{read.ID: read}); err != nil {
				return err
			}
		}
		if b, err = tx.Batch(ctx, read.ID); err != nil {
			return err
		}
		return s.audit(ctx, tx, ActorOf(ctx), "sandbox.batch.expired", organisationID, b.ID, map[string]any{"paymentsChanged": n})
	})
	if err == nil {
		s.report(moved)
	}
	return b, n, err
}

// SandboxDeposit tops up a payout account of the sandbox (its default one
// when accountID is empty) from the sandbox's own funding account, as the
// operator's deposit does live (DepositBy). currency must be the
// organisation's: a sandbox, like a live organisation, holds one.
func (s *Service) SandboxDeposit(ctx context.Context, organisationID, accountID, amount, currency, reference string) (Transfer, error) {
	var org Organisation
	var accounts []Account
	err := s.Store.Read(ctx, func(tx Tx) error {
		var err error
		if org, err = sandboxOrganisation(ctx, tx, organisationID); err != nil {
			return err
		}
		accounts, err = tx.PayoutAccounts(ctx, organisationID)
		return err
	})
	if err != nil {
		return Transfer{}, err
	}
	var v Validation
	validateDeposit(&v, amount, reference)
	if v.Text(-1, "Currency", currency) && currency != org.Currency {
		v.Add(-1, "Currency", currency, "currency is required: the organisation's, "+org.Currency)
	}
	if err := v.Err(); err != nil {
		return Transfer{}, err
	}
	target, ok := payoutAccount(accounts, strings.TrimSpace(accountID))
	if !ok {
		return Transfer{}, NotFound("account")
	}
	return s.DepositBy(ctx, ActorOf(ctx), target, amount, reference)
}

// payoutAccount is the id of the account of accounts named id, or of the
// default one when id is empty.
func payoutAccount(accounts []Account, id string) (string, bool) {
	for _, a := range accounts {
		if (id == "" && a.IsDefault) || (id != "" && a.ID == id) {
			return a.ID, true
		}
	}
	return "", false
}
