/**
 * A GET that follows redirects by hand: http(s) only, the SSRF guard on every hop, loops and
 * over-long chains stopped, and each hop holding one of its host's slots while it runs.
 * Both page fetches and robots.txt fetches go through here, so both obey the same rules.
 */
import net from 'node:net';
import type { Readable } from 'node:stream';
import type { LimitFunction } from 'p-limit';
import { request, type Dispatcher } from 'undici';
import type { AddressGuard } from './address-guard.js';
import { unreachable } from './fetch-errors.js';
import { guardedAgent } from './guarded-agent.js';
import { raceSignal } from './fetch-signal.js';
import { withHostSlot } from './host-limit.js';
import { discardBody } from './read-body.js';

export interface GuardedRequestOptions {
  readonly userAgent: string;
  readonly accept: string;
  readonly maxRedirects: number;
  /** Non-public ranges that may nevertheless be reached (tests, private deployments). */
  readonly allowedCidrs: readonly string[];
  readonly perHostConcurrency: number;
  /**
   * The process-wide cap on requests in flight, taken inside the host's slot: taken outside, jobs
   * queued for one busy host would hold every global slot while fetches to other hosts wait.
   */
  readonly processSlots?: LimitFunction;
  /** Aborts every hop; the request then rejects with its reason. */
  readonly signal: AbortSignal;
  /**
   * Runs before each hop, outside the host's slot: a robots.txt check fetches from the same host
   * and would otherwise wait for a slot its own caller holds.
   */
  readonly beforeHop?: (target: URL) => Promise<void>;
}

export interface HopResponse {
  readonly status: number;
  /** Names in lower case, repeated headers joined with ', '. */
  readonly headers: Readonly<Record<string, string>>;
  /** Must be read or discarded by the reader. */
  readonly body: Readable;
}

export interface GuardedResult<T> {
  readonly value: T;
  /** The URL the final response came from (without fragment). */
  readonly finalUrl: string;
  /** Every URL a redirect led to, in order. */
  readonly redirects: string[];
}

type HopOutcome<T> = { readonly done: true; readonly value: T } | { readonly done: false; readonly location: string };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * @param requestedUrl the URL the caller asked for, named in errors.
 * @param read consumes the final (non-redirect) response while the host slot is held.
 * @throws FetchError unreachable for a refused address, a non-http(s) redirect or too many
 *   redirects; whatever undici, beforeHop or read throw, for the caller to classify.
 */
export async function guardedRequest<T>(
  start: URL,
  requestedUrl: string,
  options: GuardedRequestOptions,
  read: (response: HopResponse, target: URL) => Promise<T>,
): Promise<GuardedResult<T>> {
  const { agent, guard } = guardedAgent(options.allowedCidrs);
  const { signal } = options;
  const headers = { 'user-agent': options.userAgent, accept: options.accept, 'accept-encoding': 'gzip, deflate, br' };
  const redirects: string[] = [];
  const visited = new Set([start.href]);
  let current = start;
  for (;;) {
    checkLiteralHost(current, guard, requestedUrl);
    await options.beforeHop?.(current);
    const target = current;
    const hopRequest = async (): Promise<HopOutcome<T>> => {
      const response = await request(target, { dispatcher: agent, method: 'GET', headers, signal });
      const hop = { status: response.statusCode, headers: flattenHeaders(response.headers), body: response.body };
      const location = REDIRECT_STATUSES.has(hop.status) ? hop.headers.location : undefined;
      if (location === undefined) return { done: true, value: await read(hop, target) };
      discardBody(hop.body);
      return { done: false, location };
    };
    const processSlots = options.processSlots;
    const outcome = await withHostSlot(target.hostname, options.perHostConcurrency, signal,
      processSlots ? () => raceSignal(processSlots(hopRequest), signal) : hopRequest);
    if (outcome.done) return { value: outcome.value, finalUrl: target.href, redirects };
    const next = parseHttpUrl(outcome.location, target);
    if (!next) throw unreachable(requestedUrl, 'redirect to a non-http(s) URL');
    if (redirects.length >= options.maxRedirects || visited.has(next.href)) throw unreachable(requestedUrl, 'too many redirects');
    visited.add(next.href);
    redirects.push(next.href);
    current = next;
  }
}

/** The URL without its fragment (never sent to servers), or undefined unless http(s). */
export function parseHttpUrl(text: string, base?: URL): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(text, base);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  parsed.hash = '';
  return parsed;
}

/** Sockets skip the guarded DNS lookup for IP literals, so those are judged here. */
function checkLiteralHost(target: URL, guard: AddressGuard, requestedUrl: string): void {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host) !== 0 && !guard(host)) throw unreachable(requestedUrl, `address not allowed: ${host}`);
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
