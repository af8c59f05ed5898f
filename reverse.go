package disburse

import (
	"context"
	"fmt"
)

// reverseBatchSize bounds one reversal transaction, so a sweep of a million
// due legs never holds one enormous transaction.
const reverseBatchSize = 1000

// ReverseDue reverses every leg whose reversal date has passed: its funds go
// from the holding account back to the batch's float and it becomes
// CANCELLED (docs/api.md section S1.7). It works in transactions of up to reverseBatchSize
// payments until none is due, and returns how many payments it changed.
// Rows another process holds are skipped, so replicas can sweep at once.
// When ctx ends it finishes the transaction it is in and stops.
func (s *Service) ReverseDue(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := s.reverseSome(context.WithoutCancel(ctx))
		total += n
		if err != nil || n < reverseBatchSize {
			return total, err
		}
	}
	return total, nil
}

func (s *Service) reverseSome(ctx context.Context) (int, error) {
	n := 0
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		m := writeBuffer{now: s.Now()}
		defer func() { moved = m.moved }() // this run's, should the store run it again
		due, err := tx.ClaimDueLegs(ctx, m.now, reverseBatchSize)
		if err != nil {
			return err
		}
		n = len(due)
		if n == 0 {
			return nil
		}
		// Unlocked: a leg goes back to its batch's payout account, which
		// never changes.
		ids := batchesOf(due)
		batches, err := tx.BatchesByID(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, ok := batches[id]; !ok { // never a leg back to no account
				return fmt.Errorf("reverse: batch %s: %w", id, ErrNotFound)
			}
		}
		return s.reverseLegs(ctx, tx, &m, due, batches)
	})
	if err == nil {
		s.Report(moved)
	}
	return n, err
}

// reverseLegs returns each pending leg of due from the holding account to
// its batch's float (REVERSE), but for a leg to someone who is a member,
// which is never reversed: it settles. (Its payee registered while its
// batch was being submitted, and SettleMembersPending has not come round
// to it yet.) A member is a live one for a live organisation's leg, one of
// the sandbox for a sandbox's.
func (s *Service) reverseLegs(ctx context.Context, tx Tx, m *writeBuffer, due []Payment, batches map[string]Batch) error {
	orgs, err := organisationsOf(ctx, tx, due)
	if err != nil {
		return err
	}
	members, err := membersByOrganisation(ctx, tx, orgs, due)
	if err != nil {
		return err
	}
	return s.resolve(ctx, tx, m, due, orgs, func(org Organisation, p *Payment, wallets map[string]string) {
		settleLegs(m, org, p, members[org.ID], wallets)
		returnLegs(m, org, batches[p.BatchID], p, PaymentPending, TransferReverse)
	}, func(org Organisation) []string { return memberPayees(due, members[org.ID], org.ID) })
}

// batchesOf lists the distinct batches of payments.
func batchesOf(payments []Payment) []string {
	d := newDistinct(len(payments))
	for _, p := range payments {
		d.add(p.BatchID)
	}
	return d.list
}
