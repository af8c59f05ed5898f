package disburse

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// A sandbox organisation (docs/sandbox.md) runs the same use cases as a
// live one, on money of its own ledger scope (docs/ledger.md "Scopes"):
// its payees are members of it alone, paid into its own wallets, and its
// float is topped up from its own funding account. The use cases ask the
// functions below which members and wallets an organisation pays; a live
// organisation's are read by the live statements, unchanged.

// ScopeOf is the ledger scope of org's accounts: the organisation itself
// for a sandbox, empty (live) for the rest.
func ScopeOf(org Organisation) string {
	if org.Sandbox {
		return org.ID
	}
	return ""
}

// membersIn returns the members among msisdns that org pays as members:
// the live members for a live organisation, its own for a sandbox.
func membersIn(ctx context.Context, tx Tx, org Organisation, msisdns []string) (map[string]Member, error) {
	if org.Sandbox {
		return tx.SandboxMembers(ctx, org.ID, msisdns)
	}
	return tx.Members(ctx, msisdns)
}

// walletsIn returns, by msisdn, the wallets org pays its members into,
// creating those they lack: a member's live wallet in org's currency, or
// the sandbox's own wallet of the payee.
func walletsIn(ctx context.Context, tx Tx, org Organisation, msisdns []string, now time.Time) (map[string]string, error) {
	if org.Sandbox {
		return tx.EnsureSandboxWallets(ctx, org.ID, org.Currency, msisdns, now)
	}
	return tx.EnsureWallets(ctx, org.Currency, msisdns, now)
}

// walletKey is the key of org's wallets in ensureWallets' answer: live
// wallets are a member's in a currency, whichever organisation pays them;
// a sandbox's are its own.
func walletKey(org Organisation) string {
	if org.Sandbox {
		return "sandbox:" + org.ID
	}
	return org.Currency
}

// membersByOrganisation returns, for each of orgs, its members among the
// payees of its legs: one read of the live members for every live
// organisation together, and one per sandbox.
func membersByOrganisation(ctx context.Context, tx Tx, orgs map[string]Organisation, legs []Payment) (map[string]map[string]Member, error) {
	byOrg := make(map[string][]Payment)
	var live []Payment
	for _, p := range legs {
		if orgs[p.OrganisationID].Sandbox {
			byOrg[p.OrganisationID] = append(byOrg[p.OrganisationID], p)
		} else {
			live = append(live, p)
		}
	}
	out := make(map[string]map[string]Member, len(orgs))
	liveMembers := map[string]Member{}
	if len(live) > 0 {
		var err error
		if liveMembers, err = tx.Members(ctx, msisdnsOf(live, true)); err != nil {
			return nil, err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(orgs)) {
		org := orgs[id]
		if !org.Sandbox {
			out[id] = liveMembers
			continue
		}
		members, err := tx.SandboxMembers(ctx, id, msisdnsOf(byOrg[id], true))
		if err != nil {
			return nil, err
		}
		out[id] = members
	}
	return out, nil
}

// liveOf keeps, of legs a live registration locked, those of live
// organisations (a live member is no member of any sandbox). orgs, which
// the settlement pays with, must hold every leg's organisation.
func liveOf(legs []Payment, orgs map[string]Organisation) ([]Payment, error) {
	for _, p := range legs {
		if _, ok := orgs[p.OrganisationID]; !ok {
			return nil, fmt.Errorf("register: organisation %s: %w", p.OrganisationID, ErrNotFound)
		}
	}
	return slices.DeleteFunc(legs, func(p Payment) bool { return orgs[p.OrganisationID].Sandbox }), nil
}

// fundingAccountOf is the funding account deposits into a are drawn from:
// its sandbox's own, or the live one.
func fundingAccountOf(ctx context.Context, tx Tx, a Account) (string, error) {
	if a.Scope == "" {
		return FundingAccountID, nil
	}
	return tx.SandboxFundingAccountID(ctx, a.Scope)
}

// legsPendingToMembers locks up to memberCheckSize of a queued batch's
// legs pending to members (SettleMembersPending), and reads those
// members: the live ones, or the sandbox's for a batch of a sandbox.
func legsPendingToMembers(ctx context.Context, tx Tx, batchID string) ([]Payment, Organisation, map[string]Member, error) {
	b, err := tx.Batch(ctx, batchID) // unlocked: the lock order takes the payments first
	if errors.Is(err, ErrNotFound) {
		return nil, Organisation{}, nil, nil // nothing of it to settle: the check is done
	}
	if err != nil {
		return nil, Organisation{}, nil, err
	}
	org, err := tx.Organisation(ctx, b.OrganisationID)
	if err != nil {
		return nil, Organisation{}, nil, err
	}
	lock := tx.LockLegsPendingToMembers
	if org.Sandbox {
		lock = tx.LockLegsPendingToSandboxMembers
	}
	legs, err := lock(ctx, batchID, memberCheckSize)
	if err != nil || len(legs) == 0 {
		return legs, org, nil, err
	}
	members, err := membersIn(ctx, tx, org, msisdnsOf(legs, true))
	return legs, org, members, err
}

// SettleTo settles, in tx, each leg of legs (org's, locked by the caller)
// pending to one of members, at now, as a registration does: what a
// sandbox's registration runs (package sandbox). It returns the money
// moved, for Report once tx commits.
func (s *Service) SettleTo(ctx context.Context, tx Tx, now time.Time, org Organisation, legs []Payment, members map[string]Member) ([]Movement, error) {
	m := writeBuffer{now: now}
	err := s.settleToMembers(ctx, tx, &m, legs, map[string]Organisation{org.ID: org}, members)
	return m.moved, err
}

// ExpireLegs ends now the reversal period of due, the pending legs of b
// (locked by the caller), as ReverseDue does when it has passed: what a
// sandbox's expire runs (package sandbox). It returns the money moved,
// for Report once tx commits.
func (s *Service) ExpireLegs(ctx context.Context, tx Tx, due []Payment, b Batch) ([]Movement, error) {
	m := writeBuffer{now: s.Now()}
	err := s.reverseLegs(ctx, tx, &m, due, map[string]Batch{b.ID: b})
	return m.moved, err
}
