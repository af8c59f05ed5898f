package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/client/wire"
	"github.com/disburse/disburse/internal/testserver"
)

// Paying a batch: create it, add payments, submit. The server here is the
// real API over a temporary SQLite database, with 254712345678 a member.
func Example() {
	ctx := context.Background()
	srv, err := testserver.StartSQLite(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	api, err := client.New(srv.URL, srv.APIKey, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	created, err := api.CreateBatchWithResponse(ctx, nil, client.NewBatch{Name: "November"})
	if err != nil || created.JSON201 == nil {
		log.Fatal(err, client.ResponseError(created.StatusCode(), created.Body))
	}
	id := created.JSON201.Id.String()
	added, err := api.AddPaymentsWithResponse(ctx, id, nil, client.AddPayments{Payments: []client.PaymentInput{
		{Msisdn: "254712345678", Amount: wire.MustAmount("150000.01")},
		{Msisdn: "447911123456", Amount: wire.MustAmount("75.50")},
	}})
	if err != nil || added.JSON200 == nil {
		log.Fatal(err, client.ResponseError(added.StatusCode(), added.Body))
	}
	submitted, err := api.SubmitBatchWithResponse(ctx, id, nil)
	if err != nil || submitted.JSON200 == nil {
		log.Fatal(err, client.ResponseError(submitted.StatusCode(), submitted.Body))
	}
	b := submitted.JSON200
	fmt.Println(b.StatusCode, b.Summary.PaymentsAmount, b.Summary.SettledAmount, b.Summary.PendingAmount)
	for _, p := range b.Payments {
		fmt.Println(p.Msisdn, p.Amount, p.StatusCode, p.CreatedAt.Location())
	}
	// Output:
	// OPEN 150075.51 150000.01 75.50
	// 254712345678 150000.01 SETTLED UTC
	// 447911123456 75.50 PENDING UTC
}

// A 400 reports every failure of the request, by field and position.
func ExampleResponseError() {
	ctx := context.Background()
	srv, err := testserver.StartSQLite(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	api, _ := client.New(srv.URL, srv.APIKey, client.Options{})
	created, _ := api.CreateBatchWithResponse(ctx, nil, client.NewBatch{Name: "November"})
	added, err := api.AddPaymentsWithResponse(ctx, created.JSON201.Id.String(), nil, client.AddPayments{Payments: []client.PaymentInput{
		{Msisdn: "254712345678", Amount: wire.MustAmount("10")},
		{Msisdn: "0712345678", Amount: wire.MustAmount("0.50")},
	}})
	if err != nil {
		log.Fatal(err)
	}
	failures := client.ResponseError(added.StatusCode(), added.Body).(*client.Error).Fields
	for _, f := range failures {
		fmt.Println(*f.Index, f.FieldName, f.FieldValue)
	}
	// Output:
	// 1 Msisdn 0712345678
	// 1 Amount 0.50
}
