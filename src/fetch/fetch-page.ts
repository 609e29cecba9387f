/**
 * The one way workers fetch web pages: http(s) only, SSRF-guarded on every hop, redirects
 * followed by hand, a few requests per host at a time, robots.txt obeyed on request, one
 * deadline for the whole fetch, a cap on the decompressed size, bot-protection interstitials
 * and content we cannot extract from refused.
 */
import type { LimitFunction } from 'p-limit';
import { parseContentType } from './content-type.js';
import { classifyContent, classifyMime, type ContentKind } from './content-kind.js';
import { detectChallenge, INTERSTITIAL_STATUSES } from './challenge.js';
import { FetchError, toFetchError, unreachable } from './fetch-errors.js';
import { createFetchSignal } from './fetch-signal.js';
import { guardedRequest, parseHttpUrl, type HopResponse } from './guarded-request.js';
import { DEFAULT_PER_HOST_CONCURRENCY } from './host-limit.js';
import { discardBody, readBody, readBodyPrefix, tooLarge } from './read-body.js';
import { checkRobots } from './robots.js';

export interface FetchOptions {
  /** Covers every hop: robots.txt, waiting for a host slot, connect, headers and body. */
  timeoutMs: number;
  /** Limit on the decompressed body. */
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  /** Non-public ranges the fetcher may nevertheless reach (tests, private deployments). */
  allowedCidrs: readonly string[];
  /** Requests in flight to one host name from this process; default DEFAULT_PER_HOST_CONCURRENCY. */
  perHostConcurrency?: number;
  /** Obey robots.txt for the URL and for every redirect target; default false. */
  respectRobots?: boolean;
  /** The process-wide cap on requests in flight (FETCH_CONCURRENCY), taken inside the host's slot. */
  processSlots?: LimitFunction;
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
  /** How to extract from the body: decided by the media type, or sniffed when that says nothing. */
  kind: ContentKind;
  /** The charset parameter of Content-Type, lower case. */
  charset?: string;
  /** Response headers, names in lower case, repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL a redirect led to, in order; the last one is finalUrl. */
  redirects: string[];
}

const ACCEPT = 'text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5';
// Interstitials are small and carry their markers near the top; reading more of an error page
// would only cost time.
const CHALLENGE_WINDOW_BYTES = 64 * 1024;

/**
 * @throws FetchError (see FetchErrorKind): invalid-url; unreachable, with httpStatus when the
 *   server answered with an error; disallowed by robots.txt; blocked by an interstitial
 *   ("blocked: …"); not-a-page; too-large; undecodable. The reason of options.signal when the
 *   caller cancels.
 */
export async function fetchPage(url: string, options: FetchOptions): Promise<FetchedPage> {
  const start = parseHttpUrl(url);
  if (!start) throw new FetchError('invalid-url', 'not an absolute http(s) URL', { url });
  const fetchSignal = createFetchSignal(options.timeoutMs, options.signal);
  const { signal } = fetchSignal;
  const perHostConcurrency = options.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY;
  const robots = { userAgent: options.userAgent, allowedCidrs: options.allowedCidrs, perHostConcurrency, signal };
  try {
    const { value, finalUrl, redirects } = await guardedRequest(
      start,
      url,
      {
        userAgent: options.userAgent,
        accept: ACCEPT,
        maxRedirects: options.maxRedirects,
        allowedCidrs: options.allowedCidrs,
        perHostConcurrency,
        ...(options.processSlots ? { processSlots: options.processSlots } : {}),
        signal,
        ...(options.respectRobots ? { beforeHop: (target: URL) => checkRobots(target, url, robots) } : {}),
      },
      (response) => readPage(response, url, options.maxBytes, signal),
    );
    return { url, finalUrl, redirects, ...value };
  } catch (error) {
    throw toFetchError(error, { url, timeoutMs: options.timeoutMs, timedOut: fetchSignal.timedOut, callerSignal: options.signal });
  } finally {
    fetchSignal.dispose();
  }
}

type PageContent = Pick<FetchedPage, 'status' | 'contentType' | 'kind' | 'charset' | 'headers' | 'body'>;

async function readPage(response: HopResponse, url: string, maxBytes: number, signal: AbortSignal): Promise<PageContent> {
  const { status, headers, body } = response;
  if (status >= 400) {
    // An interstitial is the reason the page is out of reach, which the bare status would hide.
    const blocked = detectChallenge(status, headers, await errorPageStart(response, signal));
    throw blocked ? new FetchError('blocked', blocked, { url }) : unreachable(url, `HTTP ${status}`, status);
  }
  const { mime, charset } = parseContentType(headers['content-type']);
  // Refused before the body is downloaded when the type alone decides.
  const declared = classifyMime(mime);
  if (declared?.kind === 'refused') {
    discardBody(body);
    throw new FetchError('not-a-page', declared.reason, { url });
  }
  if (Number(headers['content-length']) > maxBytes) {
    discardBody(body);
    throw tooLarge(maxBytes);
  }
  const data = await readBody(body, headers['content-encoding'], maxBytes, signal);
  const blocked = detectChallenge(status, headers, data.subarray(0, CHALLENGE_WINDOW_BYTES).toString('latin1'));
  if (blocked) throw new FetchError('blocked', blocked, { url });
  const content = classifyContent(mime, data);
  if (content.kind === 'refused') throw new FetchError('not-a-page', content.reason, { url });
  return { status, contentType: mime, kind: content.kind, ...(charset === undefined ? {} : { charset }), headers: { ...headers }, body: data };
}

/** The start of an error page when interstitials use its status; '' when unread or unreadable. */
async function errorPageStart(response: HopResponse, signal: AbortSignal): Promise<string> {
  if (!INTERSTITIAL_STATUSES.has(response.status)) {
    discardBody(response.body);
    return '';
  }
  try {
    const start = await readBodyPrefix(response.body, response.headers['content-encoding'], CHALLENGE_WINDOW_BYTES, signal);
    return start.toString('latin1');
  } catch (error) {
    // A cancellation or the deadline is reported as such; any other failure only loses a hint,
    // and the fetch fails with the status as it would without the peek.
    if (signal.aborted) throw error;
    return '';
  }
}
