package msisdn

import (
	"regexp"
	"strings"
)

// anchored is a pattern of the metadata matched from a number's first
// digit, with the literal digits every match begins with compared before
// the regular expression runs: most numbers fail most of a region's
// patterns at their first digits, and the comparison costs a small part
// of a regular expression's run.
type anchored struct {
	literal string
	re      *regexp.Regexp
}

// compileAnchored compiles expr to match from the start of a string, and
// to its end as well when whole is true.
func compileAnchored(expr string, whole bool) *anchored {
	full := "^(?:" + expr + ")"
	if whole {
		full += "$"
	}
	// LiteralPrefix is a literal that any match of expr begins with.
	literal, _ := regexp.MustCompile(expr).LiteralPrefix()
	return &anchored{literal: literal, re: regexp.MustCompile(full)}
}

// MatchString reports whether s matches the pattern.
func (a *anchored) MatchString(s string) bool {
	return strings.HasPrefix(s, a.literal) && a.re.MatchString(s)
}
