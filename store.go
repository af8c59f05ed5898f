package disburse

import (
	"context"
	"time"

	"github.com/disburse/disburse/internal/txvalue"
)

// Store is the persistence port. It knows tables and transactions, never the
// business rules: those live in the use cases (Service), written once for
// every store. sqlite/ and postgres/ implement it; storetest/ is the suite
// both must pass.
type Store interface {
	// Write runs fn in one write transaction and commits when fn returns nil.
	// A store retries fn (bounded) on serialization failures and deadlocks,
	// so fn must have no effects outside tx.
	Write(ctx context.Context, fn func(Tx) error) error
	// Read runs fn in a read-only transaction: one consistent snapshot.
	Read(ctx context.Context, fn func(Tx) error) error
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// PayoutAccounts is Tx.PayoutAccounts as one statement outside any
	// transaction: one statement reads one snapshot by itself, so an
	// authenticated GET /accounts costs one round trip
	// (docs/benchmarks.md, "Small requests").
	PayoutAccounts(ctx context.Context, organisationID string) ([]Account, error)
	// SchemaCurrent returns nil when every migration this build embeds is
	// applied (a newer release's may be too), else an error naming the
	// first one missing.
	SchemaCurrent(ctx context.Context) error
	// HasOneWriter reports whether the store runs one write transaction
	// at a time (SQLite's one writer): a write there must not wait for
	// anything but the database, since every other write waits for it.
	HasOneWriter() bool
	// Close releases the store's connections.
	Close() error
}

