package usecasetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// BenchPaymentPages measures reading a batch of 100,000 payments in the
// submit's pages of 10,000 (Tx.PaymentPages, in a write transaction as
// the submit's, rolled back): the read that a submit and every answer
// with all of a batch's payments pay on top of their writes.
func BenchPaymentPages(b *testing.B, s disburse.Store) {
	const n, size = 100_000, 10_000
	ctx := b.Context()
	svc := disburse.NewService(s)
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Bench", ReferralsEnabled: true})
	if err != nil {
		b.Fatal(err)
	}
	batch, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "pages"})
	if err != nil {
		b.Fatal(err)
	}
	in := make([]disburse.PaymentInput, n)
	for i := range in {
		in[i] = disburse.PaymentInput{Msisdn: fmt.Sprintf("2547%08d", i), Amount: "150.00", Firstname: "First",
			Lastname: "Last", ExternalID: fmt.Sprintf("e%d", i), ReferralMsisdn: "254798765432", ReferralAmount: "5.00"}
	}
	clear := false
	if _, _, err := svc.AddPayments(ctx, org.ID, batch.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		b.Fatal(err)
	}
	errRollback := errors.New("roll back")
	for b.Loop() {
		read := 0
		err := s.Write(ctx, func(tx disburse.Tx) error {
			if err := tx.PaymentPages(ctx, batch.ID, disburse.PaymentDraft, size, func(page []disburse.Payment) error {
				read += len(page)
				return nil
			}); err != nil {
				return err
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) || read != n {
			b.Fatalf("read %d payments, %v; want %d", read, err, n)
		}
	}
}
