package disburse

import (
	"context"
	"maps"
	"slices"
	"strings"
)

// RegisterMember makes msisdn a member and, in the same transaction, settles
// every leg pending to it in every organisation: holding → wallet. A batch
// left with nothing pending closes (contract section 6). Registering an
// existing member changes nothing and returns it with created false.
func (s *Service) RegisterMember(ctx context.Context, in Member) (Member, bool, error) {
	return s.RegisterMemberBy(ctx, ActorOperatorAPI, in)
}

// RegisterMemberBy is RegisterMember with the actor the audit log names.
func (s *Service) RegisterMemberBy(ctx context.Context, actor Actor, in Member) (Member, bool, error) {
	var v Validation
	if !ValidMsisdn(in.Msisdn) {
		v.Add(-1, "Msisdn", in.Msisdn, msisdnMessage)
	}
	if v.Text(-1, "Firstname", in.Firstname) && len([]rune(in.Firstname)) > 100 {
		v.Add(-1, "Firstname", in.Firstname, "firstname is at most 100 characters")
	}
	if v.Text(-1, "Lastname", in.Lastname) && len([]rune(in.Lastname)) > 100 {
		v.Add(-1, "Lastname", in.Lastname, "lastname is at most 100 characters")
	}
	if err := v.Err(); err != nil {
		return Member{}, false, err
	}
	var member Member
	var created bool
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		member = in
		member.RegisteredAt = now
		var err error
		if created, err = tx.InsertMember(ctx, member); err != nil {
			return err
		}
		if !created {
			member, err = tx.Member(ctx, in.Msisdn)
			return err
		}
		legs, err := tx.LockPendingLegsTo(ctx, member.Msisdn)
		if err != nil {
			return err
		}
		if err := s.audit(ctx, tx, actor, "member.register", "", member.Msisdn, nil, map[string]any{
			"firstname": member.Firstname, "lastname": member.Lastname, "appInstalled": member.AppInstalled, "pendingLegsSettled": len(legs)}); err != nil {
			return err
		}
		m := writeBuffer{now: now}
		members := map[string]Member{member.Msisdn: member}
		return s.resolve(ctx, tx, &m, legs, func(org Organisation, b Batch, p *Payment, wallets map[string]string) {
			settleLegs(&m, org, p, members, wallets)
		}, func(org Organisation) []string { return []string{member.Msisdn} })
	})
	return member, created, err
}

// settleLegs moves each of p's legs pending to one of members from the
// holding account to that member's wallet (in wallets, by msisdn).
func settleLegs(m *writeBuffer, org Organisation, p *Payment, members map[string]Member, wallets map[string]string) {
	for _, l := range legsOf(p) {
		member, ok := members[l.msisdn]
		if !ok || *l.status != PaymentPending {
			continue
		}
		m.transfer(org.HoldingAccountID, wallets[l.msisdn], l.amount, TransferSettle, *p, l.which)
		*l.status, *l.settledAt = PaymentSettled, m.now
		if member.AppInstalled {
			m.notify(ChannelPush, member.Msisdn, pushMessage(org, l.amount))
		}
	}
}

// resolve applies change to each payment (its rows locked by the caller),
// writes it all with the legs' events, and then, last, adds the payments'
// changes to their batches' summaries in one statement (which locks the
// batches in id order, so two resolvers never wait on each other) and
// closes each batch that is OPEN with nothing left pending.
//
// The batch row and the holding account's balance are what every
// registration of a batch's payees writes, so each is locked from its
// write to the commit: writing them last, in two statements (the balances,
// then the summaries), keeps the lock to those and the commit, and
// concurrent registrations queue for less (docs/benchmarks.md, "Issue 16:
// registration"). It is also the one lock order of every
// money use case (docs/ledger.md, "Lock order"): payments, accounts, then
// the batch, so a cancel, a sweep and a registration never wait on each
// other in a circle, and none resolves a leg another has already locked.
func (s *Service) resolve(ctx context.Context, tx Tx, m *writeBuffer, payments []Payment,
	change func(org Organisation, b Batch, p *Payment, wallets map[string]string),
	walletsFor func(org Organisation) []string) error {
	byBatch := make(map[string][]int)
	var ids []string
	for i, p := range payments {
		if _, ok := byBatch[p.BatchID]; !ok {
			ids = append(ids, p.BatchID)
		}
		byBatch[p.BatchID] = append(byBatch[p.BatchID], i)
	}
	slices.SortFunc(ids, strings.Compare)
	orgs := make(map[string]Organisation)
	changes := make([]Summary, len(ids))
	// A wallet is a member's in one currency, whichever organisation pays
	// it: each is ensured once, however many batches pay into it.
	wallets := make(map[string]map[string]string) // currency → msisdn → account id
	var events []WebhookEvent
	for k, id := range ids {
		// Unlocked: change reads only what never changes (the payout account).
		b, err := tx.Batch(ctx, id)
		if err != nil {
			return err
		}
		org, ok := orgs[b.OrganisationID]
		if !ok {
			if org, err = tx.Organisation(ctx, b.OrganisationID); err != nil {
				return err
			}
			orgs[org.ID] = org
		}
		if wallets[org.Currency] == nil {
			wallets[org.Currency] = make(map[string]string)
		}
		have := wallets[org.Currency]
		missing := slices.DeleteFunc(walletsFor(org), func(msisdn string) bool { _, ok := have[msisdn]; return ok })
		if len(missing) > 0 {
			ensured, err := tx.EnsureWallets(ctx, org.Currency, missing, m.now)
			if err != nil {
				return err
			}
			maps.Copy(have, ensured)
		}
		var sum Summary
		for _, i := range byBatch[id] {
			old := payments[i]
			change(org, b, &payments[i], have)
			m.record(&sum, old, payments[i])
			events = append(events, legEvents(org.ID, old, payments[i], m.now)...)
		}
		changes[k] = sum
	}
	if err := insertEvents(ctx, tx, events...); err != nil {
		return err
	}
	if err := m.flush(ctx, tx); err != nil {
		return err
	}
	batches, err := tx.AddToSummaries(ctx, ids, changes)
	if err != nil {
		return err
	}
	var closed []WebhookEvent
	for _, b := range batches {
		if b.Status == BatchOpen && b.Summary.nothingPending() {
			b.Status, b.ClosedAt = BatchClosed, m.now
			if err := tx.UpdateBatch(ctx, b); err != nil {
				return err
			}
			closed = append(closed, batchEvent(EventBatchClosed, b, m.now))
		}
	}
	return insertEvents(ctx, tx, closed...)
}