// Tx is what a transaction can do. Lookups by id return ErrNotFound for a
// missing row. Methods named Lock… (and ClaimDueLegs) take a row lock for
// the rest of the transaction where the engine has row locks (PostgreSQL:
// FOR NO KEY UPDATE). The use cases take them in one order (docs/ledger.md,
// "Lock order"): an OPEN batch's payments, then accounts, then the batch;
// a DRAFT batch before anything else of it.
type Tx interface {
	IdempotencyMarks // idempotency_marks.go
	SandboxTx        // sandbox_store.go

	// Together runs fn with the writes whose only answer is their count
	// held back, and sent with the next statement whose rows fn reads, or
	// at fn's end: in one round trip on PostgreSQL (docs/benchmarks.md,
	// "Registration"). They run in the order fn issues them; a held
	// write's failure comes back from a later call, or from Together.
	Together(ctx context.Context, fn func() error) error

	// InsertAudit appends to the audit log. Nothing updates or deletes it.
	InsertAudit(ctx context.Context, es ...AuditEntry) error
	InsertOrganisation(ctx context.Context, o Organisation) error
	Organisation(ctx context.Context, id string) (Organisation, error)
	// OrganisationsByID returns those of the organisations ids that exist, by id.
	OrganisationsByID(ctx context.Context, ids []string) (map[string]Organisation, error)
	// LockOrganisation serialises the adds of an organisation's payments
	// with external ids across its batches (AddPayments).
	LockOrganisation(ctx context.Context, id string) (Organisation, error)
	UpdateOrganisation(ctx context.Context, o Organisation) error
	// OrganisationByName returns the oldest organisation named name.
	OrganisationByName(ctx context.Context, name string) (Organisation, error)

	InsertAccount(ctx context.Context, a Account) error
	Account(ctx context.Context, id string) (Account, error)
	LockAccount(ctx context.Context, id string) (Account, error)
	// PayoutAccounts lists an organisation's payout accounts, oldest first,
	// with HeldBalance filled from its batches.
	PayoutAccounts(ctx context.Context, organisationID string) ([]Account, error)
	// PayoutAccountID returns accountID when it is one of the
	// organisation's payout accounts, or with accountID empty the
	// organisation's default one; else ErrNotFound. It reads the account's
	// id and nothing else, so that its cost does not grow with the
	// account's batches as PayoutAccounts' held amounts do (CreateBatch).
	PayoutAccountID(ctx context.Context, organisationID, accountID string) (string, error)
	// EnsureWallets returns the wallet account id of each msisdn in currency,
	// creating the wallets that do not exist yet.
	EnsureWallets(ctx context.Context, currency string, msisdns []string, now time.Time) (map[string]string, error)
	// Wallets lists the wallets of one msisdn.
	Wallets(ctx context.Context, msisdn string) ([]Account, error)

	// InsertTransfers writes the transfers and applies them to the stored
	// balances of their accounts, one aggregated update per account. It fails
	// if a balance other than the funding account's would go below zero.
	InsertTransfers(ctx context.Context, ts []Transfer) error
	// InsertTransferRows writes the transfers and leaves the balances as
	// they are: the caller adds the transfers to BalanceChanges and passes
	// them to ApplyBalances before the transaction ends. A submit writes
	// its transfers a page at a time and the balances once: on PostgreSQL
	// an account row updated on every page leaves one row version per page
	// that every later read of it walks (docs/benchmarks.md, "The submit").
	// The caller may fill ts while it runs, as InsertPaymentsAsReady's
	// does: it reads ts[i] only after ready has returned more than i.
	InsertTransferRows(ctx context.Context, ts []Transfer, ready func() (int, error)) error
	// ApplyBalances adds the changes to the stored balances, one update per
	// account, as InsertTransfers does for its own transfers.
	ApplyBalances(ctx context.Context, changes BalanceChanges) error
	// LedgerProblems audits the ledger and returns one line per broken
	// invariant (docs/ledger.md lists them); none means the ledger is sound.
	LedgerProblems(ctx context.Context) ([]string, error)
	// StatementEntries lists the transfers into the msisdn's wallets, one per
	// settled payment or referral leg, oldest first.
	StatementEntries(ctx context.Context, msisdn string) ([]StatementEntry, error)

	// InsertMembers adds members (each msisdn once) and returns the
	// msisdns it added; one that is a member already is left unchanged.
	InsertMembers(ctx context.Context, ms []Member) (map[string]bool, error)
	// InsertMembersLockingLegs is InsertMembers, then the payments with a
	// PENDING leg (payment or referral) to any of ms's msisdns, added or
	// not, locked, in every organisation, each once, in the order they
	// were added, and those payments' organisations: a registration's
	// first reads, none needing another's answer.
	InsertMembersLockingLegs(ctx context.Context, ms []Member) (NewMembers, error)
	// Members returns the members among msisdns, keyed by msisdn.
	Members(ctx context.Context, msisdns []string) (map[string]Member, error)

	InsertBatch(ctx context.Context, b Batch) error
	Batch(ctx context.Context, id string) (Batch, error)
	// BatchesByID returns those of the batches ids that exist, by id.
	BatchesByID(ctx context.Context, ids []string) (map[string]Batch, error)
	LockBatch(ctx context.Context, id string) (Batch, error)
	// UpdateBatch writes every mutable field: name, external id, status,
	// summary and timestamps.
	UpdateBatch(ctx context.Context, b Batch) error
	// AddToSummaries adds each change to its batch's stored summary (the
	// batch ids in order, locking each) and returns the batches as they
	// then are, in the same order.
	AddToSummaries(ctx context.Context, ids []string, changes []Summary) ([]Batch, error)
	// Batches lists an organisation's batches newest first, ties by id.
	Batches(ctx context.Context, organisationID string, f BatchFilter) ([]Batch, error)

	// InsertPayments adds payments in bulk; their order is kept as the order
	// of addition that Payments lists them in. An external id that another
	// non-deleted payment of the organisation holds, or one of ps twice, is
	// ErrDuplicate, and nothing is inserted.
	InsertPayments(ctx context.Context, ps []Payment) error
	// InsertPaymentsAsReady is InsertPayments of payments that another
	// goroutine fills in order while the insert runs: it reads ps[i] only
	// after ready has returned more than i. ready blocks until more
	// payments are filled and returns how many are (len(ps) once all
	// are), or an error, which ends the insert with it and inserts
	// nothing.
	InsertPaymentsAsReady(ctx context.Context, ps []Payment, ready func() (int, error)) error
	Payment(ctx context.Context, id string) (Payment, error)
	// PaymentsByID returns those of the payments ids that exist, by id.
	PaymentsByID(ctx context.Context, ids []string) (map[string]Payment, error)
	// Payments lists a batch's payments in the order they were added.
	Payments(ctx context.Context, batchID string, f PaymentFilter) ([]Payment, error)
	// PaymentPages calls fn with the batch's payments of status (every
	// status when empty) in the order they were added, size at a time, as
	// they were when the call began: fn may change its page's payments,
	// but not keep the page, whose memory the next page reuses. However
	// many the batch holds, memory and each page's cost follow size.
	PaymentPages(ctx context.Context, batchID string, status PaymentStatus, size int, fn func([]Payment) error) error
	// PaymentsAfter returns up to n (positive) of the batch's payments,
	// every status, in the order they were added, starting after the
	// payment after (empty: from the first). A page costs what the first
	// does however far into the batch it starts, so that a reader may take
	// each page in a transaction of its own (export.Payments).
	PaymentsAfter(ctx context.Context, batchID, after string, n int) ([]Payment, error)
	// ExternalIDsInUse returns which of ids belong to the organisation's
	// non-deleted payments outside the batch exceptBatchID (empty: none excepted).
	ExternalIDsInUse(ctx context.Context, organisationID string, ids []string, exceptBatchID string) ([]string, error)
	// UpdatePaymentStates writes, in bulk, the state fields of each payment
	// by id: Status, IsMember, SubmittedAt, SettledAt, ReversalDueAt,
	// CancelledAt, ReferralStatus and ReferralSettledAt.
	UpdatePaymentStates(ctx context.Context, ps []Payment) error
	// DeleteDraftPayments marks every DRAFT payment of the batch DELETED,
	// with its referral leg, and frees its external id.
	DeleteDraftPayments(ctx context.Context, batchID string) error
	// DeleteDraftPayment does the same to one payment; ErrNotFound if it
	// is not a DRAFT payment.
	DeleteDraftPayment(ctx context.Context, id string) error
	// LockPendingLegsOf returns, locked, the batch's payments with a
	// PENDING leg, in the order they were added.
	LockPendingLegsOf(ctx context.Context, batchID string) ([]Payment, error)
	// LockLegsPendingToMembers returns, locked, up to limit of the batch's
	// payments with a PENDING leg to a member, in the order they were added.
	LockLegsPendingToMembers(ctx context.Context, batchID string, limit int) ([]Payment, error)
	// InsertMemberCheck queues the batch for a look at whether any of its
	// pending payees has become a member (Service.SettleMembersPending).
	InsertMemberCheck(ctx context.Context, batchID string, at time.Time) error
	// ClaimMemberCheck returns, locked, a queued batch that no other
	// transaction holds, or ErrNotFound.
	ClaimMemberCheck(ctx context.Context) (string, error)
	// DeleteMemberCheck takes the batch off the queue.
	DeleteMemberCheck(ctx context.Context, batchID string) error
	// ClaimDueLegs returns, locked, up to limit payments with a PENDING leg
	// whose ReversalDueAt is not after now, of OPEN batches whose
	// ReversalDueAt is not after now either (or which have none: submitted
	// before batches had one): batch by batch in the order of those dates,
	// each batch's in the order they were added. Rows locked by another
	// transaction are skipped (PostgreSQL: SKIP LOCKED).
	ClaimDueLegs(ctx context.Context, now time.Time, limit int) ([]Payment, error)

	// InsertApproval writes a new approval (approval.go). A second
	// PENDING approval of one batch is ErrDuplicate.
	InsertApproval(ctx context.Context, a Approval) error
	Approval(ctx context.Context, id string) (Approval, error)
	LockApproval(ctx context.Context, id string) (Approval, error)
	// UpdateApproval writes an approval's decision: its status, decider,
	// time and comment.
	UpdateApproval(ctx context.Context, a Approval) error
	// Approvals lists an organisation's approvals newest first (by the
	// time they were requested, ties by id), narrowed and paged by f.
	Approvals(ctx context.Context, organisationID string, f ApprovalFilter) ([]Approval, error)

	// InsertWebhookEvents writes one PENDING delivery, due at the event's
	// time, per event and enabled endpoint of its organisation that wants
	// it, in bulk, in the transaction of the change that caused the events
	// (webhook_events.go). It returns how many deliveries it wrote.
	InsertWebhookEvents(ctx context.Context, events []WebhookEvent) (int, error)

	// InsertNotifications writes the outbox rows of the payees a money
	// transaction told; package notifications delivers them through its
	// own port.
	InsertNotifications(ctx context.Context, ns []Notification) error
	// Notifications lists notifications oldest first, only recipient's when it is not empty.
	Notifications(ctx context.Context, recipient string) ([]Notification, error)
}

// NewMembers is what Tx.InsertMembersLockingLegs wrote and found: the
// msisdns it made members, the payments with a leg pending to any of the
// msisdns, locked, and their organisations by id.
type NewMembers struct {
	Inserted      map[string]bool
	Legs          []Payment
	Organisations map[string]Organisation
}

// BatchFilter narrows GET /batches. Take is 1..1000 once validated.
type BatchFilter struct {
	Status     BatchStatus
	ExternalID string
	Skip, Take int
	After      string // when not empty: the batches after this one, in the list's order
}

// PaymentFilter narrows the payments of a batch. Take 0 means all of them.
type PaymentFilter struct {
	Status     PaymentStatus
	Skip, Take int
	After      string // when not empty: the payments after this one, in the list's order
}

// read runs fn in one read transaction of s and returns its value.
func read[T any](ctx context.Context, s Store, fn func(Tx) (T, error)) (T, error) {
	return txvalue.Read(ctx, s.Read, fn)
}
