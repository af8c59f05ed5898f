package disburse

import (
	"context"
	"slices"
	"time"
)

// writeBuffer gathers what one money transaction writes: transfers, payment
// state changes, notifications and batch summaries. Use cases fill it leg by
// leg in memory, then flush writes each kind in bulk (one statement per
// kind, not one per payment), all in the caller's transaction.
type writeBuffer struct {
	now           time.Time
	transfers     []Transfer
	payments      []Payment
	notifications []Notification
	// balances gathers what a submit's transfers change in balances, for
	// it to apply once (applyBalances) rather than on each of its pages.
	balances BalanceChanges
	// moved sums what the transfers move, for the Meter once the
	// transaction commits (meter.go); emptying the buffer keeps it.
	moved moves
}

// transfer moves amount of org's currency for p's leg.
func (m *writeBuffer) transfer(org Organisation, from, to string, amount Money, kind TransferKind, p Payment, leg Leg) {
	m.transfers = append(m.transfers, Transfer{
		ID: NewID(), FromAccountID: from, ToAccountID: to, Amount: amount,
		Kind: kind, PaymentID: p.ID, Leg: leg, CreatedAt: m.now,
	})
	if mk, ok := kindOf(kind); ok && !org.Sandbox { // a sandbox's money is no live figure
		m.moved.add(mk, org.Currency, amount, leg)
	}
}

func (m *writeBuffer) notify(org Organisation, ch Channel, recipient, message string) {
	if org.Sandbox { // a sandbox's payees are test numbers: nobody is told (docs/sandbox.md)
		return
	}
	m.notifications = append(m.notifications, Notification{
		ID: NewID(), Channel: ch, Recipient: recipient, Message: message,
		Status: NotificationPending, NextAttemptAt: m.now, CreatedAt: m.now,
	})
}

// record keeps a payment's change: in sum, its batch's summary or the
// change to it, and for the bulk state update. An unchanged payment is left
// out.
func (m *writeBuffer) record(sum *Summary, old, p Payment) {
	if old == p {
		return
	}
	sum.Change(old, p)
	m.payments = append(m.payments, p)
}

// reserve sizes the buffer's transfers and notifications for payments
// in one allocation each: grown by append, a large batch allocated several
// times its final size, which the profile of a submit showed. It returns
// how many legs, and so transfers, the payments have.
func (m *writeBuffer) reserve(payments []Payment, members map[string]Member) int {
	legs, notes := 0, 0
	for i := range payments {
		for _, l := range legsOf(&payments[i]) {
			legs++
			if member, ok := members[l.msisdn]; !ok || member.AppInstalled {
				notes++
			}
		}
	}
	m.transfers = slices.Grow(m.transfers, legs)
	m.notifications = slices.Grow(m.notifications, notes)
	return legs
}

// empty forgets what was gathered and keeps the memory, for the next page.
func (m *writeBuffer) empty() {
	m.transfers, m.payments, m.notifications = m.transfers[:0], nil, m.notifications[:0]
}

// flush writes everything gathered. The transfers go last: they update
// the balances, and the holding account's balance is one row that every
// registration and reversal of an organisation's payees writes, so it is
// best locked as near the commit as may be (resolve).
func (m *writeBuffer) flush(ctx context.Context, tx Tx) error {
	if err := m.flushStates(ctx, tx); err != nil {
		return err
	}
	if len(m.transfers) == 0 {
		return nil
	}
	return tx.InsertTransfers(ctx, m.transfers)
}

// flushStates writes the payments' states and the notifications: all of
// flush but the transfers, which a submit writes as it makes them
// (payPages).
func (m *writeBuffer) flushStates(ctx context.Context, tx Tx) error {
	if len(m.payments) > 0 {
		if err := tx.UpdatePaymentStates(ctx, m.payments); err != nil {
			return err
		}
	}
	if len(m.notifications) > 0 {
		return tx.InsertNotifications(ctx, m.notifications)
	}
	return nil
}

// applyBalances applies what every flush's transfers changed in balances.
func (m *writeBuffer) applyBalances(ctx context.Context, tx Tx) error {
	return tx.ApplyBalances(ctx, m.balances)
}

// legs of a payment: its msisdn, amount and status, for each leg it has.
type leg struct {
	which  Leg
	msisdn string
	amount Money
	status *PaymentStatus
	// settledAt is where the leg's settlement time is recorded.
	settledAt *time.Time
}

func legsOf(p *Payment) []leg {
	out := []leg{{LegPayment, p.Msisdn, p.Amount, &p.Status, &p.SettledAt}}
	if p.HasReferral() {
		out = append(out, leg{LegReferral, p.ReferralMsisdn, p.ReferralAmount, &p.ReferralStatus, &p.ReferralSettledAt})
	}
	return out
}
