package disburse

import "time"

// Organisation pays from its payout accounts. Its settings are the operator's
// to change (docs/api.md section 7), never the organisation's through the
// API; its approval threshold its portal users change too.
type Organisation struct {
	ID               string
	Name             string
	Currency         string
	ReferralsEnabled bool
	ReversalPeriod   time.Duration
	HoldingAccountID string
	CreatedAt        time.Time
	// ApprovalThreshold, when set, is the total at or above which a
	// batch's submit waits for a second person's approval (docs/api.md
	// section 4.3); nil: no batch does.
	ApprovalThreshold *Money
	// APIVersion is the version a request without Disburse-Version is
	// answered in (docs/versioning.md).
	APIVersion string
	// Sandbox: the organisation tests its integration; its money stays in
	// a ledger scope of its own (docs/sandbox.md).
	Sandbox bool
}

// NeedsApproval reports whether a submit of a batch that totals s waits
// for an approval: its total, what the submit takes from the float
// (paymentsAmount + referralsAmount), is at or above the threshold.
func (o Organisation) NeedsApproval(s Summary) bool {
	return o.ApprovalThreshold != nil && s.PaymentsAmount+s.ReferralsAmount >= *o.ApprovalThreshold
}

// AccountKind says what an account in the ledger is for (docs/ledger.md).
type AccountKind string

const (
	AccountPayout  AccountKind = "PAYOUT"  // an organisation's float, paid from
	AccountHolding AccountKind = "HOLDING" // an organisation's funds held for non-members
	AccountWallet  AccountKind = "WALLET"  // a member's wallet, one per msisdn and currency
	AccountFunding AccountKind = "FUNDING" // the outside world; deposits come from it
)

// FundingAccountID is the one external account deposits are drawn from. Its
// balance is the only one that goes below zero.
const FundingAccountID = "00000000-0000-7000-8000-000000000000"

// Account is a ledger account. Balance is kept by the store from the transfers.
type Account struct {
	ID             string
	OrganisationID string // empty for wallets and the funding account
	Kind           AccountKind
	Name           string
	Currency       string
	Balance        Money
	IsDefault      bool
	Msisdn         string // wallets only
	CreatedAt      time.Time
	// Scope is the sandbox organisation whose ledger scope the account
	// is in; empty for the live scope (docs/ledger.md "Scopes").
	Scope string
	// HeldBalance is what the holding account holds for this payout account's
	// pending legs (docs/api.md section 5); filled by Accounts only.
	HeldBalance Money
}

// Member is a person registered with the wallet side of the service.
type Member struct {
	Msisdn       string
	Firstname    string
	Lastname     string
	AppInstalled bool
	RegisteredAt time.Time
}

// Summary totals a batch's payments (docs/api.md sections S2.2 and 4.2). Amounts are
// those of the payments themselves; referral legs count only in
// ReferralsAmount and HeldAmount.
type Summary struct {
	PaymentsAmount  Money
	PaymentsCount   int64
	ReferralsAmount Money
	DraftAmount     Money
	DraftCount      int64
	PendingAmount   Money
	PendingCount    int64
	SettledAmount   Money
	SettledCount    int64
	CancelledAmount Money
	CancelledCount  int64
	// HeldAmount is what the holding account holds for this batch: every
	// PENDING leg, referral legs included.
	HeldAmount Money
}

// Batch groups payments that are submitted together.
type Batch struct {
	ID             string
	OrganisationID string
	AccountID      string
	Name           string
	ExternalID     string
	Status         BatchStatus
	Summary        Summary
	CreatedAt      time.Time
	SubmittedAt    time.Time
	ClosedAt       time.Time // when it became CLOSED or CANCELLED
	// ReversalDueAt is when the legs still PENDING are reversed: set at
	// submit, for every leg the submit held, from the organisation's
	// reversal period then.
	ReversalDueAt time.Time
	// ApprovalID is the PENDING approval a DRAFT batch's submit waits
	// for; while it is set the batch takes no change but a cancel
	// (docs/states.md). Empty when it waits for none.
	ApprovalID string
}

