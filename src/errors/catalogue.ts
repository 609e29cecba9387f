/**
 * The one error catalogue of the service: every code a client can receive, its HTTP status,
 * the fields its `details` carries, whether a retry can help, and the advice we give.
 * Section 7.3 of the interface specification, plus the codes it leaves open (404, 405, 415,
 * generic invalid parameter, HTTPS required, client address outside an allowlist, inactive key,
 * and what Node's HTTP parser refuses: malformed requests, time-outs, oversized headers).
 */

export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
  /** Fields the `details` object carries for this code (documented and tested). */
  readonly details: readonly string[];
  /** 5xx and 429 are transient (spec 7.5): a client or a worker may retry them. */
  readonly retryable: boolean;
  /** Advice; `{field}`, for a field of this code's `details`, stands for its value (see suggestionFor). */
  readonly suggestion?: string;
}

export const ERROR_CATALOGUE = {
  INVALID_API_KEY: {
    status: 401, retryable: false, details: ['reason'],
    message: 'The API key is malformed, revoked or does not exist.',
    suggestion: 'Check the key you send in Authorization: Bearer <key> or X-API-Key.',
  },
  EXPIRED_API_KEY: {
    status: 401, retryable: false, details: ['reason', 'expired_at'],
    message: 'The API key has expired.',
    suggestion: 'Create a new key or rotate this one before it expires.',
  },
  MISSING_API_KEY: {
    status: 401, retryable: false, details: [],
    message: 'No API key was sent.',
    suggestion: 'Send the key as Authorization: Bearer <key> or as X-API-Key: <key>.',
  },
  INVALID_SESSION: {
    status: 401, retryable: false, details: ['reason'],
    message: 'The console session is unknown, signed out or expired.',
    suggestion: 'Sign in again (with an API key, or through single sign-on).',
  },
  SSO_ASSERTION_INVALID: {
    status: 401, retryable: false, details: ['reason'],
    message: 'The identity provider\'s SAML response was refused.',
    suggestion: 'Sign in again from the identity provider; details.reason says what was wrong with this response.',
  },
  QUERY_REQUIRED: {
    status: 400, retryable: false, details: ['parameter', 'expected', 'provided'],
    message: 'The query parameter is required.',
  },
  QUERY_TOO_SHORT: {
    status: 400, retryable: false, details: ['min_length', 'provided_length'],
    message: 'The query must be at least 1 character long.',
  },
  QUERY_TOO_LONG: {
    status: 400, retryable: false, details: ['max_length', 'provided_length'],
    message: 'The query is longer than 500 characters.',
    suggestion: 'Shorten the query to its essential terms.',
  },
  INVALID_MAX_RESULTS: {
    status: 400, retryable: false, details: ['parameter', 'min_value', 'max_value', 'provided'],
    message: 'max_results must be an integer from 1 to 20.',
  },
  INVALID_LANGUAGE: {
    status: 400, retryable: false, details: ['parameter', 'provided', 'supported'],
    message: 'The language is not supported.',
  },
  INVALID_COUNTRY: {
    status: 400, retryable: false, details: ['parameter', 'provided', 'format'],
    message: 'The country is not an ISO 3166-1 alpha-2 code.',
  },
  INVALID_FORMAT: {
    status: 400, retryable: false, details: ['parameter', 'provided', 'supported'],
    message: 'The format is not supported.',
  },
  INVALID_PARAMETER: {
    status: 400, retryable: false, details: ['parameter', 'reason', 'provided'],
    message: 'A request parameter is invalid.',
  },
  CONTENT_TOO_LARGE: {
    status: 400, retryable: false, details: ['max_size_mb', 'provided_size_mb'],
    message: 'The request body is larger than the limit.',
    // The limit differs: MAX_BODY_MB for a request body, 1 MB for a cache entry's content.
    suggestion: 'Send at most {max_size_mb} MB.',
  },
  INVALID_JSON: {
    status: 400, retryable: false, details: ['line', 'column', 'syntax_error'],
    message: 'The request body is not valid JSON.',
  },
  MALFORMED_REQUEST: {
    status: 400, retryable: false, details: ['reason'],
    message: 'The request is not well-formed HTTP/1.1.',
    suggestion: 'Check the client or proxy that sent it: details.reason says what was refused.',
  },
  REQUEST_TIMEOUT: {
    status: 408, retryable: true, details: [],
    message: 'The request did not arrive in time.',
    suggestion: 'Send the whole request at once, or retry over a faster connection.',
  },
  HEADERS_TOO_LARGE: {
    status: 431, retryable: false, details: ['max_size_kb'],
    message: 'The request headers are larger than the limit.',
    suggestion: 'Send at most {max_size_kb} KB of headers; a long cookie or token is the usual cause.',
  },
  HTTPS_REQUIRED: {
    status: 403, retryable: false, details: ['scheme'],
    message: 'This service only accepts requests over HTTPS.',
    suggestion: 'Call the same URL with https://.',
  },
  INSUFFICIENT_PERMISSIONS: {
    status: 403, retryable: false, details: ['required_permission', 'current_plan', 'upgrade_url'],
    message: 'The API key lacks the permission this request needs.',
  },
  CSRF_TOKEN_INVALID: {
    status: 403, retryable: false, details: [],
    message: 'A change made in a console session must carry the session\'s CSRF token.',
    suggestion: 'Send the csrf_token of GET /v1/session in the X-CSRF-Token header.',
  },
  FEATURE_NOT_AVAILABLE: {
    status: 403, retryable: false, details: ['feature', 'required_plan', 'current_plan'],
    message: 'This feature is not available on the current plan.',
  },
  IP_NOT_ALLOWED: {
    status: 403, retryable: false, details: ['client_ip'],
    message: 'This key may not be used from this address.',
    suggestion: "Call from an address in the service account's ip_allowlist.",
  },
  NOT_FOUND: {
    status: 404, retryable: false, details: ['path', 'resource', 'id'],
    message: 'No such resource.',
    suggestion: 'See /v1/openapi.json for the list of endpoints.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405, retryable: false, details: ['method', 'allowed'],
    message: 'The method is not allowed on this path.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415, retryable: false, details: ['provided', 'expected'],
    message: 'Request bodies must be sent as JSON.',
    suggestion: 'Send the header Content-Type: application/json.',
  },
  RESOURCE_LIMIT_REACHED: {
    status: 422, retryable: false, details: ['resource', 'limit', 'count'],
    message: 'The caller already has as many of these as it may.',
    suggestion: 'Delete one it no longer needs (or replace one with PUT), then create the new one.',
  },
  INVITATION_INVALID: {
    status: 422, retryable: false, details: ['reason'],
    message: 'The invitation link is unknown, used already or expired.',
    suggestion: 'Ask a team admin for a new invitation.',
  },
  KEY_NOT_ACTIVE: {
    status: 422, retryable: false, details: ['key_id', 'status'],
    message: 'The key is not active.',
    suggestion: 'Create a new key instead.',
  },
  RATE_LIMITED: {
    status: 429, retryable: true, details: ['limit', 'period', 'reset_time', 'retry_after'],
    message: 'Too many requests in the current window.',
    suggestion: 'Wait for Retry-After seconds, then retry.',
  },
  TOO_MANY_CRAWLS: {
    status: 429, retryable: true, details: ['limit', 'unfinished'],
    message: 'The account already has as many unfinished crawls as it may.',
    suggestion: 'Wait for a crawl to finish, or cancel one with DELETE /v1/crawl/{id}, then start the new one.',
  },
  MONTHLY_LIMIT_EXCEEDED: {
    status: 429, retryable: true, details: ['monthly_limit', 'requests_used', 'reset_date', 'upgrade_url'],
    message: 'The monthly request quota is used up.',
  },
  NO_RESULTS_FOUND: {
    status: 422, retryable: false, details: [],
    message: 'The search found nothing relevant.',
    suggestion: 'Broaden the query or remove filters.',
  },
  SEARCH_TIMEOUT: {
    status: 422, retryable: true, details: ['timeout_seconds'],
    message: 'The search did not finish in time.',
    suggestion: 'Retry, or raise options.timeout.',
  },
  INSUFFICIENT_SOURCES: {
    status: 422, retryable: false, details: ['sources_found', 'sources_required', 'failed_sources'],
    message: 'Too few reliable sources were found.',
    suggestion: 'Check the sources in details.failed_sources (each with its code and reason), or send others; one readable source is enough.',
  },
  URL_INVALID: {
    status: 422, retryable: false, details: ['url', 'expected_format'],
    message: 'The URL is not a valid http(s) URL.',
  },
  URL_UNREACHABLE: {
    status: 422, retryable: false, details: ['url', 'http_status', 'reason'],
    message: 'The URL could not be fetched.',
  },
  EXTRACTION_FAILED: {
    status: 422, retryable: false, details: ['reason'],
    message: 'No content could be extracted from the page.',
  },
  EXTRACT_TIMEOUT: {
    status: 422, retryable: true, details: ['timeout_seconds'],
    message: 'The extraction did not finish in time.',
    suggestion: 'Retry, or raise options.timeout.',
  },
  CLAIM_TOO_VAGUE: {
    status: 422, retryable: false, details: [],
    message: 'The claim is too vague to validate.',
    suggestion: 'State one specific, checkable fact.',
  },
  VALIDATION_TIMEOUT: {
    status: 422, retryable: true, details: ['sources_checked', 'sources_pending'],
    message: 'The validation did not finish in time.',
  },
  INTERNAL_SERVER_ERROR: {
    status: 500, retryable: true, details: ['incident_id'],
    message: 'An internal error occurred.',
    suggestion: 'Retry later; quote the incident_id if you report it.',
  },
  UPSTREAM_ERROR: {
    status: 502, retryable: true, details: [],
    message: 'An upstream service failed.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503, retryable: true, details: ['estimated_recovery', 'status_page'],
    message: 'The service is temporarily unavailable.',
    suggestion: 'Retry after a short wait.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}

export type ErrorDetails = Record<string, unknown>;

/**
 * The catalogue's advice for `code`, with `{field}` for each of the code's details fields filled
 * from `details` (the limit this request broke); other braces are text (`/v1/crawl/{id}`). Where a
 * field has no value at hand (the catalogue served as documentation, advice over many errors at
 * once) it reads as `details.field`.
 */
export function suggestionFor(code: ErrorCode, details?: ErrorDetails): string | undefined {
  const spec: ErrorSpec = ERROR_CATALOGUE[code];
  return spec.suggestion?.replace(/\{(\w+)\}/g, (placeholder, field: string) => {
    if (!spec.details.includes(field)) return placeholder;
    const value = details?.[field];
    return value === undefined || value === null ? `details.${field}` : String(value);
  });
}

/** An error the client is meant to see: its code decides status, message and advice. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers (Allow on 405, Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, details?: ErrorDetails, message?: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  get retryable(): boolean {
    return ERROR_CATALOGUE[this.code].retryable;
  }

  /** The form in which an error travels through a BullMQ job's failedReason. */
  toJSON(): { code: ErrorCode; message: string; details?: ErrorDetails } {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }

  static fromJSON(text: string): ApiError | undefined {
    try {
      const value = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
      if (!isErrorCode(value.code)) return undefined;
      const details = value.details && typeof value.details === 'object' ? (value.details as ErrorDetails) : undefined;
      return new ApiError(value.code, details, typeof value.message === 'string' ? value.message : undefined);
    } catch {
      return undefined;
    }
  }
}
