package storetest

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

func testOrganisation(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	got := get(t, s, func(tx disburse.Tx) (disburse.Organisation, error) { return tx.Organisation(ctx, w.org.ID) })
	same(t, "inserted", w.org, got)

	changed := w.org
	threshold := disburse.Money(0) // every batch: zero is a threshold, not none
	changed.Name, changed.ReferralsEnabled, changed.ReversalPeriod, changed.ApprovalThreshold = "Renamed", false, 90*time.Second, &threshold
	write(t, s, func(tx disburse.Tx) error { return tx.UpdateOrganisation(ctx, changed) })
	got = get(t, s, func(tx disburse.Tx) (disburse.Organisation, error) { return tx.Organisation(ctx, w.org.ID) })
	same(t, "updated", changed, got)
	changed.ApprovalThreshold = nil // approval off again
	write(t, s, func(tx disburse.Tx) error { return tx.UpdateOrganisation(ctx, changed) })
	got = get(t, s, func(tx disburse.Tx) (disburse.Organisation, error) { return tx.Organisation(ctx, w.org.ID) })
	same(t, "threshold cleared", changed, got)

	missing := disburse.NewID()
	notFound(t, s, "Organisation", func(tx disburse.Tx) error { _, err := tx.Organisation(ctx, missing); return err })
	other := newWorld(t, s)
	same(t, "OrganisationsByID", map[string]disburse.Organisation{changed.ID: changed, other.org.ID: other.org},
		get(t, s, func(tx disburse.Tx) (map[string]disburse.Organisation, error) {
			return tx.OrganisationsByID(ctx, []string{other.org.ID, missing, changed.ID, other.org.ID})
		}))
	changed.ID = missing
	err := s.Write(ctx, func(tx disburse.Tx) error { return tx.UpdateOrganisation(ctx, changed) })
	if err == nil {
		t.Error("UpdateOrganisation of a missing organisation: no error")
	}
}

func testAccount(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	for _, want := range []disburse.Account{w.payout, w.holding} {
		got := get(t, s, func(tx disburse.Tx) (disburse.Account, error) { return tx.Account(ctx, want.ID) })
		same(t, "Account", want, got)
		var locked disburse.Account
		write(t, s, func(tx disburse.Tx) (err error) { locked, err = tx.LockAccount(ctx, want.ID); return err })
		same(t, "LockAccount", want, locked)
	}
	missing := disburse.NewID()
	notFound(t, s, "Account", func(tx disburse.Tx) error { _, err := tx.Account(ctx, missing); return err })
	err := s.Write(ctx, func(tx disburse.Tx) error { _, err := tx.LockAccount(ctx, missing); return err })
	if err == nil {
		t.Error("LockAccount of a missing account: no error")
	}
}

// testFundingAccount: the migration creates the one funding account the
// Deposit use case draws from.
func testFundingAccount(t *testing.T, s disburse.Store) {
	got := get(t, s, func(tx disburse.Tx) (disburse.Account, error) {
		return tx.Account(t.Context(), disburse.FundingAccountID)
	})
	if got.Kind != disburse.AccountFunding || got.Balance != 0 || got.OrganisationID != "" {
		t.Errorf("funding account = %+v, want an empty FUNDING account of no organisation", got)
	}
}

func testPayoutAccounts(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	stranger := newWorld(t, s) // another organisation's accounts stay out
	second := disburse.Account{ID: disburse.NewID(), OrganisationID: w.org.ID, Kind: disburse.AccountPayout,
		Name: "Second", Currency: "KES", CreatedAt: at(time.Hour)}
	held := w.batch("held", t0)
	held.AccountID = second.ID
	held.Status, held.SubmittedAt = disburse.BatchOpen, t0
	held.Summary = disburse.Summary{PaymentsAmount: 700, PaymentsCount: 2, PendingAmount: 700, PendingCount: 2, HeldAmount: 800, ReferralsAmount: 100}
	other := held
	other.ID, other.Summary.HeldAmount = disburse.NewID(), 50
	write(t, s, func(tx disburse.Tx) error {
		if err := tx.InsertAccount(ctx, second); err != nil {
			return err
		}
		if err := tx.InsertBatch(ctx, held); err != nil {
			return err
		}
		return tx.InsertBatch(ctx, other)
	})
	second.HeldBalance = 850
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Account, error) { return tx.PayoutAccounts(ctx, w.org.ID) })
	same(t, "PayoutAccounts (oldest first, payout only)", []disburse.Account{w.payout, second}, got)
	alone, err := s.PayoutAccounts(ctx, w.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Store.PayoutAccounts (one statement, outside a transaction)", got, alone)
	testPayoutAccountID(t, s, w, second.ID, stranger.payout.ID)
}

