/**
 * Turns what can go wrong while fetching into the client-facing errors of the catalogue,
 * with a short reason the client can act on rather than a stack of socket internals.
 */
import { ApiError } from '../errors/catalogue.js';
import { AddressNotAllowedError } from './guarded-agent.js';

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

export function unreachable(url: string, reason: string, httpStatus?: number): ApiError {
  return new ApiError('URL_UNREACHABLE', { url, ...(httpStatus === undefined ? {} : { http_status: httpStatus }), reason });
}

/** The page was fetched, or deliberately not, but offers nothing to extract. */
export function extractionFailed(reason: string): ApiError {
  return new ApiError('EXTRACTION_FAILED', { reason });
}

export function blockedByRobots(): ApiError {
  return extractionFailed('blocked by robots.txt');
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
  if (error instanceof ApiError) return error;
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
