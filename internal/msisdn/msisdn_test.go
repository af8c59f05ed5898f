package msisdn

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nyaruka/phonenumbers"

	"github.com/disburse/disburse/internal/testenv"
)

// validByParse is Valid as it was before splitMsisdn and
// numberType, every number through phonenumbers.Parse and GetNumberType: the
// reference Valid must agree with on every input.
func validByParse(s string) bool {
	if len(s) < 8 || len(s) > 15 || s[0] == '0' || !allDigits(s) {
		return false
	}
	num, err := phonenumbers.Parse("+"+s, "")
	if err != nil {
		return false
	}
	switch phonenumbers.GetNumberType(num) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE, phonenumbers.FIXED_LINE_OR_MOBILE:
		return true
	}
	return false
}

// checkMsisdn fails t unless Valid and the reference agree on s; when
// Parse takes s, unless numberType agrees with GetNumberType on its number;
// and when splitMsisdn answers for s, unless Parse's number has the same
// calling code and national significant number, all GetNumberType reads. It
// reports whether s has an MSISDN's shape, so that Parse is asked, and
// whether splitMsisdn answered instead.
func checkMsisdn(t *testing.T, s string) (shaped, fast bool) {
	t.Helper()
	if got, want := Valid(s), validByParse(s); got != want {
		t.Errorf("Valid(%q) = %v, Parse says %v", s, got, want)
	}
	if len(s) < 8 || len(s) > 15 || s[0] == '0' || !allDigits(s) {
		return false, false // nothing else is asked
	}
	cc, nsn, fast := splitMsisdn(s)
	num, err := phonenumbers.Parse("+"+s, "")
	if err != nil {
		if fast {
			t.Errorf("splitMsisdn(%q) = %d, %q; Parse fails: %v", s, cc, nsn, err)
		}
		return true, fast
	}
	wantCC, wantNSN := int(num.GetCountryCode()), phonenumbers.GetNationalSignificantNumber(num)
	if fast && (cc != wantCC || nsn != wantNSN) {
		t.Errorf("splitMsisdn(%q) = %d, %q; Parse says %d, %q", s, cc, nsn, wantCC, wantNSN)
	}
	if got, want := numberType(wantCC, wantNSN), phonenumbers.GetNumberType(num); got != want {
		t.Errorf("numberType(%d, %q) = %v, GetNumberType says %v", wantCC, wantNSN, got, want)
	}
	return true, fast
}

// exampleNumbers returns, as calling code and national significant number,
// the example numbers of every region and number type, and of every
// non-geographic entity.
func exampleNumbers(t *testing.T) (cc []int, nsn []string) {
	t.Helper()
	seen := map[string]bool{}
	add := func(num *phonenumbers.PhoneNumber) {
		if num == nil {
			return
		}
		c, n := int(num.GetCountryCode()), phonenumbers.GetNationalSignificantNumber(num)
		if k := strconv.Itoa(c) + " " + n; !seen[k] {
			seen[k] = true
			cc, nsn = append(cc, c), append(nsn, n)
		}
	}
	for _, region := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedRegions())) {
		for typ := phonenumbers.FIXED_LINE; typ < phonenumbers.UNKNOWN; typ++ {
			add(phonenumbers.GetExampleNumberForType(region, typ))
		}
	}
	for _, code := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedGlobalNetworkCallingCodes())) {
		add(phonenumbers.GetExampleNumberForNonGeoEntity(code))
	}
	// GetExampleNumberForNonGeoEntity gives one type only: the rest from
	// the metadata itself.
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range coll.GetMetadata() {
		for _, d := range []*phonenumbers.PhoneNumberDesc{m.GetFixedLine(), m.GetMobile(), m.GetTollFree(), m.GetPremiumRate(),
			m.GetSharedCost(), m.GetPersonalNumber(), m.GetVoip(), m.GetPager(), m.GetUan(), m.GetVoicemail()} {
			if ex := d.GetExampleNumber(); ex != "" {
				n, err := phonenumbers.Parse("+"+strconv.Itoa(int(m.GetCountryCode()))+ex, "")
				if err == nil {
					add(n)
				}
			}
		}
	}
	if len(cc) < 500 {
		t.Fatalf("only %d example numbers", len(cc))
	}
	return cc, nsn
}

// randomDigits returns n random digits.
func randomDigits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// edits returns s with a digit added, removed and changed at every position,
// and a few strings with several random edits.
func edits(r *rand.Rand, s string) []string {
	var out []string
	for i := 0; i <= len(s); i++ {
		out = append(out, s[:i]+randomDigits(r, 1)+s[i:])
		if i < len(s) {
			changed := string(rune('0' + (int(s[i]-'0')+1+r.IntN(9))%10))
			out = append(out, s[:i]+s[i+1:], s[:i]+changed+s[i+1:])
		}
	}
	for range 5 {
		e := s
		for range 2 + r.IntN(3) {
			switch i := r.IntN(len(e) + 1); {
			case i == len(e) || r.IntN(3) == 0:
				e = e[:i] + randomDigits(r, 1) + e[i:]
			case r.IntN(2) == 0:
				e = e[:i] + e[i+1:]
			default:
				e = e[:i] + randomDigits(r, 1) + e[i+1:]
			}
		}
		out = append(out, e)
	}
	return out
}

