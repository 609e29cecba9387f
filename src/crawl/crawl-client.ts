/**
 * The client side of npm run crawl: POST /v1/crawl, GET and DELETE /v1/crawl/{id} over HTTP
 * with an ordinary key, so the command works against any deployment and goes through the same
 * validation, queue and workers as any other crawl.
 */
import type { CrawlView } from './crawl-view.js';

/** Attempts at a request that meets a transient failure (429, 5xx, a lost connection). */
const ATTEMPTS = 5;

interface Envelope {
  success: boolean;
  data?: CrawlView;
  error?: { code: string; message: string; details?: unknown };
}

/** A refusal no retry will change (a bad key, a missing scope, an invalid request). */
export class CrawlRefused extends Error {
  constructor(readonly code: string, message: string, readonly details?: unknown) {
    super(`${code}: ${message}`);
    this.name = 'CrawlRefused';
  }
}

export class CrawlClient {
  constructor(private readonly baseUrl: string, private readonly apiKey: string) {}

  start(body: Record<string, unknown>): Promise<CrawlView> {
    return this.request('POST', '/v1/crawl', body);
  }

  get(id: string): Promise<CrawlView> {
    return this.request('GET', `/v1/crawl/${encodeURIComponent(id)}`);
  }

  cancel(id: string): Promise<CrawlView> {
    return this.request('DELETE', `/v1/crawl/${encodeURIComponent(id)}`);
  }

  private async request(method: string, path: string, body?: unknown): Promise<CrawlView> {
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let failure: Error;
      try {
        response = await fetch(new URL(path, this.baseUrl), {
          method,
          headers: { authorization: `Bearer ${this.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const envelope = await response.json().catch(() => ({ success: false })) as Envelope;
        if (envelope.success && envelope.data) return envelope.data;
        const code = envelope.error?.code ?? `HTTP_${response.status}`;
        const message = envelope.error?.message ?? response.statusText;
        if (response.status !== 429 && response.status < 500) throw new CrawlRefused(code, message, envelope.error?.details);
        failure = new Error(`${code}: ${message}`);
      } catch (error) {
        if (error instanceof CrawlRefused) throw error;
        failure = error as Error;
      }
      if (attempt >= ATTEMPTS) throw failure;
      // A rate limit says when it resets; other transient failures get exponential backoff.
      const retryAfter = Number(response?.headers.get('retry-after'));
      await new Promise((resolve) => setTimeout(resolve, retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt));
    }
  }
}
