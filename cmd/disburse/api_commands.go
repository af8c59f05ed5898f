package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"text/tabwriter"

	apiclient "github.com/disburse/disburse/client"
)

// The organisation's commands (batches, accounts) talk to a running
// service through the Go client, as any integrator would. Their exit codes
// are for scripts: 0 done, 1 usage, 2 validation failures, 3 service error.
const (
	exitUsage      = 1
	exitValidation = 2
	exitService    = 3
)

// exitError carries the exit code a command's failure ends the process with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

func serviceError(err error) error { return &exitError{exitService, err} }

// apiFlags are the flags every organisation command takes.
type apiFlags struct {
	url, key string
	json     bool
	out      io.Writer // answers
	errOut   io.Writer // progress and failures
}

func (a *apiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.url, "api-url", "", "base URL of the service (DISBURSE_API_URL)")
	fs.StringVar(&a.key, "api-key", "", "the organisation's API key (DISBURSE_API_KEY)")
	fs.BoolVar(&a.json, "json", false, "print the service's JSON, for scripts")
}

// parseArgs parses fs from args, allowing flags after the positional
// arguments too (disburse batches get ID --json), and returns the positionals.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, &exitError{exitUsage, err}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// connect makes the client; a flag wins over its variable.
func (a *apiFlags) connect() (*apiclient.API, error) {
	if a.url == "" {
		a.url = os.Getenv("DISBURSE_API_URL")
	}
	if a.key == "" {
		a.key = os.Getenv("DISBURSE_API_KEY")
	}
	if a.url == "" || a.key == "" {
		return nil, usageError("--api-url and --api-key (or DISBURSE_API_URL and DISBURSE_API_KEY) are required")
	}
	api, err := apiclient.New(a.url, a.key, apiclient.Options{})
	if err != nil {
		return nil, usageError("--api-url: %v", err)
	}
	return api, nil
}

const batchesUsage = `usage: disburse batches <command> [flags]

  upload --file payouts.csv --name NAME [--external-id ID] [--submit] [--request-size N]
  list [--status STATUS] [--external-id ID] [--cursor C] [--limit N]
  get ID
  payments ID [--status STATUS] [--cursor C] [--limit N]
  export ID [--out FILE]      the batch's results as CSV (standard output by default)
  submit ID
  cancel ID

Every command takes --api-url and --api-key, and all but export --json.`

func batches(ctx context.Context, args []string, out, errOut io.Writer) error {
	if len(args) == 0 {
		return usageError("%s", batchesUsage)
	}
	fs := flag.NewFlagSet("batches "+args[0], flag.ContinueOnError)
	a := &apiFlags{out: out, errOut: errOut}
	a.register(fs)
	switch args[0] {
	case "upload":
		return upload(ctx, fs, a, args[1:])
	case "list":
		return batchesList(ctx, fs, a, args[1:])
	case "get", "submit", "cancel":
		return oneBatch(ctx, fs, a, args[0], args[1:])
	case "payments":
		return listPayments(ctx, fs, a, args[1:])
	case "export":
		return batchesExport(ctx, fs, a, args[1:])
	}
	return usageError("%s", batchesUsage)
}

// batchesList is "batches list".
func batchesList(ctx context.Context, fs *flag.FlagSet, a *apiFlags, args []string) error {
	status := fs.String("status", "", "only batches with this status code")
	external := fs.String("external-id", "", "only batches with this external id")
	cursor, limit := pageFlags(fs, "batches")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	api, err := a.connect()
	if err != nil {
		return err
	}
	p := &apiclient.ListBatchesParams{Cursor: orNil(*cursor), Limit: limit}
	if *status != "" {
		p.StatusCode = (*apiclient.BatchStatus)(status)
	}
	if *external != "" {
		p.ExternalId = external
	}
	res, err := api.ListBatchesWithResponse(ctx, p)
	if err != nil {
		return serviceError(err)
	}
	return a.show(res.StatusCode(), res.Body, func() {
		printBatches(a.out, res.JSON200.Data...)
		printNext(a.out, res.JSON200.NextCursor)
	})
}

// oneBatch is "batches get|submit|cancel ID".
func oneBatch(ctx context.Context, fs *flag.FlagSet, a *apiFlags, command string, args []string) error {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("usage: disburse batches %s ID", command)
	}
	api, err := a.connect()
	if err != nil {
		return err
	}
	var res *http.Response
	switch command {
	case "get":
		res, err = api.GetBatch(ctx, pos[0])
	case "submit":
		return a.submit(ctx, api, pos[0])
	case "cancel":
		res, err = api.CancelBatch(ctx, pos[0], nil)
	}
	return a.showBatch(res, err)
}

// listPayments is "batches payments ID".
func listPayments(ctx context.Context, fs *flag.FlagSet, a *apiFlags, args []string) error {
	status := fs.String("status", "", "only payments with this status code")
	cursor, limit := pageFlags(fs, "payments")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("usage: disburse batches payments ID")
	}
	api, err := a.connect()
	if err != nil {
		return err
	}
	p := &apiclient.ListPaymentsParams{Cursor: orNil(*cursor), Limit: limit}
	if *status != "" {
		p.StatusCode = (*apiclient.PaymentStatus)(status)
	}
	res, err := api.ListPaymentsWithResponse(ctx, pos[0], p)
	if err != nil {
		return serviceError(err)
	}
	return a.show(res.StatusCode(), res.Body, func() {
		printPayments(a.out, res.JSON200.Data)
		printNext(a.out, res.JSON200.NextCursor)
	})
}

