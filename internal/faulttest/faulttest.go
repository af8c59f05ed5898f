// Package faulttest holds what the engines' tests of a database in
// trouble share: an organisation to work with (NewOrg), and the check that
// a database too busy to answer in time makes the API answer 503 and keep
// nothing (CheckBusy), which each engine runs holding its locks its own way.
package faulttest

import (
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/organisations"
)

// Member is the payee of Org's batch.
const Member = "254712345678"

// Org is an organisation with float, a token of its API key, and a DRAFT
// batch of one payment of 10.00 to Member.
type Org struct {
	Org   disburse.Organisation
	Token string
	Batch disburse.Batch
}

// NewOrg makes an Org through svc, with 1000.00 of float, its key in keys.
func NewOrg(t *testing.T, svc *disburse.Service, keys auth.Store) Org {
	t.Helper()
	ctx := t.Context()
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Faults Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Deposit(ctx, accounts[0].ID, "1000.00", "float"); err != nil {
		t.Fatal(err)
	}
	credentials := auth.New(keys, svc)
	_, key, err := credentials.CreateAPIKey(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := credentials.IssueToken(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "November"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	if _, _, err := svc.AddPayments(ctx, org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear,
		Payments: []disburse.PaymentInput{{Msisdn: Member, Amount: "10.00"}}}); err != nil {
		t.Fatal(err)
	}
	return Org{Org: org, Token: token, Batch: b}
}
