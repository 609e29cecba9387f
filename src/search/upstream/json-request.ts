/**
 * One JSON request to an upstream service the operator configured (SearXNG, a chat-completions
 * endpoint), reported as an outcome instead of thrown, with its own time-out, the caller's
 * deadline, and a cap on the response size.
 *
 * Deliberately not the shared page fetcher (src/fetch): its address guard exists because page
 * URLs come from clients, whereas these URLs come from the operator's configuration, and such
 * services usually run next to the API on a private address (a SearXNG container, a local model
 * server). Routing them through the guard would force operators to open FETCH_ALLOW_PRIVATE for
 * every client-supplied URL as well. Redirects are not followed (a 3xx is an error), so the
 * request never leaves the configured host.
 */
import { request } from 'undici';
import { createFetchSignal } from '../../fetch/fetch-signal.js';
import { FetchError } from '../../fetch/fetch-errors.js';
import { readBody } from '../../fetch/read-body.js';

export interface JsonRequestOptions {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly timeoutMs: number;
  /** The caller's deadline or cancellation; aborting it ends the request at once. */
  readonly signal: AbortSignal | undefined;
  readonly maxBytes: number;
}

export type JsonOutcome =
  /** Any status; the caller decides what a non-2xx status means. */
  | { readonly kind: 'json'; readonly status: number; readonly value: unknown }
  | { readonly kind: 'malformed'; readonly status: number; readonly detail: string }
  /** The time-out of this request ran out. */
  | { readonly kind: 'timeout'; readonly detail: string }
  /** The caller's signal aborted it. */
  | { readonly kind: 'aborted'; readonly detail: string }
  /** Transport failure: refused, reset, DNS, response too large. */
  | { readonly kind: 'error'; readonly detail: string };

/** How a call that brought no JSON failed, as adapters report it: an unreadable body counts as an error. */
export function transportFailure(response: Exclude<JsonOutcome, { kind: 'json' }>): { ok: false; reason: 'timeout' | 'aborted' | 'error'; detail: string } {
  return response.kind === 'malformed'
    ? { ok: false, reason: 'error', detail: `HTTP ${response.status}, ${response.detail}` }
    : { ok: false, reason: response.kind, detail: response.detail };
}

export async function requestJson(url: URL, options: JsonRequestOptions): Promise<JsonOutcome> {
  const deadline = createFetchSignal(options.timeoutMs, options.signal);
  const { signal } = deadline;
  try {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'gzip, deflate', ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await request(url, { method: options.method, headers, body, signal });
    const encoding = response.headers['content-encoding'];
    const bytes = await readBody(response.body, Array.isArray(encoding) ? encoding.join(', ') : encoding, options.maxBytes, signal);
    try {
      return { kind: 'json', status: response.statusCode, value: JSON.parse(bytes.toString('utf8')) as unknown };
    } catch (error) {
      return { kind: 'malformed', status: response.statusCode, detail: `response is not JSON: ${(error as Error).message}` };
    }
  } catch (error) {
    if (deadline.timedOut) return { kind: 'timeout', detail: `no answer within ${options.timeoutMs} ms` };
    if (options.signal?.aborted) return { kind: 'aborted', detail: 'the caller gave up' };
    return { kind: 'error', detail: describe(error) };
  } finally {
    deadline.dispose();
  }
}

function describe(error: unknown): string {
  // readBody reports an over-long or undecodable body as a FetchError whose reason says which.
  if (error instanceof FetchError) return error.reason;
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' ? `${error.code}: ` : '';
  return `${code}${error.message}`;
}
