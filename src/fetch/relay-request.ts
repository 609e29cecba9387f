/**
 * One request a rendered page makes, sent by this process instead of the browser: the browser
 * gets the answer through request interception (src/render/render-page.ts) and never opens a
 * connection itself. So every request of the page meets the same SSRF guard as a page fetch:
 * the guarded agent judges the address it actually connects to, a literal IP is judged before,
 * and each request holds one of its host's slots and one of the process's fetch slots.
 *
 * Unlike fetchPage it sends the browser's method, headers and body and reads any content type:
 * it relays, it does not judge pages. Redirects are followed here, each hop guarded, and the
 * browser gets the final response: Chromium does not intercept the request that follows a 3xx
 * it was handed through interception (it would go to the network by itself).
 */
import net from 'node:net';
import type { LimitFunction } from 'p-limit';
import { request, type Dispatcher } from 'undici';
import { raceSignal } from './fetch-signal.js';
import { AddressNotAllowedError, guardedAgent } from './guarded-agent.js';
import { withHostSlot } from './host-limit.js';
import { discardBody, readBody } from './read-body.js';

export interface RelayOptions {
  /** Non-public ranges that may nevertheless be reached (FETCH_ALLOW_PRIVATE). */
  readonly allowedCidrs: readonly string[];
  /** Redirects followed (FETCH_MAX_REDIRECTS). */
  readonly maxRedirects: number;
  readonly perHostConcurrency: number;
  readonly processSlots?: LimitFunction;
  /** Limit on the decompressed body. */
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

export interface RelayedRequest {
  readonly url: string;
  readonly method: string;
  /** As the browser would send them; hop-by-hop headers and the encoding offer are replaced. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer | null;
}

export interface RelayedResponse {
  /** The URL the response came from, after redirects. */
  readonly url: string;
  readonly status: number;
  /** Names in lower case; the body is decoded, so no content-encoding or length is left; cookies one a line. */
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

// Set by the connection, or describing a body encoding the relay undoes.
const DROPPED_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length', 'accept-encoding']);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'trailer', 'upgrade']);

/** A redirect that leaves http(s), or one too many. */
export class RedirectRefused extends Error {
  constructor(readonly reason: 'scheme' | 'too-many', target: string) {
    super(reason === 'scheme' ? `redirect to a non-http(s) URL: ${target}` : `too many redirects, at ${target}`);
    this.name = 'RedirectRefused';
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * @throws AddressNotAllowedError when the SSRF guard refuses the address of any hop;
 *   RedirectRefused; FetchError too-large or undecodable for the body; undici's errors and the
 *   signal's reason as they are.
 */
export async function relayRequest(relayed: RelayedRequest, options: RelayOptions): Promise<RelayedResponse> {
  let current = relayed;
  for (let redirects = 0; ; redirects++) {
    const outcome = await relayHop(current, options);
    if ('body' in outcome) return outcome;
    if (redirects >= options.maxRedirects) throw new RedirectRefused('too-many', outcome.location);
    current = nextRequest(current, outcome.location, outcome.status);
  }
}

/** The request a browser sends after a redirect to `location` (the Fetch standard's rules). */
function nextRequest(previous: RelayedRequest, location: string, status: number): RelayedRequest {
  const from = new URL(previous.url);
  const to = new URL(location, from);
  if (to.protocol !== 'http:' && to.protocol !== 'https:') throw new RedirectRefused('scheme', to.href);
  // 303 turns anything but HEAD into GET; 301 and 302 turn POST into GET; 307 and 308 keep both.
  const toGet = (status === 303 && previous.method !== 'HEAD') || ((status === 301 || status === 302) && previous.method === 'POST');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(previous.headers)) {
    const lower = name.toLowerCase();
    // Credentials are for the origin they were meant for; a body's description goes with the body.
    if (to.origin !== from.origin && (lower === 'cookie' || lower === 'authorization')) continue;
    if (toGet && (lower === 'content-type' || lower === 'content-encoding' || lower === 'content-language')) continue;
    headers[lower] = value;
  }
  return { url: to.href, method: toGet ? 'GET' : previous.method, headers, ...(toGet ? {} : { body: previous.body ?? null }) };
}

type HopOutcome = RelayedResponse | { location: string; status: number };

async function relayHop(relayed: RelayedRequest, options: RelayOptions): Promise<HopOutcome> {
  const target = new URL(relayed.url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new RedirectRefused('scheme', relayed.url);
  const { agent, guard } = guardedAgent(options.allowedCidrs);
  // Sockets skip the guarded DNS lookup for literal IPs, so those are judged here.
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(literal) !== 0 && !guard(literal)) throw new AddressNotAllowedError(literal);

  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of Object.entries(relayed.headers)) {
    if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  const { signal } = options;
  const send = async (): Promise<HopOutcome> => {
    const response = await request(target, {
      dispatcher: agent, method: relayed.method as Dispatcher.HttpMethod, headers, signal,
      ...(relayed.body && relayed.body.length > 0 ? { body: relayed.body } : {}),
    });
    const location = headerText(response.headers.location);
    if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
      discardBody(response.body);
      return { location, status: response.statusCode };
    }
    const flat = responseHeaders(response.headers);
    const body = await readBody(response.body, headerText(response.headers['content-encoding']), options.maxBytes, signal);
    return { url: relayed.url, status: response.statusCode, headers: flat, body };
  };
  const processSlots = options.processSlots;
  try {
    return await withHostSlot(target.hostname, options.perHostConcurrency, signal, processSlots ? () => raceSignal(processSlots(send), signal) : send);
  } catch (error) {
    throw refusedAddress(error) ?? error;
  }
}

/** The guard's refusal, wherever undici wrapped it (a cause, or a member of Happy Eyeballs' AggregateError). */
export function refusedAddress(error: unknown, depth = 0): AddressNotAllowedError | undefined {
  if (error instanceof AddressNotAllowedError) return error;
  if (!(error instanceof Error) || depth > 5) return undefined;
  const nested = error instanceof AggregateError ? [...(error.errors as unknown[]), error.cause] : [error.cause];
  for (const inner of nested) {
    const found = refusedAddress(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function responseHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
    // Cookies cannot be joined with commas (their dates hold some); the browser side splits on new lines.
    flat[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return flat;
}
