import { inRanges, normaliseIp, type Range } from '../net/ip-ranges.js';

/**
 * The client's address and the scheme it used. X-Forwarded-For and X-Forwarded-Proto are
 * believed only when the direct peer is a configured trusted proxy; anyone else could forge
 * them to dodge an allowlist or the HTTPS requirement.
 */
export interface ClientAddress {
  ip: string;
  protocol: 'http' | 'https';
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
