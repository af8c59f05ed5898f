package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/fanout"
)

// serveSettings parses serve's flags from args with env as the environment
// (every variable of the table, unset unless env names it).
func serveSettings(t *testing.T, env map[string]string, args ...string) (config, error) {
	t.Helper()
	for _, name := range variables {
		t.Setenv(name, env[name]) // empty counts as unset
	}
	var c config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.flags(fs)
	if err := parse(fs, args); err != nil {
		return c, err
	}
	return c, c.check()
}

func TestSettingsDefaults(t *testing.T) {
	c, err := serveSettings(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":8080" || c.DatabaseURL != "sqlite:disburse.db" || c.AdminToken != "" ||
		c.TokenTTL != time.Hour || c.WorkerInterval != 5*time.Second || c.NotifyProvider != "log" || c.NotifyAttempts != 8 ||
		c.DeliveryConcurrency != fanout.DefaultConcurrency || c.DeliveryRate != 0 {
		t.Errorf("defaults: %+v", c)
	}
	if c.Limits != disburse.DefaultLimits || c.Limits.MaxAmount != 1_000_000*100 {
		t.Errorf("limits %+v, want %+v", c.Limits, disburse.DefaultLimits)
	}
	if c.MaxBodyBytes != 64<<20 {
		t.Errorf("max body %d, want 64 MiB", c.MaxBodyBytes)
	}
}

func TestSettingsFlagsAndVariables(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want func(config) bool
	}{
		{"ttl by variable", map[string]string{"DISBURSE_TOKEN_TTL": "2m"}, nil,
			func(c config) bool { return c.TokenTTL == 2*time.Minute }},
		{"ttl by flag", nil, []string{"--token-ttl", "3m"},
			func(c config) bool { return c.TokenTTL == 3*time.Minute }},
		{"flag wins", map[string]string{"DISBURSE_TOKEN_TTL": "2m", "DISBURSE_LISTEN": "127.0.0.1:1"}, []string{"--token-ttl=3m"},
			func(c config) bool { return c.TokenTTL == 3*time.Minute && c.Listen == "127.0.0.1:1" }},
		{"flag wins over a bad variable", map[string]string{"DISBURSE_TOKEN_TTL": "soon", "DISBURSE_NOTIFY_ATTEMPTS": "many"}, []string{"--token-ttl", "3m", "--notify-attempts", "2"},
			func(c config) bool { return c.TokenTTL == 3*time.Minute && c.NotifyAttempts == 2 }},
		{"max amount exact", map[string]string{"DISBURSE_MAX_AMOUNT": "2500.50"}, nil,
			func(c config) bool { return c.Limits.MaxAmount == 250050 }},
		{"edge by variable", map[string]string{"DISBURSE_TLS_CERT": "c.pem", "DISBURSE_TLS_KEY": "k.pem", "DISBURSE_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1"}, nil,
			func(c config) bool {
				return c.TLSCert == "c.pem" && c.TLSKey == "k.pem" && c.TrustedProxies.String() == "10.0.0.0/8,127.0.0.1/32"
			}},
		{"no trusted proxies by default", nil, nil,
			func(c config) bool { return c.TrustedProxies.String() == "" && c.TLSCert == "" }},
		{"delivery by variable", map[string]string{"DISBURSE_DELIVERY_CONCURRENCY": "8", "DISBURSE_DELIVERY_RATE": "500"}, nil,
			func(c config) bool { return c.DeliveryConcurrency == 8 && c.DeliveryRate == 500 }},
		{"limits by variable", map[string]string{"DISBURSE_MAX_PAYMENTS_PER_REQUEST": "10", "DISBURSE_MAX_PAYMENTS_PER_BATCH": "20", "DISBURSE_MAX_BODY_BYTES": "4096"}, nil,
			func(c config) bool {
				return c.Limits.MaxPaymentsPerRequest == 10 && c.Limits.MaxPaymentsPerBatch == 20 && c.MaxBodyBytes == 4096
			}},
		{"limits by flag", map[string]string{"DISBURSE_MAX_AMOUNT": "5"}, []string{"--max-amount", "7", "--max-payments-per-request", "3", "--max-payments-per-batch", "4", "--max-body-bytes", "100"},
			func(c config) bool {
				return c.Limits.MaxAmount == 700 && c.Limits.MaxPaymentsPerRequest == 3 && c.Limits.MaxPaymentsPerBatch == 4 && c.MaxBodyBytes == 100
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := serveSettings(t, tc.env, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(c) {
				t.Errorf("got %+v", c)
			}
		})
	}
}

func TestSettingsBadVariable(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want []string // in the error
	}{
		{map[string]string{"DISBURSE_TOKEN_TTL": "soon"}, nil, []string{"DISBURSE_TOKEN_TTL"}},
		{map[string]string{"DISBURSE_NOTIFY_ATTEMPTS": "many"}, nil, []string{"DISBURSE_NOTIFY_ATTEMPTS"}},
		{map[string]string{"DISBURSE_MAX_AMOUNT": "1.001"}, nil, []string{"DISBURSE_MAX_AMOUNT"}},
		{map[string]string{"DISBURSE_MAX_AMOUNT": "1e6"}, nil, []string{"DISBURSE_MAX_AMOUNT"}},
		// Every bad variable is reported at once; a good flag hides only its own.
		{map[string]string{"DISBURSE_WORKER_INTERVAL": "x", "DISBURSE_MAX_BODY_BYTES": "64MiB", "DISBURSE_TOKEN_TTL": "y"}, []string{"--token-ttl", "1h"},
			[]string{"DISBURSE_WORKER_INTERVAL", "DISBURSE_MAX_BODY_BYTES"}},
	} {
		_, err := serveSettings(t, tc.env, tc.args...)
		if err == nil {
			t.Errorf("%v %v: no error", tc.env, tc.args)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not name %s", tc.env, err, w)
			}
		}
		if len(tc.args) > 0 && strings.Contains(err.Error(), "DISBURSE_TOKEN_TTL") {
			t.Errorf("error %q names a variable whose flag was given", err)
		}
	}
}

func TestSettingsCheck(t *testing.T) {
	for _, args := range [][]string{
		{"--max-amount", "0.99"},
		{"--max-payments-per-request", "0"},
		{"--delivery-concurrency", "0"},
		{"--delivery-rate", "-1"},
		{"--max-payments-per-batch", "0"},
		{"--max-body-bytes", "0"},
		{"--token-ttl", "0s"},
		{"--notify-provider", "carrier-pigeon"},
		{"--tls-cert", "cert.pem"},
		{"--tls-key", "key.pem"},
		{"--trusted-proxies", "10.0.0.0/8,proxy.example"},
		{"unexpected"},
	} {
		if _, err := serveSettings(t, nil, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
