/**
 * A failed fetch as the client receives it: the one place FetchError kinds meet the error
 * catalogue. Extraction, deep search, validation and crawling all read pages for a client and
 * report a page they could not have in these terms (the response, sources_failed, a crawl's
 * failures), so they share this mapping rather than each deciding it.
 */
import { ApiError } from '../errors/catalogue.js';
import { FetchError } from '../fetch/fetch-errors.js';

/** Anything else (the caller's own abort reason, a bug) is returned as it is. */
export function clientError(error: FetchError): ApiError;
export function clientError(error: unknown): unknown;
export function clientError(error: unknown): unknown {
  if (!(error instanceof FetchError)) return error;
  const options = { cause: error };
  switch (error.kind) {
    case 'invalid-url':
      return new ApiError('URL_INVALID', { url: error.url, expected_format: 'absolute http:// or https:// URL' }, undefined, options);
    case 'unreachable':
      return new ApiError('URL_UNREACHABLE', {
        url: error.url, ...(error.httpStatus === undefined ? {} : { http_status: error.httpStatus }), reason: error.reason,
      }, undefined, options);
    // The page was fetched, or deliberately not, but offers nothing to extract.
    case 'disallowed':
    case 'blocked':
    case 'not-a-page':
    case 'too-large':
    case 'undecodable':
      return new ApiError('EXTRACTION_FAILED', { reason: error.reason }, undefined, options);
  }
}
