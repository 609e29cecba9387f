/**
 * The typed client of the sev API: a thin fetch wrapper over the types that openapi-typescript
 * generates from the service's OpenAPI document (schema.ts, never edited by hand). Requests and
 * answers are the document's own types; a failure is a SevError with the catalogue's code;
 * 429 and 5xx answers, and requests that never reached the service, are retried, honouring
 * Retry-After; every attempt has a time-out.
 */
import type { components, paths } from './schema.js';

export type { components, paths } from './schema.js';
/** Every schema of the API by its id: Schemas['search.request'], Schemas['search.response']... */
export type Schemas = components['schemas'];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
/** Paths that answer `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined | never ? never : P }[keyof paths];
/** The JSON body of an operation (never when it takes none). */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B
    : Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** `data` of an operation's success envelope. */
export type ResponseData<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: { 200: { content: { 'application/json': { data: infer D } } } } } ? D
    : Operation<P, M> extends { responses: { 201: { content: { 'application/json': { data: infer D } } } } } ? D : unknown;
/** The query string of an operation. */
export type QueryParams<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } } ? Q : never;
/** An error envelope's `error`. */
export type ApiErrorBody = Schemas['error.envelope']['error'];

/** Codes of failures that never reached an answer of the service. */
export type TransportErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'INVALID_RESPONSE';

/** A failed request: the service's error (its catalogue code, status and details), or the transport's. */
export class SevError extends Error {
  /** The catalogue's code (INVALID_API_KEY, RATE_LIMITED...), or a TransportErrorCode. */
  readonly code: string;
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /** Whether the same request may succeed later: 429, 5xx, time-outs and lost connections. */
  readonly retryable: boolean;
  readonly suggestion: string | undefined;
  readonly requestId: string | undefined;

  constructor(init: { code: string; message: string; status: number; details?: Record<string, unknown> | undefined; suggestion?: string | undefined; requestId?: string | undefined; cause?: unknown }) {
    super(`${init.code}: ${init.message}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SevError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details;
    this.suggestion = init.suggestion;
    this.requestId = init.requestId;
    this.retryable = init.status === 429 || init.status >= 500 || init.code.endsWith('_TIMEOUT') || init.code === 'TIMEOUT' || init.code === 'NETWORK_ERROR';
  }
}

export interface SevClientOptions {
  /** The service's origin, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Longest wait for one attempt (ms); default 60,000 (the API's own limits are at most 60 s). */
  timeoutMs?: number;
  /** Retries of a 429, a 5xx or a request that never reached the service; default 3. */
  retries?: number;
  /** Longest wait before a retry (ms), whatever Retry-After says; default 60,000. */
  maxRetryDelayMs?: number;
  /** Headers sent with every request (after the key's). */
  headers?: Record<string, string>;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
}

export interface RequestOptions<Q> {
  query?: Q;
  /** Values of the path's {name} parameters. */
  path?: Record<string, string>;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_RETRIES = 3;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;
const BACKOFF_BASE_MS = 500;

export class SevClient {
  private readonly options: Required<Omit<SevClientOptions, 'headers'>> & { headers: Record<string, string> };

  constructor(options: SevClientOptions) {
    this.options = {
      timeoutMs: DEFAULT_TIMEOUT_MS, retries: DEFAULT_RETRIES, maxRetryDelayMs: DEFAULT_MAX_RETRY_DELAY_MS, fetch: globalThis.fetch, headers: {}, ...options,
    };
  }

  /** Any operation of the document, typed by its path and method. */
  async request<M extends Method, P extends PathsWith<M>>(
    method: M, path: P, body?: RequestBody<P, M>, options: RequestOptions<QueryParams<P, M>> = {},
  ): Promise<ResponseData<P, M>> {
    const url = new URL(fillPath(path as string, options.path), this.options.baseUrl);
    for (const [name, value] of Object.entries((options.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json', ...this.options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const init = { method: method.toUpperCase(), headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
    for (let attempt = 0; ; attempt++) {
      let failure: SevError;
      let retryAfterMs: number | undefined;
      try {
        return await this.attempt<ResponseData<P, M>>(url, init, options.signal);
      } catch (error) {
        if (!(error instanceof Attempt)) throw error;
        failure = error.failure;
        retryAfterMs = error.retryAfterMs;
      }
      // A time-out may have run on the service: it is retryable, but left to the caller.
      if (!failure.retryable || failure.code === 'TIMEOUT' || attempt >= this.options.retries) throw failure;
      await sleep(Math.min(this.options.maxRetryDelayMs, retryAfterMs ?? backoff(attempt)), options.signal);
    }
  }

  search(body: Schemas['search.request']): Promise<Schemas['search.response']> {
    return this.request('post', '/v1/search', body);
  }

  extract(body: Schemas['extract.request']): Promise<Schemas['extract.response']> {
    return this.request('post', '/v1/extract', body);
  }

  summarize(body: Schemas['summarize.request']): Promise<Schemas['summarize.response']> {
    return this.request('post', '/v1/summarize', body);
  }

  validate(body: Schemas['validate.request']): Promise<Schemas['validate.response']> {
    return this.request('post', '/v1/validate', body);
  }

  indexDocuments(body: Schemas['index-documents.request']): Promise<Schemas['index-documents.response']> {
    return this.request('post', '/v1/index/documents', body);
  }

  indexJob(id: string): Promise<Schemas['index-job.response']> {
    return this.request('get', '/v1/index/jobs/{id}', undefined, { path: { id } });
  }

  startCrawl(body: Schemas['crawl-create.request']): Promise<Schemas['crawl-job.response']> {
    return this.request('post', '/v1/crawl', body);
  }

  crawl(id: string): Promise<Schemas['crawl-job.response']> {
    return this.request('get', '/v1/crawl/{id}', undefined, { path: { id } });
  }

  cancelCrawl(id: string): Promise<Schemas['crawl-job.response']> {
    return this.request('delete', '/v1/crawl/{id}', undefined, { path: { id } });
  }

  whoami(): Promise<Schemas['whoami.response']> {
    return this.request('get', '/v1/auth/whoami');
  }

  private async attempt<T>(url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<T> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await this.options.fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw error;
      const timedOut = timeout.aborted;
      throw new Attempt(new SevError({
        code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
        message: timedOut ? `no answer within ${this.options.timeoutMs} ms` : `the request did not reach the service: ${(error as Error).message}`,
        status: 0,
        cause: error,
      }));
    }
    let envelope: { success?: boolean; data?: T; error?: ApiErrorBody; request_id?: string } | undefined;
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      envelope = undefined;
    }
    if (response.ok && envelope?.success === true) return envelope.data as T;
    const error = envelope?.error;
    throw new Attempt(new SevError({
      code: error?.code ?? (response.ok ? 'INVALID_RESPONSE' : `HTTP_${response.status}`),
      message: error?.message ?? (response.ok ? 'the answer is not a success envelope' : response.statusText),
      status: response.status,
      details: error?.details as Record<string, unknown> | undefined,
      suggestion: error?.suggestion,
      requestId: envelope?.request_id ?? response.headers.get('x-request-id') ?? undefined,
    }), retryAfter(response.headers.get('retry-after')));
  }
}

/** One attempt's failure, with how long the service asked to wait. */
class Attempt extends Error {
  constructor(readonly failure: SevError, readonly retryAfterMs?: number) {
    super(failure.message);
  }
}

function fillPath(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** 500 ms, 1 s, 2 s... with up to a quarter less at random, so clients refused together do not return together. */
function backoff(attempt: number): number {
  const base = BACKOFF_BASE_MS * 2 ** attempt;
  return base - Math.random() * base * 0.25;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
