package disburse

import (
	"context"
	"errors"
)

// memberCheckSize bounds one transaction of SettleMembersPending, so that a
// batch of a million never settles in one enormous transaction.
const memberCheckSize = 1000

// SettleMembersPending settles, in every batch a submit has queued, each
// leg still PENDING to someone who is now a member: holding → wallet, as
// a registration does (docs/api.md section 6, "Registration").
//
// Why it exists: a submit reads membership a page at a time while its
// transaction is open, and a registration cannot see the submit's legs
// before it commits. On PostgreSQL a payee who registers in between is
// seen by neither. Once the submit has committed, every registration that
// committed before this runs is visible to it, and every later one sees
// the legs itself, so one run after the submit settles them all
// (docs/ledger.md, "Registration during a submit"). The worker runs it
// every interval; it returns how many payments it changed.
func (s *Service) SettleMembersPending(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, queued, err := s.settleSomeMembersPending(context.WithoutCancel(ctx))
		total += n
		if err != nil || !queued {
			return total, err
		}
	}
	return total, nil
}

// settleSomeMembersPending settles up to memberCheckSize payments of one
// queued batch, and takes the batch off the queue once none is left.
// queued is false when no batch was waiting (or free to take).
func (s *Service) settleSomeMembersPending(ctx context.Context) (n int, queued bool, err error) {
	var moved moves
	err = s.Store.Write(ctx, func(tx Tx) error {
		n, queued, moved = 0, false, nil
		batchID, err := tx.ClaimMemberCheck(ctx)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		queued = true
		legs, org, members, err := legsPendingToMembers(ctx, tx, batchID)
		if err != nil {
			return err
		}
		if len(legs) < memberCheckSize {
			if err := tx.DeleteMemberCheck(ctx, batchID); err != nil {
				return err
			}
		}
		if n = len(legs); n == 0 {
			return nil
		}
		m := writeBuffer{now: s.Now()}
		defer func() { moved = m.moved }()
		return s.settleToMembers(ctx, tx, &m, legs, map[string]Organisation{org.ID: org}, members)
	})
	if err == nil {
		s.Report(moved)
	}
	return n, queued, err
}

// settleToMembers settles each leg of legs (locked by the caller) pending
// to one of members, by msisdn: holding → the member's wallet, as a
// registration does.
func (s *Service) settleToMembers(ctx context.Context, tx Tx, m *writeBuffer, legs []Payment, orgs map[string]Organisation, members map[string]Member) error {
	return s.resolve(ctx, tx, m, legs, orgs, func(org Organisation, p *Payment, wallets map[string]string) {
		settleLegs(m, org, p, members, wallets)
	}, func(org Organisation) []string { return memberPayees(legs, members, org.ID) })
}

// memberPayees lists the members among the payees (referral payees too) of
// the organisation's payments: the wallets a settlement may pay into.
func memberPayees(payments []Payment, members map[string]Member, organisationID string) []string {
	var mine []Payment
	for _, p := range payments {
		if p.OrganisationID == organisationID {
			mine = append(mine, p)
		}
	}
	var out []string
	for _, msisdn := range msisdnsOf(mine, true) {
		if _, ok := members[msisdn]; ok {
			out = append(out, msisdn)
		}
	}
	return out
}