// TestValidAsParse compares Valid with the reference on the
// example numbers of every region and type as E.164 digits, and edits of
// them; on every calling code followed by the examples' national numbers;
// and on random digits after every calling code.
func TestValidAsParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	exCC, exNSN := exampleNumbers(t)
	var inputs []string
	for i := range exCC {
		e164 := strconv.Itoa(exCC[i]) + exNSN[i]
		inputs = append(append(inputs, e164), edits(r, e164)...)
	}
	// The long run (internal/testenv) follows every calling code with every
	// example's national number and 40 random numbers of each length; the
	// default run with every 8th example, a different eighth for each code
	// so that every example still comes after some code, and 5 of each length.
	stride, random := testenv.Pick(8, 1), testenv.Pick(5, 40)
	for k, code := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedCallingCodes())) {
		prefix := strconv.Itoa(code)
		for j := k % stride; j < len(exNSN); j += stride {
			inputs = append(inputs, prefix+exNSN[j])
		}
		for length := 1; length <= 17; length++ {
			for range random {
				if length <= len(prefix) {
					inputs = append(inputs, prefix[:length])
				} else {
					inputs = append(inputs, prefix+randomDigits(r, length-len(prefix)))
				}
			}
		}
	}

	// Parse is slow: check on every CPU.
	var shaped, fast atomic.Int64
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(inputs); i += workers {
				sh, f := checkMsisdn(t, inputs[i])
				if sh {
					shaped.Add(1)
				}
				if f {
					fast.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d inputs compared (from %d example numbers); %d of MSISDN shape, of which %d (%.1f%%) split without Parse",
		len(inputs), len(exCC), shaped.Load(), fast.Load(), 100*float64(fast.Load())/float64(shaped.Load()))
}

// FuzzValid compares Valid with the reference on any string, and
// on the string's bytes mapped to digits, which reach the fast path far more
// often than arbitrary bytes do.
func FuzzValid(f *testing.F) {
	for _, s := range []string{"254712345678", "447911123456", "14155552671", "2348031234567", "919876543210",
		"390612345678", "5491123456789", "8613812345678", "254012345678", "999999999999", "+254712345678", "2547 1234567"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMsisdn(t, s)
		b := []byte(s)
		for i := range b {
			b[i] = '0' + b[i]%10
		}
		checkMsisdn(t, string(b))
	})
}

// msisdnMix is a payout batch's numbers, mostly Kenyan, some Nigerian, UK, US
// and Indian mobiles, and a few invalid ones.
func msisdnMix() []string {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]string, 1000)
	for i := range out {
		switch n := r.IntN(100); {
		case n < 50:
			out[i] = "2547" + randomDigits(r, 8) // Kenya
		case n < 60:
			out[i] = "2541" + strconv.Itoa(r.IntN(2)) + randomDigits(r, 7) // Kenya, 01x
		case n < 70:
			out[i] = "234" + []string{"70", "80", "81", "90"}[r.IntN(4)] + randomDigits(r, 8) // Nigeria
		case n < 78:
			out[i] = "447" + randomDigits(r, 9) // UK
		case n < 86:
			out[i] = "1" + strconv.Itoa(2+r.IntN(8)) + randomDigits(r, 2) + strconv.Itoa(2+r.IntN(8)) + randomDigits(r, 6) // US
		case n < 94:
			out[i] = "91" + strconv.Itoa(6+r.IntN(4)) + randomDigits(r, 9) // India
		case n < 96:
			out[i] = "2540" + randomDigits(r, 8) // national prefix left in
		case n < 98:
			out[i] = "1800" + randomDigits(r, 7) // toll-free
		default:
			out[i] = randomDigits(r, 12) // anything
		}
	}
	return out
}

// BenchmarkValid: the mix of countries through Parse and through Valid,
// and Valid on Kenyan mobile numbers alone, as the bench's payees are.
func BenchmarkValid(b *testing.B) {
	mix := msisdnMix()
	kenya := make([]string, 1000)
	for i := range kenya {
		kenya[i] = fmt.Sprintf("2547%08d", i*7919)
	}
	for _, bb := range []struct {
		name    string
		valid   func(string) bool
		numbers []string
	}{{"parse", validByParse, mix}, {"fast", Valid, mix}, {"kenya", Valid, kenya}} {
		b.Run(bb.name, func(b *testing.B) {
			valid := 0
			for i := 0; b.Loop(); i++ {
				if bb.valid(bb.numbers[i%len(bb.numbers)]) {
					valid++
				}
			}
		})
	}
}
