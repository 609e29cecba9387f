/**
 * The one way workers fetch web pages: http(s) only, SSRF-guarded on every hop, redirects
 * followed by hand, one deadline for the whole fetch, and a cap on the decompressed size.
 */
import net from 'node:net';
import { request, type Dispatcher } from 'undici';
import { ApiError } from '../http/errors.js';
import type { AddressGuard } from './address-guard.js';
import { parseContentType } from './content-type.js';
import { toFetchError, unreachable } from './fetch-errors.js';
import { createFetchSignal } from './fetch-signal.js';
import { guardedAgent } from './guarded-agent.js';
import { discardBody, readBody, tooLarge } from './read-body.js';

export interface FetchOptions {
  /** Covers every hop: connect, headers and body. */
  timeoutMs: number;
  /** Limit on the decompressed body. */
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** Non-public ranges the fetcher may nevertheless reach (tests, private deployments). */
  allowedCidrs: readonly string[];
  /** Cancels the fetch; the fetch then rejects with this signal's reason. */
  signal?: AbortSignal;
}

export interface FetchedPage {
  /** The URL as requested. */
  url: string;
  /** The URL the body came from, after redirects (without fragment). */
  finalUrl: string;
  status: number;
  /** Media type without parameters, lower case; '' when the server sent none. */
  contentType: string;
  /** The charset parameter of Content-Type, lower case. */
  charset?: string;
  /** Response headers, names in lower case, repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL a redirect led to, in order; the last one is finalUrl. */
  redirects: string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5';

/**
 * @throws ApiError URL_INVALID, URL_UNREACHABLE or EXTRACTION_FAILED; the reason of
 *   options.signal when the caller cancels.
 */
export async function fetchPage(url: string, options: FetchOptions): Promise<FetchedPage> {
  let current = parseHttpUrl(url);
  if (!current) throw new ApiError('URL_INVALID', { url, expected_format: 'absolute http:// or https:// URL' });
  const { agent, guard } = guardedAgent(options.allowedCidrs);
  const fetchSignal = createFetchSignal(options.timeoutMs, options.signal);
  const { signal } = fetchSignal;
  const headers = { 'user-agent': options.userAgent, accept: ACCEPT, 'accept-encoding': 'gzip, deflate, br' };
  const redirects: string[] = [];
  const visited = new Set([current.href]);
  try {
    for (;;) {
      checkLiteralHost(current, guard, url);
      const response = await request(current, { dispatcher: agent, method: 'GET', headers, signal });
      const location = REDIRECT_STATUSES.has(response.statusCode) ? header(response.headers, 'location') : undefined;
      if (location !== undefined) {
        discardBody(response.body);
        const next = parseHttpUrl(location, current);
        if (!next) throw unreachable(url, 'redirect to a non-http(s) URL');
        if (redirects.length >= options.maxRedirects || visited.has(next.href)) throw unreachable(url, 'too many redirects');
        visited.add(next.href);
        redirects.push(next.href);
        current = next;
        continue;
      }
      return await readPage(response, { url, finalUrl: current.href, redirects, maxBytes: options.maxBytes, signal });
    }
  } catch (error) {
    throw toFetchError(error, { url, timeoutMs: options.timeoutMs, timedOut: fetchSignal.timedOut, callerSignal: options.signal });
  } finally {
    fetchSignal.dispose();
  }
}

interface PageContext {
  readonly url: string;
  readonly finalUrl: string;
  readonly redirects: string[];
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

async function readPage(response: Dispatcher.ResponseData, context: PageContext): Promise<FetchedPage> {
  const { statusCode: status, body } = response;
  if (status >= 400) {
    discardBody(body);
    throw unreachable(context.url, `HTTP ${status}`, status);
  }
  const declared = Number(header(response.headers, 'content-length'));
  if (declared > context.maxBytes) {
    discardBody(body);
    throw tooLarge(context.maxBytes);
  }
  const data = await readBody(body, header(response.headers, 'content-encoding'), context.maxBytes, context.signal);
  const { mime, charset } = parseContentType(header(response.headers, 'content-type'));
  return {
    url: context.url,
    finalUrl: context.finalUrl,
    status,
    contentType: mime,
    ...(charset === undefined ? {} : { charset }),
    headers: flattenHeaders(response.headers),
    body: data,
    redirects: context.redirects,
  };
}

/** The URL without its fragment (never sent to servers), or undefined unless http(s). */
function parseHttpUrl(text: string, base?: URL): URL | undefined {
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

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = header(headers, name);
    if (value !== undefined) flat[name] = value;
  }
  return flat;
}
