import { ApiError, type ErrorCode } from '../errors/catalogue.js';
import { TaskLimitError } from '../pool/pool.js';
import { tooComplexForPool } from './read-page.js';

/**
 * A source a request named that could not be read, as the client is told it: in an answer that
 * goes on with the other sources, or in the details of the error when none could be read.
 */
export interface ReadFailure {
  /** The URL (or domain) as the request gave it. */
  source: string;
  /** The error code reading it alone would have given (POST /v1/extract's, for a page). */
  code: ErrorCode;
  /** Why, for people: "HTTP 404", "connection refused", "timed out after 5s", "no main content found". */
  reason: string;
  /** The status of the response that ended the fetch, for an HTTP error status. */
  http_status?: number;
}

/**
 * A failed read of `source`: the page reader throws the error extraction would answer
 * (fetch-failure.ts maps the fetcher's failures), whose code, reason and HTTP status are kept;
 * the pool's time and memory limits are the page's fault, as extraction reports them.
 */
export function readFailure(source: string, error: unknown): ReadFailure {
  if (error instanceof ApiError) {
    const details = error.details ?? {};
    const status = details.http_status;
    return {
      source,
      code: error.code,
      reason: typeof details.reason === 'string' ? details.reason : error.message,
      ...(typeof status === 'number' ? { http_status: status } : {}),
    };
  }
  if (error instanceof TaskLimitError) return { source, code: 'EXTRACTION_FAILED', reason: tooComplexForPool(error) };
  // A bug, not the page: its internals are not the client's to see.
  return { source, code: 'INTERNAL_SERVER_ERROR', reason: 'unexpected error while reading the source' };
}

/** Failed sources the message of INSUFFICIENT_SOURCES names (details.failed_sources lists them all). */
const NAMED_IN_MESSAGE = 5;

/**
 * No source could be read: one readable source is enough, so this is about sources that failed
 * (each named with its code and reason), or, with none failed, `nothingFound`.
 */
export function insufficientSources(failed: readonly ReadFailure[], nothingFound: string): ApiError {
  const named = failed.slice(0, NAMED_IN_MESSAGE).map((f) => `${f.source} (${f.reason})`).join('; ');
  const more = failed.length > NAMED_IN_MESSAGE ? `; and ${failed.length - NAMED_IN_MESSAGE} more` : '';
  const message = failed.length === 0 ? nothingFound
    : failed.length === 1 ? `The source could not be read: ${named}.`
      : `None of the ${failed.length} sources could be read: ${named}${more}.`;
  return new ApiError('INSUFFICIENT_SOURCES', { sources_found: 0, sources_required: 1, failed_sources: failed }, message);
}