// testPayoutAccountID: the default payout account, or the one named when
// it is one of the organisation's payout accounts; else not found.
func testPayoutAccountID(t *testing.T, s disburse.Store, w world, second, strangers string) {
	ctx := t.Context()
	for _, c := range []struct {
		name, account, want string
	}{
		{"the default", "", w.payout.ID},
		{"a payout account named", second, second},
		{"the holding account", w.holding.ID, ""},
		{"another organisation's", strangers, ""},
		{"none such", disburse.NewID(), ""},
	} {
		got := get(t, s, func(tx disburse.Tx) (string, error) {
			id, err := tx.PayoutAccountID(ctx, w.org.ID, c.account)
			if errors.Is(err, disburse.ErrNotFound) {
				return "", nil
			}
			return id, err
		})
		if got != c.want {
			t.Errorf("PayoutAccountID, %s: %q, want %q", c.name, got, c.want)
		}
	}
}

func testEnsureWallets(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	var first, again, usd map[string]string
	write(t, s, func(tx disburse.Tx) (err error) {
		first, err = tx.EnsureWallets(ctx, "KES", []string{msisdnKE, msisdnUK, msisdnKE}, t0)
		return err
	})
	if len(first) != 2 || first[msisdnKE] == "" || first[msisdnUK] == "" || first[msisdnKE] == first[msisdnUK] {
		t.Fatalf("EnsureWallets = %v, want two distinct wallets", first)
	}
	write(t, s, func(tx disburse.Tx) (err error) {
		again, err = tx.EnsureWallets(ctx, "KES", []string{msisdnUK, msisdnKE2, msisdnKE}, at(time.Hour))
		if err != nil {
			return err
		}
		usd, err = tx.EnsureWallets(ctx, "USD", []string{msisdnKE}, at(time.Hour))
		return err
	})
	if len(again) != 3 || again[msisdnKE] != first[msisdnKE] || again[msisdnUK] != first[msisdnUK] || again[msisdnKE2] == "" || again[msisdnKE2] == first[msisdnKE] {
		t.Errorf("EnsureWallets again = %v, want the existing wallets of %v and a new one", again, first)
	}
	if usd[msisdnKE] == "" || usd[msisdnKE] == first[msisdnKE] {
		t.Errorf("EnsureWallets in USD = %v, want a wallet of its own", usd)
	}
	wallets := get(t, s, func(tx disburse.Tx) ([]disburse.Account, error) { return tx.Wallets(ctx, msisdnKE) })
	want := []disburse.Account{
		{ID: first[msisdnKE], Kind: disburse.AccountWallet, Name: msisdnKE, Currency: "KES", Msisdn: msisdnKE, CreatedAt: t0},
		{ID: usd[msisdnKE], Kind: disburse.AccountWallet, Name: msisdnKE, Currency: "USD", Msisdn: msisdnKE, CreatedAt: at(time.Hour)},
	}
	same(t, "Wallets", want, wallets)
	none := get(t, s, func(tx disburse.Tx) ([]disburse.Account, error) { return tx.Wallets(ctx, msisdnUK2) })
	if len(none) != 0 {
		t.Errorf("Wallets of a stranger = %v", none)
	}
	var empty map[string]string
	write(t, s, func(tx disburse.Tx) (err error) { empty, err = tx.EnsureWallets(ctx, "KES", nil, t0); return err })
	if len(empty) != 0 {
		t.Errorf("EnsureWallets of nothing = %v", slices.Collect(maps.Keys(empty)))
	}
}
