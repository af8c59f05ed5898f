// Package msisdn tells whether a string is an MSISDN a payee can have:
// digits only, country code first, 8 to 15 digits, and a mobile or fixed
// line number by libphonenumber. It answers as the library does, faster:
// the test in this package holds it to the library on every number the
// library knows an example of, and on their edits.
package msisdn

import (
	"slices"
	"sync"

	"github.com/nyaruka/phonenumbers"
)

// maxDigits is the length of the longest MSISDN.
const maxDigits = 15

// Plausible is Valid's cheap part: 8 to 15 ASCII digits without a
// leading zero. What fails it is no member of anything.
func Plausible(s string) bool {
	return len(s) >= 8 && len(s) <= maxDigits && s[0] != '0' && allDigits(s)
}

// Valid reports whether s is an MSISDN as the service defines it:
// digits only, country code first, no leading zero, 8 to 15 digits, and a
// valid mobile or fixed-line number for its country. A number libphonenumber
// knows as toll-free, premium-rate, personal, VoIP, pager or the like is not
// a payee: nobody's wallet answers on it.
//
// The answer is libphonenumber's, phonenumbers.GetNumberType of
// phonenumbers.Parse("+"+s, ""), but most numbers skip Parse (see
// splitMsisdn) and the type is found with patterns compiled once (see
// numberType): through Parse, validation was the largest cost of a large
// batch (docs/benchmarks.md). Both
// follow the library's code, phonenumbers v1.8.1; TestValidAsParse and
// FuzzValid hold them to its answers, upgrades included.
func Valid(s string) bool {
	if !Plausible(s) {
		return false
	}
	cc, nsn, ok := splitMsisdn(s)
	if !ok {
		num, err := phonenumbers.Parse("+"+s, "")
		if err != nil {
			return false
		}
		cc, nsn = int(num.GetCountryCode()), phonenumbers.GetNationalSignificantNumber(num)
	}
	// The type is UNKNOWN for a number IsValidNumber refuses, so one call
	// checks both, at the cost of one.
	switch numberType(cc, nsn) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE, phonenumbers.FIXED_LINE_OR_MOBILE:
		return true
	}
	return false
}

// splitMsisdn returns the calling code and national significant number of
// the number phonenumbers.Parse("+"+s, "") returns for s, which Valid
// has checked is 8 to 15 ASCII digits without a leading zero, when it can
// tell without Parse; ok is false when it cannot. Parse's steps
// (phonenumberutil.go, parseHelper), for "+" and such digits, with no
// default region:
//
//   - RFC 3966 context, isdn-subaddress, leading or trailing junk, a second
//     number, an extension: each needs a character other than a digit.
//   - The calling code: the '+' is stripped and the shortest prefix of one
//     to three digits that is a known code is taken; the rest is the
//     national number, 5 to 14 digits, never too short or too long. No
//     known code is an error; that is left to Parse.
//   - The national prefix: stripped only when the code's metadata (its main
//     region's, or the non-geographic entity's) has a national prefix for
//     parsing and its regexp matches the start of the national number.
//     When it does not match, nothing changes; when it does, viability and
//     length rules decide, so that is left to Parse.
//   - Italian leading zeros: set only when the national number starts with
//     '0'; left to Parse.
//
// So the national number, without a leading zero, is the national
// significant number, and nothing else Parse sets reaches GetNumberType.
func splitMsisdn(s string) (cc int, nsn string, ok bool) {
	codes := callingCodes()
	for i := 0; i < 3; i++ {
		cc = cc*10 + int(s[i]-'0')
		if !codes[cc].known {
			continue
		}
		nsn = s[i+1:]
		if nsn[0] == '0' || codes[cc].nationalPrefix != nil && codes[cc].nationalPrefix.MatchString(nsn) {
			return 0, "", false
		}
		return cc, nsn, true
	}
	return 0, "", false
}

// numberType is phonenumbers.GetNumberType of the number with calling code
// cc and national significant number nsn. GetNumberType builds each
// pattern's string and looks it up in a cache behind a lock on every call,
// most of its cost; this follows the same steps (GetRegionCodeForNumber,
// getMetadataForRegionOrCallingCode, getNumberTypeHelper) with the
// patterns compiled once per region.
func numberType(cc int, nsn string) phonenumbers.PhoneNumberType {
	if cc < 0 || cc >= 1000 {
		return phonenumbers.UNKNOWN
	}
	var plan *numberPlan
	switch plans := callingCodes()[cc].plans; {
	case len(plans) == 1:
		plan = plans[0]
	case len(plans) > 1:
		// The first region whose leading digits, or, when it has none,
		// whose patterns the number matches. (The library would panic on
		// a region without metadata; the metadata has none.)
		for _, p := range plans {
			if p.meta == nil {
				continue
			}
			c := p.compiled()
			if c.leadingDigits != nil && c.leadingDigits.MatchString(nsn) ||
				c.leadingDigits == nil && c.numberType(nsn) != phonenumbers.UNKNOWN {
				plan = p
				break
			}
		}
	}
	if plan == nil || plan.meta == nil {
		return phonenumbers.UNKNOWN
	}
	return plan.compiled().numberType(nsn)
}

// callingCode is what Valid needs to know of a country calling code.
type callingCode struct {
	known bool
	// nationalPrefix is the metadata's national prefix for parsing, anchored
	// as Parse anchors it; nil when there is none.
	nationalPrefix *anchored
	// plans are the code's regions, in the library's order.
	plans []*numberPlan
}

