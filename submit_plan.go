package disburse

import (
	"crypto/rand"
	"time"

	"github.com/google/uuid"
)

// SubmitPlan is what Tx.SubmitPayments needs to pay a DRAFT batch's
// payments with set-based statements, from the rows already stored
// (docs/benchmarks.md, "The submit"): every value a leg's transfer,
// state and notification are made of is in the payment's row, the
// members, the wallets or this plan.
type SubmitPlan struct {
	BatchID, OrganisationID string
	// Sandbox: the payees are the sandbox's own members, paid into its
	// own wallets, and nobody is told (docs/sandbox.md).
	Sandbox  bool
	Currency string
	// PayoutAccountID pays every leg: to a member's wallet, or to
	// HoldingAccountID until the payee registers.
	PayoutAccountID, HoldingAccountID string
	// Now is the submit's time; Due is when the legs held now are reversed.
	Now, Due time.Time
	// SMSHead and SMSTail surround the amount in a held leg's SMS,
	// PushHead and PushTail in a member's push (messages.go).
	SMSHead, SMSTail, PushHead, PushTail string
}

// LegTotal sums the legs of a submit of one kind (PAY or HOLD) and leg
// that went to one account: what the balances, the batch's summary and
// the meter need, without a row per leg.
type LegTotal struct {
	To     string // the account the legs went to
	Kind   TransferKind
	Leg    Leg
	Count  int64
	Amount Money
}

// IDPrefix returns the first 24 characters of a new lower-case UUIDv7
// (its time, version, variant and 26 random bits, up to the last dash),
// leaving its last 12 hex digits to a counter that a set-based statement
// fills, one per row (Tx.SubmitPayments: the payment's seq and its leg).
// Ids so made keep NewID's shape and order: time first, then the counter.
func IDPrefix() string {
	var u uuid.UUID
	ms := time.Now().UnixMilli()
	for i := 5; i >= 0; i-- {
		u[i] = byte(ms)
		ms >>= 8
	}
	_, _ = rand.Read(u[6:10]) // crypto/rand.Read never fails (Go 1.24)
	u[6] = 0x70 | u[6]&0x0f   // version 7
	u[8] = 0x80 | u[8]&0x3f   // variant 10
	return u.String()[:24]
}
