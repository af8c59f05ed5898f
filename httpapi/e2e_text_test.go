package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestE2EText: a name, reference or id with a control character (a NUL
// above all, which PostgreSQL refuses in text) or a byte that is not UTF-8
// is a 400 on its field, before any lookup, on both stores; nothing changes.
func TestE2EText(t *testing.T) { eachStore(t, testE2EText) }

func testE2EText(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	o := h.createOrg("Text", true, "1000")
	b := h.createBatch(o, "November")
	accountID := o.Accounts[0].ID

	// Each bad value as JSON text: a NUL, another control character and a
	// DEL; and what is not UTF-8 text: raw bytes that are not UTF-8, and
	// escaped surrogates without their pair, shown with U+FFFD for each.
	for _, bad := range []string{`a\u0000b`, `a\u0007`, `\u007f`, `tab\there`, `\u009f`, "a\xff\xfeb", `\ud800`, `x\udc00y`, `\ud83dz`} {
		value := strings.NewReplacer(`\u0000`, "\x00", `\u0007`, "\a", `\u007f`, "\x7f", `\t`, "\t", `\u009f`, "\u009f",
			"\xff\xfe", "\uFFFD\uFFFD", `\ud800`, "\uFFFD", `\udc00`, "\uFFFD", `\ud83d`, "\uFFFD").Replace(bad)
		quoted := `"` + bad + `"`
		cases := []struct {
			method, path, token, body string
			want                      failure
		}{
			{"POST", "/batches", o.token, `{"name":` + quoted + `}`, failure{"Name", value, nil}},
			{"POST", "/batches", o.token, `{"name":"ok","externalId":` + quoted + `}`, failure{"ExternalId", value, nil}},
			{"PUT", "/batches/" + b.ID, o.token, `{"name":` + quoted + `}`, failure{"Name", value, nil}},
			{"POST", "/batches/" + b.ID + "/payments", o.token, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":1,"firstname":` + quoted + `}]}`, failure{"Firstname", value, at(0)}},
			{"POST", "/batches/" + b.ID + "/payments", o.token, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":1,"lastname":` + quoted + `}]}`, failure{"Lastname", value, at(0)}},
			{"POST", "/batches/" + b.ID + "/payments", o.token, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":1,"externalId":` + quoted + `}]}`, failure{"ExternalId", value, at(0)}},
			{"POST", "/batches/" + b.ID + "/payments", o.token, `{"clearExisting":false,"payments":[{"msisdn":"25471234567` + bad + `","amount":1}]}`, failure{"Msisdn", "25471234567" + value, at(0)}},
			{"POST", "/batches/" + b.ID + "/payments", o.token, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":1,"referralAmount":1,"referralMsisdn":"25471234567` + bad + `"}]}`, failure{"ReferralMsisdn", "25471234567" + value, at(0)}},
			{"POST", "/admin/organisations", adminToken, `{"name":` + quoted + `}`, failure{"Name", value, nil}},
			{"POST", "/admin/organisations/" + o.ID + "/accounts", adminToken, `{"name":` + quoted + `}`, failure{"Name", value, nil}},
			{"POST", "/admin/accounts/" + accountID + "/deposits", adminToken, `{"amount":1,"reference":` + quoted + `}`, failure{"Reference", value, nil}},
			{"POST", "/admin/members", adminToken, `{"msisdn":"254712345678","firstname":` + quoted + `}`, failure{"Firstname", value, nil}},
			{"POST", "/admin/members", adminToken, `{"msisdn":"254712345678","lastname":` + quoted + `}`, failure{"Lastname", value, nil}},
			{"POST", "/admin/members", adminToken, `{"msisdn":"25471234567` + bad + `"}`, failure{"Msisdn", "25471234567" + value, nil}},
		}
		for _, c := range cases {
			r := h.do(c.method, c.path, c.token, c.body)
			if r.status != 400 {
				t.Errorf("%s %s %q: status %d, want 400: %s", c.method, c.path, c.body, r.status, r.body)
				continue
			}
			if diff := cmp.Diff([]failure{c.want}, failures(t, r)); diff != "" {
				t.Errorf("%s %s %s (-want +got):\n%s", c.method, c.path, c.body, diff)
			}
		}
		if strings.ContainsRune(value, utf8.RuneError) {
			// Not UTF-8: the routes whose fields take any text say so too.
			for _, c := range []struct{ path, token, body, field string }{
				{"/webhooks", o.token, `{"url":"https://hooks.example.com/` + bad + `","events":["batch.closed"]}`, "Url"},
				{"/webhooks", o.token, `{"url":"https://hooks.example.com/","events":["` + bad + `"]}`, "Events"},
				{"/authentication/getToken", "", `{"apiKey":"dak_` + bad + `"}`, "ApiKey"},
			} {
				r := h.do("POST", c.path, c.token, c.body)
				if f := failures(t, r); len(f) != 1 || f[0].FieldName != c.field || !strings.ContainsRune(f[0].FieldValue, utf8.RuneError) {
					t.Errorf("POST %s %q: %s, want a 400 on %s showing U+FFFD", c.path, c.body, r.body, c.field)
				}
			}
			continue
		}
		// Queries and paths: a value that is not text, or not UTF-8.
		for _, raw := range []string{value, "a\xffb"} {
			q := url.QueryEscape(raw)
			wantFailures(t, h.do("GET", "/batches?externalId="+q, o.token, nil), failure{"ExternalId", strings.ToValidUTF8(raw, "\uFFFD"), nil})
			wantFailures(t, h.do("GET", "/admin/notifications?recipient="+q, adminToken, nil), failure{"Recipient", strings.ToValidUTF8(raw, "\uFFFD"), nil})
			wantFailures(t, h.do("GET", "/members/"+url.PathEscape("25471234567"+raw)+"/exists", o.token, nil), failure{"Msisdn", strings.ToValidUTF8("25471234567"+raw, "\uFFFD"), nil})
			wantFailures(t, h.do("GET", "/admin/members/"+url.PathEscape("25471234567"+raw)+"/statement", adminToken, nil), failure{"Msisdn", strings.ToValidUTF8("25471234567"+raw, "\uFFFD"), nil})
		}
	}

	// Nothing was stored: the batch has no payments, the account no deposit
	// but the float, no member exists.
	if got := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", o.token, nil), 200); len(got) != 0 {
		t.Errorf("payments stored from refused requests: %+v", got)
	}
	if got := ok[[]Batch](t, h.do("GET", "/batches", o.token, nil), 200); len(got) != 1 {
		t.Errorf("batches stored from refused requests: %d, want 1", len(got))
	}
	if a := h.account(o); a.Balance != "1000.00" {
		t.Errorf("balance %s after refused deposits, want 1000.00", a.Balance)
	}
	h.checkLedger()

	// Text that is fine, Unicode included, is kept as sent.
	name := "Zoë's payouts – 11/2026 ✓"
	if got := ok[Batch](t, h.do("POST", "/batches", o.token, map[string]string{"name": name}), 201); got.Name != name {
		t.Errorf("name %q stored as %q", name, got.Name)
	}
}

// TestE2EFieldValueCapped: a failure names its value, at most 256
// characters of it followed by "…", whatever was sent.
func TestE2EFieldValueCapped(t *testing.T) { eachStore(t, testE2EFieldValueCapped) }

func testE2EFieldValueCapped(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	o := h.createOrg("Cap", false, "")
	long := strings.Repeat("é", 100_000)
	got := failures(t, h.do("POST", "/batches", o.token, map[string]string{"name": long}))
	want := []failure{{"Name", strings.Repeat("é", 256) + "…", nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	// Exactly 256 characters come back whole; a cut never splits a character.
	exact := strings.Repeat("x", 255) + "é"
	wantFailures(t, h.do("GET", "/batches?skip="+url.QueryEscape(exact), o.token, nil), failure{"Skip", exact, nil})
	b := h.createBatch(o, "B")
	r := h.do("POST", "/batches/"+b.ID+"/payments", o.token, `{"clearExisting":false,"payments":[{"msisdn":"`+strings.Repeat("9", 5000)+`","amount":1}]}`)
	f := failures(t, r)
	if len(f) != 1 || !utf8.ValidString(f[0].FieldValue) || f[0].FieldValue != strings.Repeat("9", 256)+"…" {
		t.Errorf("long msisdn failure %+v", f)
	}
}
