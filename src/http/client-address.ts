import ipaddr from 'ipaddr.js';

/**
 * The client's address and the scheme it used. X-Forwarded-For and X-Forwarded-Proto are
 * believed only when the direct peer is a configured trusted proxy; anyone else could forge
 * them to dodge an allowlist or the HTTPS requirement.
 */
export interface ClientAddress {
  ip: string;
  protocol: 'http' | 'https';
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

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

export function resolveClientAddress(
  socketIp: string,
  socketEncrypted: boolean,
  headers: { forwardedFor?: string; forwardedProto?: string },
  trusted: readonly Range[],
): ClientAddress {
  let ip = normaliseIp(socketIp);
  let protocol: ClientAddress['protocol'] = socketEncrypted ? 'https' : 'http';
  if (trusted.length === 0 || !inRanges(ip, trusted)) return { ip, protocol };

  // Walk X-Forwarded-For from the right, skipping our own proxies: the first untrusted hop is the client.
  const hops = (headers.forwardedFor ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  while (hops.length > 0) {
    const hop = normaliseIp(hops.pop()!);
    ip = hop;
    if (!inRanges(hop, trusted)) break;
  }
  // The last value is the one our nearest trusted proxy wrote; earlier ones may come from the client.
  const proto = headers.forwardedProto?.split(',').pop()?.trim().toLowerCase();
  if (proto === 'https' || proto === 'http') protocol = proto;
  return { ip, protocol };
}
