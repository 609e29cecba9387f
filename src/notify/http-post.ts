/**
 * One POST of a notification (webhook, Slack) through the same SSRF guard as page fetches: the
 * guarded undici agent judges every address actually connected to, and literal IP hosts are
 * judged here (sockets skip the lookup for those). Redirects are not followed: a 3xx is a
 * failed try, so a receiver cannot bounce a signed request to another address. At most
 * RESPONSE_PREFIX_BYTES of the answer are read, for the delivery log.
 */
import net from 'node:net';
import { request } from 'undici';
import { createAddressGuard } from '../fetch/address-guard.js';
import { AddressNotAllowedError, guardedAgent } from '../fetch/guarded-agent.js';
import { toFetchError, FetchError } from '../fetch/fetch-errors.js';
import { parseHttpUrl } from '../fetch/guarded-request.js';
import { discardBody, readBodyPrefix } from '../fetch/read-body.js';

const RESPONSE_PREFIX_BYTES = 4096;
const LOGGED_BODY_CHARS = 200;

/** The outcome of one try of one delivery. */
export type AttemptResult =
  | { ok: true; statusCode: number | null; note?: string }
  /** permanent: trying again cannot help (an address the guard refuses, 410 Gone, a broken target); the delivery is dead at once. */
  | { ok: false; permanent: boolean; statusCode: number | null; error: string };

export interface PostOptions {
  /** Non-public ranges that may nevertheless be reached (FETCH_ALLOW_PRIVATE). */
  allowedCidrs: readonly string[];
  timeoutMs: number;
}

/**
 * Why a destination URL would be refused before anything is sent, or undefined when it may be
 * tried: not an http(s) URL, or a host that is a literal address (or localhost) outside the
 * public ranges and FETCH_ALLOW_PRIVATE. For checks when an alert is saved; a host name that
 * resolves to a refused address is only found out when a delivery connects (and is then dead).
 */
export function destinationRefusal(url: string, allowedCidrs: readonly string[]): string | undefined {
  const parsed = parseHttpUrl(url);
  if (!parsed || parsed.hostname === '') return 'must be an absolute http:// or https:// URL';
  const guard = createAddressGuard(allowedCidrs);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (net.isIP(host) !== 0) return guard(host) ? undefined : `address not allowed: ${host} is not a public address (see FETCH_ALLOW_PRIVATE)`;
  // "localhost." is the fully qualified form of the same name; the URL parser keeps the dot.
  const name = host.replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return guard('127.0.0.1') ? undefined : `address not allowed: ${host} is a loopback name (see FETCH_ALLOW_PRIVATE)`;
  }
  return undefined;
}

/** POSTs `body` to `url`; never throws (every failure is an AttemptResult). */
export async function postNotification(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<AttemptResult> {
  const target = parseHttpUrl(url);
  if (!target) return { ok: false, permanent: true, statusCode: null, error: 'destination is not an http(s) URL' };
  const { agent, guard } = guardedAgent(options.allowedCidrs);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host) !== 0 && !guard(host)) return { ok: false, permanent: true, statusCode: null, error: `address not allowed: ${host}` };

  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await request(target, {
      dispatcher: agent,
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      body,
      signal: timeout,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const status = response.statusCode;
    if (status >= 200 && status < 300) {
      discardBody(response.body);
      return { ok: true, statusCode: status };
    }
    if (status >= 300 && status < 400) {
      discardBody(response.body);
      const location = response.headers.location;
      return { ok: false, permanent: false, statusCode: status, error: `HTTP ${status}: redirects are not followed${location ? ` (to ${String(location)})` : ''}` };
    }
    let snippet = '';
    try {
      snippet = (await readBodyPrefix(response.body, undefined, RESPONSE_PREFIX_BYTES, timeout)).toString('utf8').replace(/\s+/g, ' ').trim();
    } catch {
      // The status says enough.
    }
    const shown = snippet.length > LOGGED_BODY_CHARS ? `${snippet.slice(0, LOGGED_BODY_CHARS)}…` : snippet;
    return { ok: false, permanent: status === 410, statusCode: status, error: `HTTP ${status}${shown ? `: ${shown}` : ''}` };
  } catch (error) {
    if (refusedAddress(error)) return { ok: false, permanent: true, statusCode: null, error: (refusedAddress(error) as Error).message };
    const failure = toFetchError(error, { url, timeoutMs: options.timeoutMs, timedOut: timeout.aborted, callerSignal: undefined });
    const reason = failure instanceof FetchError ? failure.reason : failure instanceof Error ? failure.message : String(failure);
    return { ok: false, permanent: false, statusCode: null, error: reason };
  }
}

function refusedAddress(error: unknown, depth = 0): AddressNotAllowedError | undefined {
  if (!(error instanceof Error) || depth > 5) return undefined;
  if (error instanceof AddressNotAllowedError) return error;
  const nested = error instanceof AggregateError ? [...(error.errors as unknown[]), error.cause] : [error.cause];
  for (const inner of nested) {
    const found = refusedAddress(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}
