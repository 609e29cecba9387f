/**
 * SSRF guard: decides whether the service may open a connection to an IP address.
 * Only public unicast addresses pass, unless the address lies in a CIDR the operator
 * allowed explicitly (tests and private deployments allow e.g. 127.0.0.0/8).
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** True when the address may be connected to. */
export type AddressGuard = (ip: string) => boolean;

// Every IANA global-unicast allocation lies in 2000::/3; anything else ipaddr calls 'unicast'
// (e.g. the deprecated IPv4-compatible ::a.b.c.d) is unassigned, so refusing it costs nothing.
const IPV6_GLOBAL_UNICAST: Cidr = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN: Cidr = ipaddr.parseCIDR('64:ff9b::/96');

/** @throws Error when a CIDR is malformed: a configuration mistake must stop the start-up. */
export function createAddressGuard(allowedCidrs: readonly string[]): AddressGuard {
  const allowed = allowedCidrs.map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr);
    } catch {
      throw new Error(`invalid CIDR in the fetch allow-list: ${cidr}`);
    }
  });
  return (ip) => {
    const address = parseAddress(ip);
    if (!address) return false;
    // The embedded IPv4 of a mapped or translated address is where the packets end up,
    // so it is judged by the IPv4 rules (::ffff:127.0.0.1 is loopback).
    const target = embeddedIPv4(address) ?? address;
    if (inAny(address, allowed) || inAny(target, allowed)) return true;
    return isPublicUnicast(target);
  };
}

function parseAddress(ip: string): Address | undefined {
  // Strip brackets and a zone id: neither changes which host the address names.
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  // isValid alone would accept shorthand forms such as '127.1'; resolvers and sockets hand us
  // canonical text, so anything else is suspicious and refused.
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return undefined;
  return ipaddr.parse(bare);
}

/** The IPv4 address a mapped (::ffff:0:0/96), SIIT (::ffff:0:0:0/96), NAT64 or 6to4 address reaches. */
function embeddedIPv4(address: Address): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const v6 = address as ipaddr.IPv6;
  const bytes = v6.toByteArray();
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return new ipaddr.IPv4(bytes.slice(12, 16));
    case 'rfc6052':
      // 64:ff9b::/96 carries the address in the last 32 bits; the local-use 64:ff9b:1::/48
      // may use another layout, so it yields nothing and stays refused.
      return v6.match(NAT64_WELL_KNOWN) ? new ipaddr.IPv4(bytes.slice(12, 16)) : undefined;
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return undefined;
  }
}

function inAny(address: Address, cidrs: readonly Cidr[]): boolean {
  // match() throws when the families differ, hence the kind filter.
  return cidrs.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

function isPublicUnicast(address: Address): boolean {
  if (address.range() !== 'unicast') return false;
  return address.kind() === 'ipv4' || address.match(IPV6_GLOBAL_UNICAST);
}