// callingCodes is every calling code libphonenumber knows, indexed by code
// (codes have at most three digits), built from its metadata on first use.
var callingCodes = sync.OnceValue(func() *[1000]callingCode {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		panic(err) // the library's own init has already parsed it
	}
	regions := map[string]*phonenumbers.PhoneMetadata{}
	nonGeo := map[int32]*phonenumbers.PhoneMetadata{}
	for _, m := range coll.GetMetadata() {
		if m.GetId() == "001" {
			nonGeo[m.GetCountryCode()] = m
		} else {
			regions[m.GetId()] = m
		}
	}
	// metadata is getMetadataForRegionOrCallingCode: the non-geographic
	// entity "001"'s for the calling code, or a supported region's own.
	metadata := func(cc int, region string) *phonenumbers.PhoneMetadata {
		if region == "001" {
			return nonGeo[int32(cc)]
		}
		if !phonenumbers.GetSupportedRegions()[region] {
			return nil
		}
		return regions[region]
	}
	var codes [1000]callingCode
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		if cc >= len(codes) {
			continue // not three digits: the library never takes it either
		}
		code := &codes[cc]
		code.known = true
		for _, region := range phonenumbers.GetRegionCodesForCountryCode(cc) {
			code.plans = append(code.plans, &numberPlan{meta: metadata(cc, region)})
		}
		// Parse reads the metadata of the code's main region.
		if p := metadata(cc, phonenumbers.GetRegionCodeForCountryCode(cc)).GetNationalPrefixForParsing(); p != "" {
			code.nationalPrefix = compileAnchored(p, false)
		}
	}
	return &codes
})

// numberPlan is one region's metadata with its patterns, compiled on first
// use: a service sees few countries, and compiling them all would slow
// every start.
type numberPlan struct {
	meta *phonenumbers.PhoneMetadata
	once sync.Once
	c    compiledPlan
}

type compiledPlan struct {
	leadingDigits              *anchored // nil when the metadata has none
	general, fixedLine, mobile numberDesc
	sameMobileAndFixedLine     bool
	// others are the types getNumberTypeHelper tries before fixed line and
	// mobile, in its order, those the region has.
	others []numberDesc
}

// numberDesc is a PhoneNumberDesc as isNumberMatchingDesc reads it.
type numberDesc struct {
	typ     phonenumbers.PhoneNumberType
	lengths []int32
	pattern *anchored // nil when the desc matches no national number
}

// noPattern is the metadata's pattern of a type a region does not have:
// letters, which no national number (digits, never empty) matches.
const noPattern = "NA"

func (p *numberPlan) compiled() *compiledPlan {
	p.once.Do(func() {
		m := p.meta
		desc := func(typ phonenumbers.PhoneNumberType, d *phonenumbers.PhoneNumberDesc) numberDesc {
			pattern := d.GetNationalNumberPattern()
			if pattern == "" || pattern == noPattern {
				return numberDesc{typ: typ} // matches no national number
			}
			return numberDesc{typ, d.GetPossibleLength(), compileAnchored(pattern, true)}
		}
		p.c = compiledPlan{
			general:                desc(phonenumbers.UNKNOWN, m.GetGeneralDesc()),
			fixedLine:              desc(phonenumbers.FIXED_LINE, m.GetFixedLine()),
			mobile:                 desc(phonenumbers.MOBILE, m.GetMobile()),
			sameMobileAndFixedLine: m.GetSameMobileAndFixedLinePattern(),
		}
		for _, d := range []numberDesc{
			desc(phonenumbers.PREMIUM_RATE, m.GetPremiumRate()),
			desc(phonenumbers.TOLL_FREE, m.GetTollFree()),
			desc(phonenumbers.SHARED_COST, m.GetSharedCost()),
			desc(phonenumbers.VOIP, m.GetVoip()),
			desc(phonenumbers.PERSONAL_NUMBER, m.GetPersonalNumber()),
			desc(phonenumbers.PAGER, m.GetPager()),
			desc(phonenumbers.UAN, m.GetUan()),
			desc(phonenumbers.VOICEMAIL, m.GetVoicemail()),
		} {
			// A region's absent types (most of the eight) would each cost a
			// pattern's run on every number, to fail.
			if d.pattern != nil {
				p.c.others = append(p.c.others, d)
			}
		}
		if ld := m.GetLeadingDigits(); ld != "" {
			p.c.leadingDigits = compileAnchored(ld, false)
		}
	})
	return &p.c
}

// matches is isNumberMatchingDesc: a possible length, when the desc lists
// any, and the pattern.
func (d numberDesc) matches(nsn string) bool {
	return d.pattern != nil && (len(d.lengths) == 0 || slices.Contains(d.lengths, int32(len(nsn)))) && d.pattern.MatchString(nsn)
}

// numberType is getNumberTypeHelper.
func (c *compiledPlan) numberType(nsn string) phonenumbers.PhoneNumberType {
	if !c.general.matches(nsn) {
		return phonenumbers.UNKNOWN
	}
	for _, d := range c.others {
		if d.matches(nsn) {
			return d.typ
		}
	}
	if c.fixedLine.matches(nsn) {
		if c.sameMobileAndFixedLine || c.mobile.matches(nsn) {
			return phonenumbers.FIXED_LINE_OR_MOBILE
		}
		return phonenumbers.FIXED_LINE
	}
	if !c.sameMobileAndFixedLine && c.mobile.matches(nsn) {
		return phonenumbers.MOBILE
	}
	return phonenumbers.UNKNOWN
}

// allDigits reports whether s is ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
