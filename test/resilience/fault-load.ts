import type { IncomingMessage, ServerResponse } from 'node:http';
import { startPageServer, type PageServer } from '../helpers/page-server.js';

/**
 * The traffic the fault tests run while they stop, kill and restart things: every kind of
 * request a dependency outage reaches (waited jobs, the result cache in Redis, reads of MySQL at
 * the edge, authentication), sent by a few closed-loop clients with one account's key, each
 * answer recorded with its timing, status and request id, so that a test can check every one
 * against its time limit and find each in the audit log afterwards.
 */
export type Kind = 'search' | 'search-cached' | 'extract' | 'cache-store' | 'cache-query' | 'whoami' | 'usage';

/** The order each client sends its kinds of request in; uncached search, the cheapest waited job, twice, so the queue is busy when the fault comes. */
const CYCLE: Kind[] = ['search', 'extract', 'cache-store', 'search-cached', 'whoami', 'cache-query', 'search', 'usage'];

/** Kinds whose requests the quotas count (the search, extract and cache scopes). */
export const METERED: ReadonlySet<Kind> = new Set(['search', 'search-cached', 'extract', 'cache-store', 'cache-query']);

/** Each kind's documented time limit in ms (options.timeout, and for extract the 10 s of processing after it); none for the others. */
const SEARCH_TIMEOUT_S = 3;
const EXTRACT_TIMEOUT_S = 2;
export const TIME_LIMIT_MS: Partial<Record<Kind, number>> = {
  search: SEARCH_TIMEOUT_S * 1000,
  'search-cached': SEARCH_TIMEOUT_S * 1000,
  extract: (EXTRACT_TIMEOUT_S + 10) * 1000,
};

/** A query the indexed corpus answers, and the cache entry stored before the load starts. */
export const TOPIC = 'lithium battery';
export const STORED_QUERY = 'fault suite fixed entry';

export interface Outcome {
  kind: Kind;
  /** Date.now() when sent and when answered (or given up on). */
  sentAt: number;
  answeredAt: number;
  /** null: no answer at all (a dropped connection, or nothing within a minute). */
  status: number | null;
  code?: string;
  estimatedRecovery?: string;
  requestId?: string;
  /** The quotas counted it: the answer carries the key's rate-limit window, which the metering stage sets once it has counted the request. */
  counted: boolean;
  /** A 2xx whose body is what this request asked for. */
  correct: boolean;
  failure?: string;
}

/** Pages for extraction: `/page/<n>`, each a short article that says its own number. */
export async function startArticleSite(pages: number): Promise<PageServer> {
  const page = (req: IncomingMessage, res: ServerResponse) => {
    const n = (req.url ?? '').split('/').pop();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Article ${n}</title></head><body><nav><a href="/">Home</a></nav>`
      + `<article><h1>Article number ${n}</h1><p>This is article ${n} about lithium batteries, their anodes and cathodes, `
      + 'their charge cycles and how solid electrolytes change their safety.</p><p>It is served by the fault suite, which counts '
      + 'every time a page is read.</p></article><footer>footer</footer></body></html>');
  };
  const routes: Record<string, typeof page> = {};
  for (let i = 0; i < pages; i++) routes[`/page/${i}`] = page;
  return startPageServer(routes);
}

/** Documents for the searches to find, indexed with the given key before the load starts. */
export function corpus(): Array<{ url: string; title: string; content: string }> {
  return Array.from({ length: 20 }, (_, i) => ({
    url: `https://docs.example.org/faults/${i}`,
    title: `Lithium battery note ${i}`,
    content: `Note ${i}: a lithium battery stores charge in its anode and releases it through the cathode; `
      + `solid electrolytes make lithium battery cells safer at high temperatures, and cycle ${i} of the test measured it.`,
  }));
}

export class FaultLoad {
  readonly outcomes: Outcome[] = [];
  private running = false;
  private clients: Promise<void>[] = [];
  private counter = 0;

  constructor(
    private url: string,
    private readonly key: string,
    private readonly site: string,
    private readonly pages: number,
  ) {}

  start(clients: number): void {
    this.running = true;
    this.clients = Array.from({ length: clients }, (_, i) => this.client(i));
  }

  /** Stops sending and resolves once every request sent is answered (or given up on). */
  async stop(): Promise<Outcome[]> {
    this.running = false;
    await Promise.all(this.clients);
    return this.outcomes;
  }

  /** Sends to another process of the deployment from now on (the one it sent to was killed). */
  retarget(url: string): void {
    this.url = url;
  }

  /** One request of `kind`, recorded with the others. */
  async sendOne(kind: Kind): Promise<Outcome> {
    const outcome = await this.send(kind);
    this.outcomes.push(outcome);
    return outcome;
  }

  private async client(offset: number): Promise<void> {
    for (let i = offset; this.running; i++) this.outcomes.push(await this.send(CYCLE[i % CYCLE.length]!));
  }

  private request(kind: Kind, n: number): { method: string; path: string; body?: unknown } {
    switch (kind) {
      case 'search': return { method: 'POST', path: '/v1/search', body: { query: `${TOPIC} ${n}`, options: { timeout: SEARCH_TIMEOUT_S, enable_cache: false } } };
      case 'search-cached': return { method: 'POST', path: '/v1/search', body: { query: `${TOPIC} cathode`, options: { timeout: SEARCH_TIMEOUT_S } } };
      case 'extract': return { method: 'POST', path: '/v1/extract', body: { url: `${this.site}/page/${n % this.pages}`, options: { timeout: EXTRACT_TIMEOUT_S } } };
      case 'cache-store': return { method: 'POST', path: '/v1/cache/store', body: { query: `fault entry ${n % 50}`, content: { n }, ttl: 3600 } };
      case 'cache-query': return { method: 'GET', path: `/v1/cache/query?q=${encodeURIComponent(STORED_QUERY)}` };
      case 'whoami': return { method: 'GET', path: '/v1/auth/whoami' };
      case 'usage': return { method: 'GET', path: '/v1/usage?period=day' };
    }
  }

  private async send(kind: Kind): Promise<Outcome> {
    const n = this.counter++;
    const { method, path, body } = this.request(kind, n);
    const sentAt = Date.now();
    try {
      const res = await fetch(`${this.url}${path}`, {
        method,
        signal: AbortSignal.timeout(60_000),
        headers: { authorization: `Bearer ${this.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json().catch(() => undefined)) as any;
      const outcome: Outcome = {
        kind, sentAt, answeredAt: Date.now(), status: res.status, requestId: res.headers.get('x-request-id') ?? undefined,
        counted: METERED.has(kind) && res.headers.has('x-ratelimit-limit'), correct: res.ok && isCorrect(kind, n % this.pages, json),
      };
      if (json?.error) {
        outcome.code = json.error.code;
        outcome.estimatedRecovery = json.error.details?.estimated_recovery;
      }
      return outcome;
    } catch (error) {
      return { kind, sentAt, answeredAt: Date.now(), status: null, counted: false, correct: false, failure: String((error as Error).cause ?? error) };
    }
  }
}

function isCorrect(kind: Kind, page: number, json: any): boolean {
  const data = json?.data;
  switch (kind) {
    case 'search':
    case 'search-cached': return Array.isArray(data?.sources) && data.sources.length > 0;
    case 'extract': return typeof data?.content === 'string' && data.content.includes(`This is article ${page} about`);
    case 'cache-store': return typeof data?.replaced === 'boolean';
    case 'cache-query': return data?.content?.fixed === true;
    case 'whoami': return typeof data?.key_id === 'string';
    case 'usage': return typeof data?.current_period === 'object';
  }
}
