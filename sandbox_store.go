package disburse

import (
	"context"
	"time"
)

// AccountSandboxWallet is a payee's wallet in one sandbox organisation
// (docs/sandbox.md): what a sandbox pays its registered payees goes
// there, never to a live wallet.
const AccountSandboxWallet AccountKind = "SANDBOX_WALLET"

// SandboxMember is a payee registered in one sandbox organisation through
// its own API (POST /sandbox/members). It is a member of that sandbox only.
type SandboxMember struct {
	OrganisationID string
	Msisdn         string
	RegisteredAt   time.Time
}

// SandboxTx is what a transaction does for sandbox organisations
// (migration 00023): their members and wallets, kept apart from the live
// ones, which the live use cases read by their own methods, unchanged.
type SandboxTx interface {
	// InsertSandboxMember makes msisdn a member of the sandbox
	// organisationID and reports whether it was not one already.
	InsertSandboxMember(ctx context.Context, m SandboxMember) (bool, error)
	// SandboxMember returns a member of the sandbox, or ErrNotFound.
	SandboxMember(ctx context.Context, organisationID, msisdn string) (SandboxMember, error)
	// SandboxMembers returns the members of the sandbox among msisdns, by
	// msisdn, as Members does for the live ones.
	SandboxMembers(ctx context.Context, organisationID string, msisdns []string) (map[string]Member, error)
	// EnsureSandboxWallets returns the sandbox's wallet account id of each
	// msisdn, creating those it lacks, as EnsureWallets does live.
	EnsureSandboxWallets(ctx context.Context, organisationID, currency string, msisdns []string, now time.Time) (map[string]string, error)
	// SandboxFundingAccountID is the id of the sandbox's own funding
	// account, its deposits' source.
	SandboxFundingAccountID(ctx context.Context, organisationID string) (string, error)
	// LockSandboxLegsTo returns, locked, the organisation's payments with a
	// PENDING leg to msisdn, in the order they were added.
	LockSandboxLegsTo(ctx context.Context, organisationID, msisdn string) ([]Payment, error)
	// LockLegsPendingToSandboxMembers is LockLegsPendingToMembers for a
	// batch of a sandbox: its legs pending to the sandbox's members.
	LockLegsPendingToSandboxMembers(ctx context.Context, batchID string, limit int) ([]Payment, error)
}

// SandboxRegistration is the answer of a sandbox's registration (package
// sandbox): the member, whether this call made it one, and how many
// payments with legs pending to it settled.
type SandboxRegistration struct {
	Member  SandboxMember
	Created bool
	Settled int
}

// PaymentsPendingTo counts the payments of legs with a leg pending to
// msisdn (one whose two legs both go to it counts once): what a
// registration of msisdn settles.
func PaymentsPendingTo(legs []Payment, msisdn string) int { return pendingLegsTo(legs)[msisdn] }
