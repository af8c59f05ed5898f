package webhooks_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
)

// specialAddrs holds an address of each IANA special-purpose block an
// endpoint must not reach, and of each IPv6 form that carries an IPv4
// address, with the block it stands for.
var specialAddrs = []struct{ addr, block string }{
	{"64:ff9b::7f00:1", "NAT64 64:ff9b::/96 carrying 127.0.0.1"},
	{"64:ff9b::a00:1", "NAT64 carrying 10.0.0.1"},
	{"64:ff9b:1::7f00:1", "local-use NAT64 64:ff9b:1::/48"},
	{"64:ff9b:1::808:808", "local-use NAT64 64:ff9b:1::/48, whatever it carries"},
	{"2002:7f00:1::1", "6to4 2002::/16 carrying 127.0.0.1"},
	{"2002:808:808::1", "6to4 2002::/16, whatever it carries"},
	{"::127.0.0.1", "IPv4-compatible ::/96"},
	{"::8.8.8.8", "IPv4-compatible ::/96, whatever it carries"},
	{"::ffff:127.0.0.1", "IPv4-mapped ::ffff:0:0/96 carrying loopback"},
	{"::ffff:10.0.0.1", "IPv4-mapped carrying private use"},
	{"fec0::1", "site-local fec0::/10"},
	{"fc00::1", "unique local fc00::/7"},
	{"fe80::1", "link-local fe80::/10"},
	{"::1", "loopback ::1/128"},
	{"::", "unspecified ::/128"},
	{"ff02::1", "multicast ff00::/8"},
	{"100::1", "discard-only 100::/64"},
	{"2001::1", "Teredo 2001::/32"},
	{"2001:2::1", "benchmarking 2001:2::/48"},
	{"2001:db8::1", "documentation 2001:db8::/32"},
	{"3fff::1", "documentation 3fff::/20"},
	{"0.1.2.3", `"this network" 0.0.0.0/8`},
	{"0.0.0.0", "this host 0.0.0.0/32"},
	{"10.1.2.3", "private use 10.0.0.0/8"},
	{"172.16.0.1", "private use 172.16.0.0/12"},
	{"192.168.1.1", "private use 192.168.0.0/16"},
	{"100.64.0.1", "shared address space 100.64.0.0/10"},
	{"127.0.0.1", "loopback 127.0.0.0/8"},
	{"169.254.169.254", "link local 169.254.0.0/16"},
	{"192.0.0.1", "IETF protocol assignments 192.0.0.0/24"},
	{"192.0.2.1", "documentation 192.0.2.0/24"},
	{"192.88.99.1", "6to4 relay anycast 192.88.99.0/24"},
	{"198.18.0.1", "benchmarking 198.18.0.0/15"},
	{"198.51.100.1", "documentation 198.51.100.0/24"},
	{"203.0.113.9", "documentation 203.0.113.0/24"},
	{"240.0.0.1", "reserved 240.0.0.0/4"},
	{"255.255.255.255", "limited broadcast 255.255.255.255/32"},
	{"224.0.0.1", "multicast 224.0.0.0/4"},
}

// publicAddrs are public addresses, in each form that may carry one.
var publicAddrs = []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"}

// errStored is what the fake store answers: the URL passed every check.
var errStored = errors.New("stored")

type fakeStore struct{}

func (fakeStore) Write(context.Context, func(webhooks.Tx) error) error { return errStored }
func (fakeStore) Read(context.Context, func(webhooks.Tx) error) error  { return errStored }

// TestSpecialPurposeAddresses: an address of any special-purpose block is
// refused when the endpoint is registered, as a literal and as what its
// host name resolves to; and at the moment of sending, on the address
// dialled, whatever the name resolved to at registration (DNS rebinding).
// A public address passes, in each form.
func TestSpecialPurposeAddresses(t *testing.T) {
	var resolved netip.Addr
	hooks := &webhooks.Service{Store: fakeStore{}, Clock: time.Now, Config: webhooks.Config{
		LookupHost: func(context.Context, string) ([]netip.Addr, error) { return []netip.Addr{resolved}, nil },
	}}
	register := func(url string) error {
		_, err := hooks.Create(t.Context(), disburse.NewID(), webhooks.Input{URL: url})
		return err
	}
	sender := notify.NewWebhook(false)
	for _, c := range specialAddrs {
		a := netip.MustParseAddr(c.addr)
		if webhooks.PublicAddr(a) {
			t.Errorf("PublicAddr(%s) = true: %s", c.addr, c.block)
		}
		literal := "https://" + netip.AddrPortFrom(a, 443).String() + "/hook"
		if err := register(literal); disburse.ErrorCode(err) != disburse.CodeInvalid {
			t.Errorf("registering %s (%s): %v, want refused", literal, c.block, err)
		}
		resolved = a
		if err := register("https://receiver.example/hook"); disburse.ErrorCode(err) != disburse.CodeInvalid {
			t.Errorf("registering a name that resolves to %s (%s): %v, want refused", c.addr, c.block, err)
		}
		msg := webhooks.Message{ID: disburse.NewID(), URL: literal, Timestamp: time.Now(), Body: []byte(`{}`)}
		if _, err := sender.Send(t.Context(), msg); !errors.Is(err, notify.ErrPrivateAddress) {
			t.Errorf("sending to %s (%s): %v, want refused before connecting", c.addr, c.block, err)
		}
	}
	for _, addr := range publicAddrs {
		a := netip.MustParseAddr(addr)
		if !webhooks.PublicAddr(a) {
			t.Errorf("PublicAddr(%s) = false, want true", addr)
		}
		resolved = a
		if err := register("https://receiver.example/hook"); !errors.Is(err, errStored) {
			t.Errorf("registering a name that resolves to %s: %v, want accepted", addr, err)
		}
	}
}
