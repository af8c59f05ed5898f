package disburse

import (
	"context"
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

// flush writes everything gathered. The transfers go last: they update
// the balances, and the holding account's balance is one row that every
// registration and reversal of an organisation's payees writes, so it is
// best locked as near the commit as may be (resolve).
func (m *writeBuffer) flush(ctx context.Context, tx Tx) error {
	if len(m.payments) > 0 {
		if err := tx.UpdatePaymentStates(ctx, m.payments); err != nil {
			return err
		}
	}
	if len(m.notifications) > 0 {
		if err := tx.InsertNotifications(ctx, m.notifications); err != nil {
			return err
		}
	}
	if len(m.transfers) == 0 {
		return nil
	}
	return tx.InsertTransfers(ctx, m.transfers)
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
