package webhooks

import (
	"net/netip"

	"code.dny.dev/ssrf"
)

// special is the IANA special-purpose address registries for IPv4 and
// IPv6, kept by code.dny.dev/ssrf, which regenerates its tables from the
// registries: every IPv4 special-purpose block (private use, loopback,
// "this network", shared address space, IETF protocol assignments,
// benchmarking, documentation, reserved, multicast) and every IPv6
// address outside global unicast (2000::/3) or in a special-purpose block
// inside it (6to4, Teredo and the other IETF assignments, documentation).
// Any port: an endpoint may listen where it likes.
var special = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())

// nat64 is the well-known NAT64 prefix (RFC 6052): a translator turns an
// address in it into the IPv4 address in its last 32 bits, so the address
// is as public as that IPv4 address is. The local-use prefix 64:ff9b:1::/48
// (RFC 8215) is not globally reachable, and the registries' table refuses
// it with the rest of what lies outside global unicast.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// PublicAddr reports whether a is an address on the public internet: in no
// block of the IANA special-purpose registries (docs/webhooks.md,
// "Registering an endpoint"), which is where server-side request forgery aims. An IPv4
// address written as IPv6 (mapped, or behind the NAT64 prefix) is judged by
// the IPv4 address it carries; the other forms that carry one (6to4,
// IPv4-compatible, local-use NAT64) are refused whatever they carry.
func PublicAddr(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	if a.Is4In6() {
		a = a.Unmap()
	} else if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	return special.SafeAddr(a) == nil
}
