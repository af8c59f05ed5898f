package usecasetest

import (
	"slices"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// testSubmitWritesEveryLeg: a submit computed by the database (docs/
// benchmarks.md, "The submit") writes what the service wrote leg by leg
// in Go before it: each payment and referral leg SETTLED to a member or
// PENDING, a PAY or HOLD transfer a leg, an SMS a held leg and a push a
// leg to a member with the app, each text as messages.go writes it,
// amounts with their cents; ids in NewID's shape; the batch's summary and
// the ledger sound.
func testSubmitWritesEveryLeg(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newFixture(t, open(t))
	on := true
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, f.org, organisations.Settings{ReferralsEnabled: &on}); err != nil {
		t.Fatal(err)
	}
	const withApp, withoutApp, pending1, pending2 = "254700000101", "254700000102", "254700000201", "254700000202"
	for _, m := range []disburse.Member{{Msisdn: withApp, AppInstalled: true}, {Msisdn: withoutApp}} {
		if _, _, err := f.svc.RegisterMember(f.ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "legs"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	in := []disburse.PaymentInput{
		{Msisdn: withApp, Amount: "10.05", ReferralMsisdn: pending1, ReferralAmount: "1.50"},
		{Msisdn: pending2, Amount: "1234.50", ReferralMsisdn: withoutApp, ReferralAmount: "1.99"},
		{Msisdn: withoutApp, Amount: "7"},
		{Msisdn: pending1, Amount: "100.10"},
	}
	if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Submit(f.ctx, f.org, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Summary
	if s.SettledCount != 2 || s.SettledAmount != 17_05 || s.PendingCount != 2 || s.PendingAmount != 1334_60 ||
		s.DraftCount != 0 || s.HeldAmount != 1334_60+1_50 || got.Status != disburse.BatchOpen {
		t.Errorf("batch %s, summary %+v", got.Status, s)
	}
	due := "22 November 2026" // the fixture's clock, plus an hour
	want := map[string][]string{
		withApp:    {"PUSH You have received KES 10.05 from Race Ltd."},
		withoutApp: nil,
		pending1:   {"SMS Race Ltd sent you KES 1.50. Register with Disburse by " + due + " to receive it.", "SMS Race Ltd sent you KES 100.10. Register with Disburse by " + due + " to receive it."},
		pending2:   {"SMS Race Ltd sent you KES 1234.50. Register with Disburse by " + due + " to receive it."},
	}
	err = f.svc.Store.Read(f.ctx, func(tx disburse.Tx) error {
		for to, texts := range want {
			ns, err := tx.Notifications(f.ctx, to)
			if err != nil {
				return err
			}
			var gotTexts []string
			for _, n := range ns {
				gotTexts = append(gotTexts, string(n.Channel)+" "+n.Message)
				checkNewID(t, n.ID)
			}
			if len(gotTexts) != len(texts) {
				t.Errorf("to %s: %q, want %q", to, gotTexts, texts)
				continue
			}
			for i := range texts {
				if gotTexts[i] != texts[i] {
					t.Errorf("to %s: %q, want %q", to, gotTexts[i], texts[i])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for msisdn, amounts := range map[string][]disburse.Money{withApp: {10_05}, withoutApp: {1_99, 7_00}} {
		st, err := f.svc.Statement(f.ctx, msisdn)
		if err != nil {
			t.Fatal(err)
		}
		var gotAmounts []disburse.Money
		for _, e := range st.Entries {
			gotAmounts = append(gotAmounts, e.Amount)
			checkNewID(t, e.PaymentID)
		}
		if !slices.Equal(gotAmounts, amounts) { // in the order of the payments and their legs
			t.Errorf("statement of %s: %v, want %v", msisdn, gotAmounts, amounts)
		}
	}
	if r, err := f.svc.CheckLedger(f.ctx); err != nil || !r.OK {
		t.Errorf("ledger: %v %v", err, r.Problems)
	}
}

// checkNewID fails t unless id is a lower-case UUIDv7, as NewID makes.
func checkNewID(t *testing.T, id string) {
	t.Helper()
	if !disburse.ValidID(id) || id[14] != '7' || (id[19] != '8' && id[19] != '9' && id[19] != 'a' && id[19] != 'b') {
		t.Errorf("id %q is not a UUIDv7", id)
	}
}
