/**
 * IP addresses and CIDR ranges as trusted proxies and service-account allowlists compare them:
 * an IPv4-mapped IPv6 address counts as the IPv4 address it carries.
 */
import ipaddr from 'ipaddr.js';

export type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export function parseRanges(cidrs: readonly string[]): Range[] {
  return cidrs.map((cidr) => {
    if (cidr.includes('/')) return ipaddr.parseCIDR(cidr);
    // Peers are compared in normalised form, so a mapped entry (::ffff:10.0.0.1) is stored as IPv4.
    const address = ipaddr.parse(normaliseIp(cidr));
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

export function normaliseIp(raw: string): string {
  try {
    const address = ipaddr.parse(raw);
    // ::ffff:1.2.3.4 is how a dual-stack socket shows an IPv4 client.
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      return (address as ipaddr.IPv6).toIPv4Address().toString();
    }
    return address.toString();
  } catch {
    return raw;
  }
}

export function inRanges(ip: string, ranges: readonly Range[]): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(normaliseIp(ip));
  } catch {
    return false;
  }
  return ranges.some(([net, bits]) => address.kind() === net.kind() && address.match([net, bits] as never));
}
