package csvpayments

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

// TestColumns: the columns are PaymentInput's JSON names, in its order;
// a field added to it is a column without a change here.
func TestColumns(t *testing.T) {
	known := []string{"msisdn", "amount", "firstname", "lastname", "externalId", "referralAmount", "referralMsisdn"}
	var inOrder []string
	for _, c := range Columns {
		if slices.Contains(known, c) {
			inOrder = append(inOrder, c)
		}
	}
	if diff := cmp.Diff(known, inOrder); diff != "" {
		t.Errorf("the known columns among %v (-want +got):\n%s", Columns, diff)
	}
}

func TestOpenRefusesHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []Failure
	}{
		{"empty", "", []Failure{{Line: 1, Message: "the file is empty; it needs a header line, then one payment a line"}}},
		{"unknown and twice", "msisdn,Amount,iban,MSISDN\n", []Failure{
			{Line: 1, Column: "iban", Value: "iban", Message: "unknown column; the columns are " + strings.Join(Columns, ",") + " (any order)"},
			{Line: 1, Column: "MSISDN", Value: "MSISDN", Message: "this column appears twice"},
		}},
		{"amount missing", "msisdn,firstname\n", []Failure{{Line: 1, Message: "the header has no amount column; msisdn and amount are required"}}},
		{"broken quoting", "\"msisdn,amount\n", []Failure{{Line: 1, Message: `the header line cannot be read: extraneous or missing " in quoted-field`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, got := Open(strings.NewReader(tc.file))
			if r != nil {
				t.Error("a Reader for a header with failures")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNext: columns by name in any case and order (a spreadsheet's BOM
// too), values trimmed, each row with its line, chunks of n, and the
// lines that are not rows as failures beside them.
func TestNext(t *testing.T) {
	file := "\ufeffAmount, MSISDN ,externalId,referralAmount,referralMsisdn\n" +
		"10, 254712345678 ,a,,\n" +
		"\"2.50\",447911123456,\"b\nc\",1,254712345678\n" +
		"5,254712345678,d\n" +
		"\"5,254712345678,e,,\n"
	r, failures := Open(strings.NewReader(file))
	if failures != nil {
		t.Fatal(failures)
	}
	if !r.HasReferrals() {
		t.Error("HasReferrals is false for a file with referral columns")
	}
	rows, notRows, err := r.Next(2)
	want := []Row{
		{Line: 2, Payment: disburse.PaymentInput{Msisdn: "254712345678", Amount: "10", ExternalID: "a"}},
		{Line: 3, Payment: disburse.PaymentInput{Msisdn: "447911123456", Amount: "2.50", ExternalID: "b\nc", ReferralAmount: "1", ReferralMsisdn: "254712345678"}},
	}
	if diff := cmp.Diff(want, rows); diff != "" || notRows != nil || err != nil {
		t.Errorf("first chunk (-want +got):\n%s%v %v", diff, notRows, err)
	}
	if r.Offset() == 0 {
		t.Error("Offset is 0 after two rows")
	}
	rows, notRows, err = r.Next(2)
	wantFailures := []Failure{
		{Line: 5, Message: "the row has 3 fields, the header 5"},
		{Line: 6, Message: `extraneous or missing " in quoted-field`},
	}
	if diff := cmp.Diff(wantFailures, notRows); diff != "" || len(rows) != 0 || err != nil {
		t.Errorf("second chunk (-want +got):\n%s%v %v", diff, rows, err)
	}
	if _, _, err := r.Next(2); !errors.Is(err, io.EOF) {
		t.Errorf("after the last line: %v, want io.EOF", err)
	}
}

func TestPlaced(t *testing.T) {
	rows := []Row{{Line: 4}, {Line: 9}}
	i := 1
	e := &disburse.Error{Code: disburse.CodeInvalid, Fields: []disburse.FieldError{
		{FieldName: "ExternalId", FieldValue: "x", ErrorMessage: "taken", Index: &i},
		{FieldName: "Payments", ErrorMessage: "too many"},
	}}
	want := []Failure{{Line: 9, Column: "externalId", Value: "x", Message: "taken"}, {Line: 0, Column: "payments", Message: "too many"}}
	if diff := cmp.Diff(want, Placed(e, rows)); diff != "" {
		t.Errorf("Placed (-want +got):\n%s", diff)
	}
	if got := (Failure{Line: 9, Column: "externalId", Message: "taken"}).String(); got != "line 9, column externalId: taken" {
		t.Errorf("String: %q", got)
	}
}

// TestNextStrayQuote: a quote that opens a field and is not closed takes
// the lines after it into that field, to the file's end or to a quote the
// reader cannot place; the failure is on the quote's line and names the
// lines that are not rows, and reading goes on after them.
func TestNextStrayQuote(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []Failure
		rows       []int // the lines of the rows read
	}{
		{"to the end", "msisdn,amount\n1,1\n2,\"2\n3,3\n4,4\n", []Failure{{Line: 3, Message: `extraneous or missing " in quoted-field: ` +
			"the field quoted on line 3 runs on to line 5, so lines 3 to 5 are read as one field, not as rows; check the quotes on line 3"}}, []int{2}},
		{"to another quote", "msisdn,amount\n1,\"1\n2,2\n3,\"3\",x\n4,4\n", []Failure{{Line: 2, Message: `extraneous or missing " in quoted-field: ` +
			"the field quoted on line 2 runs on to line 4, so lines 2 to 4 are read as one field, not as rows; check the quotes on line 2"}}, []int{5}},
		{"on one line", "msisdn,amount\n1,1\"x\n2,2\n", []Failure{{Line: 2, Message: `bare " in non-quoted-field`}}, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, failures := Open(strings.NewReader(tc.file))
			if failures != nil {
				t.Fatal(failures)
			}
			var got []Failure
			var lines []int
			for {
				rows, notRows, err := r.Next(10)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, notRows...)
				for _, row := range rows {
					lines = append(lines, row.Line)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.rows, lines); diff != "" {
				t.Errorf("the rows' lines (-want +got):\n%s", diff)
			}
		})
	}
}
