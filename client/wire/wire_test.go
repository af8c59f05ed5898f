package wire

import (
	"encoding/json"
	"testing"
	"time"
)

func TestAmountIsExact(t *testing.T) {
	for text, want := range map[string]Amount{"150000.01": 15000001, "150": 15000, "0.5": 50, "-0.25": -25, "92233720368547757.99": 9223372036854775799} {
		var a Amount
		if err := json.Unmarshal([]byte(text), &a); err != nil || a != want {
			t.Errorf("%s: got %d, %v; want %d", text, a, err, want)
		}
	}
	for _, bad := range []string{"1e2", "1.001", `"10"`, "", "1.", "-", "92233720368547758.00"} {
		var a Amount
		if err := json.Unmarshal([]byte(bad), &a); err == nil {
			t.Errorf("%q: read as %d, want an error", bad, a)
		}
	}
	if b, _ := json.Marshal(Amount(15000001)); string(b) != "150000.01" {
		t.Errorf("marshal = %s", b)
	}
	if s := Amount(-5).String(); s != "-0.05" {
		t.Errorf("String = %s", s)
	}
}

func TestDateTimeIsUTC(t *testing.T) {
	for _, form := range []string{`"2026-11-22T10:15:30.1234567Z"`, `"2026-11-22T10:15:30.1234567"`} { // 2026-12-01's, the first version's
		var d DateTime
		if err := json.Unmarshal([]byte(form), &d); err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 11, 22, 10, 15, 30, 123456700, time.UTC); !d.Equal(want) || d.Location() != time.UTC {
			t.Errorf("%s: got %v, want %v", form, d.Time, want)
		}
		if b, _ := json.Marshal(d); string(b) != `"2026-11-22T10:15:30.1234567Z"` {
			t.Errorf("marshal = %s", b)
		}
	}
	var d DateTime
	for _, bad := range []string{`"2026-11-22T10:15:30Z"`, `"2026-11-22T10:15:30.123"`, `"2026-11-22T10:15:30.1234567+01:00"`, `"2026-11-22T10:15:30.1234567ZZ"`, `5`} {
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s: read, want an error", bad)
		}
	}
}

// TestNullableAmountTellsNullFromAbsent: a field left nil is left out, a
// null is sent as null, an amount exactly.
func TestNullableAmountTellsNullFromAbsent(t *testing.T) {
	type settings struct {
		Threshold *NullableAmount `json:"approvalThreshold,omitempty"`
	}
	for _, c := range []struct {
		in   settings
		want string
	}{
		{settings{}, `{}`},
		{settings{&NullableAmount{}}, `{"approvalThreshold":null}`},
		{settings{&NullableAmount{Amount: 500001, Valid: true}}, `{"approvalThreshold":5000.01}`},
	} {
		b, err := json.Marshal(c.in)
		if err != nil || string(b) != c.want {
			t.Errorf("marshal %+v = %s, %v; want %s", c.in, b, err, c.want)
		}
	}
	var n NullableAmount
	if err := json.Unmarshal([]byte(`0.10`), &n); err != nil || n != (NullableAmount{Amount: 10, Valid: true}) {
		t.Errorf("0.10 read as %+v, %v", n, err)
	}
	if err := json.Unmarshal([]byte(`null`), &n); err != nil || n.Valid {
		t.Errorf("null read as %+v, %v", n, err)
	}
	if err := json.Unmarshal([]byte(`1e2`), &n); err == nil {
		t.Errorf("1e2 read as %+v, want an error", n)
	}
}
