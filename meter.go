package disburse

// Meter is told what the use cases did, for the operator's metrics
// (docs/operations.md, "Metrics"). A Service whose Meter is nil counts
// nothing. Moved is called once a money transaction has committed, never
// for one that rolled back, with what it moved summed (one call per
// transaction, not per payment). It may not block. The attempts to send
// notifications are counted by their delivery (notifications.Meter).
type Meter interface {
	Moved(moves []Movement)
}

// MoveKind says where a committed transaction moved money to.
type MoveKind string

// The kinds of money movement, by the transfers that make them
// (docs/ledger.md).
const (
	MoveSettled   MoveKind = "settled"   // to a member's wallet: PAY at submit, SETTLE at registration
	MoveHeld      MoveKind = "held"      // to the holding account at submit: HOLD
	MoveReversed  MoveKind = "reversed"  // back to the float after the reversal period: REVERSE
	MoveCancelled MoveKind = "cancelled" // back to the float when a batch is cancelled: CANCEL
)

// MoveKinds lists every MoveKind.
var MoveKinds = []MoveKind{MoveSettled, MoveHeld, MoveReversed, MoveCancelled}

// Movement is what one committed transaction moved of one kind in one
// currency: Amount in minor units (payment and referral legs), and
// Payments, the payments whose payment leg went that way (a DRAFT
// payment cancelled moves no money but is counted).
type Movement struct {
	Kind     MoveKind
	Currency string
	Amount   Money
	Payments int64
}

// moves sums a transaction's Movements as its use case fills a writeBuffer.
type moves []Movement

// kindOf is the MoveKind of a transfer of a payment's leg; a deposit is
// none.
func kindOf(k TransferKind) (MoveKind, bool) {
	switch k {
	case TransferPay, TransferSettle:
		return MoveSettled, true
	case TransferHold:
		return MoveHeld, true
	case TransferReverse:
		return MoveReversed, true
	case TransferCancel:
		return MoveCancelled, true
	}
	return "", false
}

// add counts amount of currency moved as kind, and the payment when leg
// is its payment leg. A transaction has a few kinds and currencies, so
// the search is short.
func (ms *moves) add(kind MoveKind, currency string, amount Money, leg Leg) {
	var payments int64
	if leg == LegPayment {
		payments = 1
	}
	ms.addTotal(kind, currency, amount, payments)
}

// addTotal counts amount of currency moved as kind by legs of which
// payments were payment legs.
func (ms *moves) addTotal(kind MoveKind, currency string, amount Money, payments int64) {
	for i := range *ms {
		if m := &(*ms)[i]; m.Kind == kind && m.Currency == currency {
			m.Amount += amount
			m.Payments += payments
			return
		}
	}
	*ms = append(*ms, Movement{Kind: kind, Currency: currency, Amount: amount, Payments: payments})
}

// Report tells the Meter what a committed transaction moved.
func (s *Service) Report(ms []Movement) {
	if s.Meter != nil && len(ms) > 0 {
		s.Meter.Moved(ms)
	}
}
