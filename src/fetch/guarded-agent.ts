/**
 * undici Agents that can only connect to addresses the SSRF guard allows. The check sits in
 * the socket's DNS lookup, so it judges the address actually connected to (no window for DNS
 * rebinding between a check and the connect) and runs again for every new connection.
 */
import dns from 'node:dns';
import type net from 'node:net';
import { Agent } from 'undici';
import { createAddressGuard, type AddressGuard } from './address-guard.js';

export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';

  constructor(readonly ip: string) {
    super(`address not allowed: ${ip}`);
    this.name = 'AddressNotAllowedError';
  }
}

export interface GuardedAgent {
  readonly agent: Agent;
  /**
   * The same guard the agent's lookup applies. Sockets skip the lookup for literal IP hosts,
   * so callers must check those themselves before each request.
   */
  readonly guard: AddressGuard;
}

// One agent per allow-list keeps connections pooled across fetches; there are only ever as
// many entries as distinct configurations, so the map needs no eviction.
const agents = new Map<string, GuardedAgent>();

export function guardedAgent(allowedCidrs: readonly string[]): GuardedAgent {
  const key = allowedCidrs.join(',');
  let entry = agents.get(key);
  if (!entry) {
    const guard = createAddressGuard(allowedCidrs);
    entry = { agent: new Agent({ connect: { lookup: guardedLookup(guard) } }), guard };
    agents.set(key, entry);
  }
  return entry;
}

/** A dns.lookup that drops refused addresses and fails when none is left. */
function guardedLookup(guard: AddressGuard): net.LookupFunction {
  return (hostname, options, callback) => {
    // Resolve all addresses whatever the caller asked for, so that one refused record does not
    // hide allowed ones (and Happy Eyeballs, which asks for all, only ever sees allowed ones).
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const usable = addresses.filter((a) => guard(a.address));
      const first = usable[0];
      if (!first) return callback(new AddressNotAllowedError(addresses[0]?.address ?? hostname), '');
      if (options.all) callback(null, usable);
      else callback(null, first.address, first.family);
    });
  };
}
