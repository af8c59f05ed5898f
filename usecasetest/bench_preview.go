package usecasetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// PreviewStore is a store that is the back office's too, as sqlstore.Store is.
type PreviewStore interface {
	disburse.Store
	backoffice.Store
}

// BenchPreview measures what the portal's confirmation of a submit reads
// of a DRAFT batch of 100,000 payments, half of them to members (a tenth
// of those registered after the add), a tenth with a referral
// (backoffice.Service.Preview: the legs counted by their payees'
// membership in one statement, backoffice.Tx.DraftLegs). Its yardstick, reported
// beside it as pages_s, is one read of the same batch's payments in the
// submit's pages: what a count made in Go, a payment at a time, would
// read before it counted anything.
func BenchPreview(b *testing.B, s PreviewStore) {
	const n, size = 100_000, 10_000
	ctx := b.Context()
	svc, office := disburse.NewService(s), backoffice.NewService(s)
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Bench", ReferralsEnabled: true})
	if err != nil {
		b.Fatal(err)
	}
	batch, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "preview"})
	if err != nil {
		b.Fatal(err)
	}
	in := make([]disburse.PaymentInput, n)
	var members []disburse.Member
	for i := range in {
		msisdn := fmt.Sprintf("2547%08d", i)
		in[i] = disburse.PaymentInput{Msisdn: msisdn, Amount: "150.00"}
		if i%10 == 0 {
			in[i].ReferralMsisdn, in[i].ReferralAmount = "254798765432", "5.00"
		}
		if i%2 == 0 {
			members = append(members, disburse.Member{Msisdn: msisdn, RegisteredAt: time.Now()})
		}
	}
	// Most members were members when their payments were added; a tenth
	// of them register after, so the statement looks them up.
	late := members[:len(members)/10]
	if err := s.Write(ctx, func(tx disburse.Tx) error { _, err := tx.InsertMembers(ctx, members[len(late):]); return err }); err != nil {
		b.Fatal(err)
	}
	clear := false
	if _, _, err := svc.AddPayments(ctx, org.ID, batch.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		b.Fatal(err)
	}
	if err := s.Write(ctx, func(tx disburse.Tx) error { _, err := tx.InsertMembers(ctx, late); return err }); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	read := 0
	if err := s.Read(ctx, func(tx disburse.Tx) error {
		return tx.PaymentPages(ctx, batch.ID, disburse.PaymentDraft, size, func(page []disburse.Payment) error {
			read += len(page)
			return nil
		})
	}); err != nil || read != n {
		b.Fatalf("read %d payments, %v", read, err)
	}
	pages := time.Since(start)
	for b.Loop() {
		p, err := office.Preview(ctx, org.ID, batch.ID)
		if err != nil {
			b.Fatal(err)
		}
		if p.Legs.Paid.Count != n/2 || p.Legs.Held.Count != n/2 || p.Legs.ReferralsHeld.Count != n/10 {
			b.Fatalf("legs %+v", p.Legs)
		}
	}
	b.ReportMetric(pages.Seconds(), "pages_s") // after the loop, which clears what is reported before it
}
