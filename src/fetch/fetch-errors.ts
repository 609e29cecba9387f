/**
 * What can go wrong while fetching, as one error type: a kind callers can tell apart and a
 * short reason a client can act on ("HTTP 404", "blocked by robots.txt"), rather than a stack
 * of socket internals. Which client-facing error a kind becomes is decided where pages are
 * read for a client (src/page/fetch-failure.ts): the fetcher knows no error catalogue.
 */
import { AddressNotAllowedError } from './guarded-agent.js';

/**
 * - invalid-url: not an absolute http(s) URL; nothing was requested.
 * - unreachable: no usable response: DNS, connection, TLS, the deadline, an address the SSRF
 *   guard refuses, a redirect loop or a redirect to another scheme, an HTTP error status
 *   (httpStatus), or a robots.txt that could not be had.
 * - disallowed: robots.txt forbids the URL or a redirect target; it was not requested.
 * - blocked: the server answered with a bot-protection interstitial instead of the page.
 * - not-a-page: a content type we do not read (an image, a feed, a ZIP …).
 * - too-large: the decompressed body exceeds the size limit.
 * - undecodable: a content encoding we do not support, too many of them, or a corrupt one.
 */
export type FetchErrorKind = 'invalid-url' | 'unreachable' | 'disallowed' | 'blocked' | 'not-a-page' | 'too-large' | 'undecodable';

export class FetchError extends Error {
  /** The URL the caller asked for; absent for too-large and undecodable, which readBody reports knowing no URL. */
  readonly url: string | undefined;
  /** The status of the response that ended the fetch, for an HTTP error status. */
  readonly httpStatus: number | undefined;

  constructor(
    readonly kind: FetchErrorKind,
    /** Short and for the client: what the page's owner or the caller could do something about. */
    readonly reason: string,
    where: { url?: string; httpStatus?: number } = {},
  ) {
    super(reason);
    this.name = 'FetchError';
    this.url = where.url;
    this.httpStatus = where.httpStatus;
  }
}

const REASONS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EAI_FAIL: 'DNS lookup failed',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_HEADERS_OVERFLOW: 'response headers too large',
};

export function unreachable(url: string, reason: string, httpStatus?: number): FetchError {
  return new FetchError('unreachable', reason, { url, ...(httpStatus === undefined ? {} : { httpStatus }) });
}

export function blockedByRobots(url: string): FetchError {
  return new FetchError('disallowed', 'blocked by robots.txt', { url });
}

export interface FetchContext {
  readonly url: string;
  readonly timeoutMs: number;
  readonly timedOut: boolean;
  readonly callerSignal: AbortSignal | undefined;
}

/**
 * The error to throw for a failed fetch. A cancellation by the caller is passed on as its own
 * reason (it is not the page's fault); an error without a code is a bug and is passed on as is.
 */
export function toFetchError(error: unknown, context: FetchContext): unknown {
  if (error instanceof FetchError) return error;
  if (context.callerSignal?.aborted) return context.callerSignal.reason;
  const { url } = context;
  if (context.timedOut) return unreachable(url, `timed out after ${context.timeoutMs / 1000}s`);
  const refused = findCause(error, (e) => e instanceof AddressNotAllowedError);
  if (refused) return unreachable(url, refused.message);
  const code = errorCode(error);
  if (code === undefined) return error;
  return unreachable(url, describe(code));
}

function describe(code: string): string {
  const known = REASONS[code];
  if (known) return known;
  if (code.startsWith('HPE_')) return 'invalid HTTP response';
  if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.includes('CERT')) return `TLS error: ${code}`;
  return `request failed: ${code}`;
}

function errorCode(error: unknown): string | undefined {
  const withCode = findCause(error, (e) => 'code' in e && typeof e.code === 'string');
  return withCode ? String((withCode as Error & { code: string }).code) : undefined;
}

/** Searches the error, its causes and (for Happy Eyeballs' AggregateError) its members. */
function findCause(error: unknown, test: (e: Error) => boolean, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth > 5) return undefined;
  if (test(error)) return error;
  const nested = error instanceof AggregateError ? [...(error.errors as unknown[]), error.cause] : [error.cause];
  for (const inner of nested) {
    const found = findCause(inner, test, depth + 1);
    if (found) return found;
  }
  return undefined;
}
