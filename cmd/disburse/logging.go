package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/disburse/disburse/internal/msisdn"
)

// msisdnKeys are the log attributes that hold a phone number; their values
// are masked (msisdn.Mask) in every log line serve writes.
var msisdnKeys = map[string]bool{"msisdn": true, "recipient": true, "referral_msisdn": true}

// newLogger is serve's logger: format text or json, at level and above,
// with msisdns masked.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log-level must be debug, info, warn or error, not %q", level)
	}
	opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: maskMsisdns}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log-format must be text or json, not %q", format)
}

func maskMsisdns(_ []string, a slog.Attr) slog.Attr {
	if msisdnKeys[a.Key] && a.Value.Kind() == slog.KindString {
		return slog.String(a.Key, msisdn.Mask(a.Value.String()))
	}
	return a
}
