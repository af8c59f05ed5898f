package httpapi

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/disburse/disburse"
)

// TestAppendPaymentMatchesMarshal: for any payment, appendPayment writes
// what json.Marshal(toPayment(p)) writes, byte for byte.
func TestAppendPaymentMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := paymentGen().Draw(t, "payment")
		want, err := json.Marshal(toPayment(p))
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		if got := appendPayment(nil, p); string(got) != string(want) {
			t.Fatalf("appendPayment (-json.Marshal +appendPayment):\n%s", cmp.Diff(string(want), string(got)))
		}
		// Appending after other bytes leaves them be.
		if got := appendPayment([]byte("[1,"), p); string(got) != "[1,"+string(want) {
			t.Fatalf("appendPayment after a prefix: %s", got)
		}
	})
}

func TestAppendPaymentFixed(t *testing.T) {
	created := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	nairobi := time.FixedZone("EAT", 3*60*60)
	tests := []struct {
		name string
		in   disburse.Payment
		want string
	}{
		{
			name: "draft",
			in:   disburse.Payment{ID: "p", BatchID: "b", Msisdn: "254712345678", Amount: 15000, Status: disburse.PaymentDraft, CreatedAt: created},
			want: `{"id":"p","batchId":"b","msisdn":"254712345678","amount":150.00,"statusCode":"DRAFT","isMember":false,"createdAt":"2026-11-22T10:15:30.0000000"}`,
		},
		{
			name: "every field",
			in: disburse.Payment{
				ID: "p", BatchID: "b", OrganisationID: "o", Msisdn: "254712345678", Amount: 5, Status: disburse.PaymentSettled, IsMember: true,
				Firstname: "A", Lastname: "B", ExternalID: "e", CreatedAt: created, SubmittedAt: created, SettledAt: created,
				ReferralAmount: 100, ReferralMsisdn: "447911123456", ReferralStatus: disburse.PaymentPending, ReferralSettledAt: created,
				ReversalDueAt: time.Date(2026, 11, 22, 13, 15, 30, 123456789, nairobi), CancelledAt: created,
			},
			want: `{"id":"p","batchId":"b","msisdn":"254712345678","amount":0.05,"firstname":"A","lastname":"B","externalId":"e",` +
				`"statusCode":"SETTLED","settledAt":"2026-11-22T10:15:30.0000000","isMember":true,"referralAmount":1.00,` +
				`"referralMsisdn":"447911123456","referralStatusCode":"PENDING","createdAt":"2026-11-22T10:15:30.0000000",` +
				`"submittedAt":"2026-11-22T10:15:30.0000000","reversalDueAt":"2026-11-22T10:15:30.1234567","cancelledAt":"2026-11-22T10:15:30.0000000"}`,
		},
		{
			name: "escapes",
			in: disburse.Payment{
				ID: `a"b\c`, Msisdn: "<script>&", Amount: -250, Firstname: "Zoë 😀", Lastname: "\u2028\u2029\x00\x1f\t\x7f",
				ExternalID: "\xff\xc3(\xed\xa0\x80", ReferralAmount: -1, CreatedAt: time.Time{}.In(nairobi),
			},
			want: `{"id":"a\"b\\c","batchId":"","msisdn":"\u003cscript\u003e\u0026","amount":-2.50,"firstname":"Zoë 😀",` +
				`"lastname":"\u2028\u2029\u0000\u001f\t` + "\x7f" + `","externalId":"\ufffd\ufffd(\ufffd\ufffd\ufffd",` +
				`"statusCode":"","isMember":false,"referralAmount":-0.01}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(appendPayment(nil, tt.in))); diff != "" {
				t.Errorf("appendPayment (-want +got):\n%s", diff)
			}
			got, err := json.Marshal(toPayment(tt.in))
			if diff := cmp.Diff(tt.want, string(got)); err != nil || diff != "" {
				t.Errorf("json.Marshal: %v (-want +got):\n%s", err, diff)
			}
		})
	}
}

// paymentGen draws payments with every field of disburse.Payment drawn by
// its type, found by reflection, so that a new field is drawn too.
func paymentGen() *rapid.Generator[disburse.Payment] {
	str := stringGen()
	money := moneyGen()
	status := rapid.OneOf(
		rapid.SampledFrom(append(disburse.PaymentStatuses(), "")),
		rapid.Map(str, func(s string) disburse.PaymentStatus { return disburse.PaymentStatus(s) }),
	)
	when := timeGen()
	return rapid.Custom(func(t *rapid.T) disburse.Payment {
		var p disburse.Payment
		v := reflect.ValueOf(&p).Elem()
		for i := range v.NumField() {
			f, name := v.Field(i), v.Type().Field(i).Name
			switch f.Interface().(type) {
			case string:
				f.SetString(str.Draw(t, name))
			case disburse.Money:
				f.Set(reflect.ValueOf(money.Draw(t, name)))
			case disburse.PaymentStatus:
				f.Set(reflect.ValueOf(status.Draw(t, name)))
			case time.Time:
				f.Set(reflect.ValueOf(when.Draw(t, name)))
			case bool:
				f.SetBool(rapid.Bool().Draw(t, name))
			default:
				t.Fatalf("paymentGen draws no %s (Payment.%s): add it", f.Type(), name)
			}
		}
		// No referral, a whole one, or each part drawn on its own.
		switch rapid.IntRange(0, 2).Draw(t, "referral") {
		case 0:
			p.ReferralAmount, p.ReferralMsisdn, p.ReferralStatus, p.ReferralSettledAt = 0, "", "", time.Time{}
		case 2:
			p.ReferralAmount = rapid.OneOf(rapid.Just[disburse.Money](0), money).Draw(t, "referralAmount")
			p.ReferralMsisdn = rapid.OneOf(rapid.Just(""), str).Draw(t, "referralMsisdn")
		}
		return p
	})
}

// stringGen draws strings of every kind appendString must tell apart:
// plain ASCII, any runes, any bytes, and strings built from the pieces
// encoding/json escapes.
func stringGen() *rapid.Generator[string] {
	pieces := []string{
		"", "a", "Z", "0", " ", "~", "/", "'", "+254", "254712345678", "\x7f",
		`"`, `\`, "<", ">", "&", "\u2028", "\u2029", "\x00", "\x01", "\x1f", "\b", "\f", "\n", "\r", "\t",
		"é", "Zoë", "€", "😀", "\u00a0", "\ufffd", "\ufeff",
		"\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
	}
	return rapid.OneOf(
		rapid.StringMatching(`[ -~]*`),
		rapid.String(),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		rapid.Map(rapid.SliceOf(rapid.SampledFrom(pieces)), func(ss []string) string { return strings.Join(ss, "") }),
	)
}

func moneyGen() *rapid.Generator[disburse.Money] {
	return rapid.Map(rapid.OneOf(
		rapid.Int64(),
		rapid.Int64Range(-1_000_000, 1_000_000),
		rapid.SampledFrom([]int64{0, 1, -1, 9, 10, 99, 100, -100, 101, math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1}),
	), func(v int64) disburse.Money { return disburse.Money(v) })
}

// timeGen draws zero times (in UTC and elsewhere), times now and near it,
// and any instant, with any nanoseconds, in various locations.
func timeGen() *rapid.Generator[time.Time] {
	now := time.Now() // with a monotonic reading, which must not show
	return rapid.Custom(func(t *rapid.T) time.Time {
		var loc *time.Location
		switch rapid.IntRange(0, 2).Draw(t, "loc") {
		case 0:
			loc = time.UTC
		case 1:
			loc = time.Local
		default:
			loc = time.FixedZone("Z", rapid.IntRange(-18*3600-59, 18*3600+59).Draw(t, "offset"))
		}
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			return time.Time{}
		case 1:
			return time.Time{}.In(loc)
		case 2:
			return now
		case 3:
			return time.Unix(rapid.Int64Range(0, 4_102_444_800).Draw(t, "sec"), rapid.Int64Range(0, 999_999_999).Draw(t, "nsec")).In(loc)
		default:
			return time.Unix(rapid.Int64().Draw(t, "sec"), rapid.Int64().Draw(t, "nsec")).In(loc)
		}
	})
}