func accounts(ctx context.Context, args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("accounts", flag.ContinueOnError)
	a := &apiFlags{out: out, errOut: errOut}
	a.register(fs)
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	api, err := a.connect()
	if err != nil {
		return err
	}
	res, err := api.ListAccountsWithResponse(ctx)
	if err != nil {
		return serviceError(err)
	}
	return a.show(res.StatusCode(), res.Body, func() {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tCURRENCY\tBALANCE\tHELD\tDEFAULT")
		for _, acc := range *res.JSON200 {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%v\n", acc.Id, acc.Name, acc.Currency, acc.Balance, acc.HeldBalance, acc.IsDefault)
		}
		w.Flush()
	})
}

// show prints a parsed answer: its body as sent with --json, else human.
func (a *apiFlags) show(status int, body []byte, human func()) error {
	if err := apiclient.ResponseError(status, body); err != nil {
		return serviceError(err)
	}
	if a.json {
		_, err := a.out.Write(append(body, '\n'))
		return err
	}
	human()
	return nil
}

// submit submits the batch. With --json the answer, every payment with
// its status, streams to the output; else it is read to its end unparsed
// (it may be hundreds of megabytes) and the batch is read again to show.
func (a *apiFlags) submit(ctx context.Context, api *apiclient.API, id string) error {
	res, err := api.SubmitBatch(ctx, id, nil)
	if err != nil || a.json || res.StatusCode/100 != 2 {
		return a.showBatch(res, err)
	}
	if res.StatusCode == http.StatusAccepted {
		return a.showApprovalRequested(res)
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil {
		return serviceError(fmt.Errorf("reading the answer: %w", err))
	}
	return a.showBatch(api.GetBatch(ctx, id))
}

// showApprovalRequested prints a submit's 202: the batch is at or above
// the organisation's approval threshold, and waits (docs/api.md section 4.3).
func (a *apiFlags) showApprovalRequested(res *http.Response) error {
	defer res.Body.Close()
	var answer apiclient.ApprovalRequested
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		return serviceError(fmt.Errorf("reading the answer: %w", err))
	}
	ap := answer.Approval
	fmt.Fprintf(a.out, "Not paid yet: the batch waits for approval %s (%d payments, %s).\n"+
		"Another API key or portal user of the organisation approves it (POST /approvals/%s/approve).\n",
		ap.Id, ap.PaymentsCount, ap.PaymentsAmount, ap.Id)
	return nil
}

// showBatch prints a batch answer: as it streams in with --json, else its
// own fields decoded (a Batch has no payments field).
func (a *apiFlags) showBatch(res *http.Response, err error) error {
	if err != nil {
		return serviceError(err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		body, _ := io.ReadAll(res.Body)
		return serviceError(apiclient.ResponseError(res.StatusCode, body))
	}
	if a.json {
		_, err := io.Copy(a.out, res.Body)
		fmt.Fprintln(a.out)
		return err
	}
	var b apiclient.Batch // payments, if any, are skipped: Batch has no such field
	if err := json.NewDecoder(res.Body).Decode(&b); err != nil {
		return serviceError(fmt.Errorf("reading the answer: %w", err))
	}
	printBatches(a.out, b)
	return nil
}

func printBatches(out io.Writer, batches ...apiclient.Batch) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSTATUS\tPAYMENTS\tAMOUNT\tSETTLED\tPENDING\tCREATED (UTC)")
	for _, b := range batches {
		s := b.Summary
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", b.Id, b.Name, b.StatusCode, s.PaymentsCount,
			s.PaymentsAmount, s.SettledAmount, s.PendingAmount, b.CreatedAt.Format("2006-01-02 15:04:05"))
	}
	w.Flush()
}

// pageFlags are a list's --cursor and --limit (docs/versioning.md).
func pageFlags(fs *flag.FlagSet, what string) (cursor *string, limit *int) {
	return fs.String("cursor", "", "the page after this cursor: the one the page before ends with"),
		fs.Int("limit", 1000, what+" to show, at most 1000")
}

// printNext tells how to ask for the page after, when there is one.
func printNext(out io.Writer, next *string) {
	if next != nil {
		fmt.Fprintf(out, "more follow: --cursor %s\n", *next)
	}
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func printPayments(out io.Writer, payments []apiclient.Payment) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tMSISDN\tAMOUNT\tSTATUS\tEXTERNAL ID")
	for _, p := range payments {
		ext := ""
		if p.ExternalId != nil {
			ext = *p.ExternalId
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", p.Id, p.Msisdn, p.Amount, p.StatusCode, ext)
	}
	w.Flush()
}

// asExit returns the exit code err asks for: 1 when it names none.
func asExit(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitUsage
}

func jsonOut(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	return enc.Encode(v)
}