// Payment is one instruction to pay an msisdn, with an optional referral leg.
type Payment struct {
	ID             string
	BatchID        string
	OrganisationID string
	Msisdn         string
	Amount         Money
	Firstname      string
	Lastname       string
	ExternalID     string
	Status         PaymentStatus
	IsMember       bool
	CreatedAt      time.Time
	SubmittedAt    time.Time
	SettledAt      time.Time
	ReversalDueAt  time.Time
	CancelledAt    time.Time

	ReferralAmount    Money  // zero: no referral leg
	ReferralMsisdn    string // set when ReferralAmount is
	ReferralStatus    PaymentStatus
	ReferralSettledAt time.Time
}

// HasReferral reports whether the payment has a referral leg.
func (p Payment) HasReferral() bool { return p.ReferralAmount > 0 }

// Leg names one of a payment's two movements of money.
type Leg string

const (
	LegPayment  Leg = "PAYMENT"
	LegReferral Leg = "REFERRAL"
)

// TransferKind says why money moved (docs/ledger.md).
type TransferKind string

const (
	TransferDeposit TransferKind = "DEPOSIT" // funding → payout
	TransferPay     TransferKind = "PAY"     // payout → wallet, at submit
	TransferHold    TransferKind = "HOLD"    // payout → holding, at submit
	TransferSettle  TransferKind = "SETTLE"  // holding → wallet, at registration
	TransferReverse TransferKind = "REVERSE" // holding → payout, after the reversal period
	TransferCancel  TransferKind = "CANCEL"  // holding → payout, when an OPEN batch is cancelled
)

// Transfer is one immutable double-entry movement of a positive amount.
type Transfer struct {
	ID            string
	FromAccountID string
	ToAccountID   string
	Amount        Money
	Kind          TransferKind
	PaymentID     string // empty for deposits
	Leg           Leg    // empty for deposits
	Reference     string
	CreatedAt     time.Time
}

// BalanceChanges are what transfers change in balances, per account id:
// the amounts received less the amounts sent.
type BalanceChanges map[string]Money

// Add adds the transfers' amounts to the changes of their accounts.
func (c BalanceChanges) Add(ts []Transfer) {
	for _, t := range ts {
		c[t.FromAccountID] -= t.Amount
		c[t.ToAccountID] += t.Amount
	}
}

// Channel is how a payee is told.
type Channel string

const (
	ChannelSMS  Channel = "SMS"
	ChannelPush Channel = "PUSH"
)

// Channels lists every channel.
func Channels() []Channel { return []Channel{ChannelSMS, ChannelPush} }

// NotificationStatus is where a notification is in its delivery.
type NotificationStatus string

const (
	NotificationPending NotificationStatus = "PENDING" // waiting for (another) attempt
	NotificationSent    NotificationStatus = "SENT"    // the provider accepted it
	NotificationFailed  NotificationStatus = "FAILED"  // gave up after the last attempt
)

// NotificationStatuses lists every notification status.
func NotificationStatuses() []NotificationStatus {
	return []NotificationStatus{NotificationPending, NotificationSent, NotificationFailed}
}

// Notification is an outbox row, written in the transaction that moved the money.
type Notification struct {
	ID            string
	Channel       Channel
	Recipient     string
	Message       string
	Status        NotificationStatus
	Attempts      int
	NextAttemptAt time.Time
	LeaseUntil    time.Time
	LeaseOwner    string // the process holding the lease, empty when unclaimed
	LastError     string
	CreatedAt     time.Time
	SentAt        time.Time
}

// StatementEntry is one payment or referral leg settled to a member (docs/api.md section S1.9).
type StatementEntry struct {
	PaymentID        string
	Leg              Leg
	OrganisationName string
	Amount           Money
	Currency         string
	SettledAt        time.Time
}