// realisticPayment is a settled payment with a referral, as a submit writes it.
func realisticPayment() disburse.Payment {
	at := time.Date(2026, 11, 22, 10, 15, 30, 123456700, time.UTC)
	return disburse.Payment{
		ID: "0194f7a2-3c5e-7d21-9b8a-4e6f1c2d3a4b", BatchID: "0194f7a1-8e2d-7c10-a5b4-3d2c1b0a9f8e",
		OrganisationID: "0194f79f-1a2b-7c3d-8e4f-5a6b7c8d9e0f", Msisdn: "254712345678", Amount: 150050,
		Firstname: "Wanjiru", Lastname: "Kamau", ExternalID: "INV-2026-000123", Status: disburse.PaymentSettled,
		IsMember: true, CreatedAt: at, SubmittedAt: at, SettledAt: at, ReversalDueAt: at.Add(72 * time.Hour),
		ReferralAmount: 1500, ReferralMsisdn: "254798765432", ReferralStatus: disburse.PaymentPending,
	}
}

func BenchmarkAppendPayment(b *testing.B) {
	p := realisticPayment()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendPayment(buf[:0], p)
	}
}

func BenchmarkMarshalPayment(b *testing.B) {
	p := realisticPayment()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(toPayment(p)); err != nil {
			b.Fatal(err)
		}
	}
}
