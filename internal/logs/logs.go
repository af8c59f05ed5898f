// Package logs makes the service's logger: text or JSON on one writer, with
// no msisdn in any line (docs/operations.md, "Logs"). Request lines name
// the route's pattern, never the path a client sent; what a number must
// still be told by is masked here, once, for every caller.
package logs

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/disburse/disburse/internal/msisdn"
)

// msisdnKeys are the attributes that hold a phone number; their values are
// masked whole (msisdn.Mask).
var msisdnKeys = map[string]bool{"msisdn": true, "recipient": true, "referral_msisdn": true}

// New returns a logger writing format (text or json) to w, at level
// (debug, info, warn or error) and above, with msisdns masked.
func New(w io.Writer, format, level string) (*slog.Logger, error) {
	h, err := NewHandler(w, format, level)
	if err != nil {
		return nil, err
	}
	return slog.New(h), nil
}

// NewHandler is New's handler, for a caller that combines it with others.
func NewHandler(w io.Writer, format, level string) (slog.Handler, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log-level must be debug, info, warn or error, not %q", level)
	}
	opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: mask}
	switch format {
	case "text":
		return slog.NewTextHandler(w, opts), nil
	case "json":
		return slog.NewJSONHandler(w, opts), nil
	}
	return nil, fmt.Errorf("log-format must be text or json, not %q", format)
}

// mask hides the numbers of the attributes that hold one, and any run of
// digits as long as an msisdn inside an error's text: a driver's error can
// quote the row it refused.
func mask(_ []string, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch {
	case msisdnKeys[a.Key] && v.Kind() == slog.KindString:
		return slog.String(a.Key, msisdn.Mask(v.String()))
	case v.Kind() == slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, maskDigitRuns(err.Error()))
		}
	}
	return a
}

// maskDigitRuns masks each run of 9 to 15 digits in s, the lengths of an
// msisdn; shorter runs (amounts, counts, times) stay readable.
func maskDigitRuns(s string) string {
	out := []byte(nil)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == i {
			out = append(out, s[i])
			i++
			continue
		}
		if run := s[i:j]; len(run) >= 9 && len(run) <= 15 {
			out = append(out, msisdn.Mask(run)...)
		} else {
			out = append(out, run...)
		}
		i = j
	}
	return string(out)
}
