/**
 * The HTTP client of the command-line tools (npm run ingest, npm run crawl): they talk to the
 * API with an ordinary key, so they work against any deployment and go through the same
 * validation, queues and workers as any other client.
 */

/** Attempts at a request that meets a transient failure (429, 5xx, a lost connection). */
const ATTEMPTS = 5;

/** SEV_URL, or the local service on PORT (8080 unless set). */
export function apiBaseUrl(): string {
  return process.env.SEV_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
}

interface Envelope<T> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details?: unknown };
}

/** A refusal no retry will change (a bad key, a missing scope, an invalid request). */
export class ApiRefused extends Error {
  constructor(readonly code: string, message: string, readonly details?: unknown) {
    super(`${code}: ${message}`);
    this.name = 'ApiRefused';
  }
}

export class ApiClient {
  constructor(private readonly baseUrl: string, private readonly apiKey: string) {}

  /** The success envelope's data; transient failures are retried, anything else is thrown as ApiRefused. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let failure: Error;
      try {
        response = await fetch(new URL(path, this.baseUrl), {
          method,
          headers: { authorization: `Bearer ${this.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const envelope = await response.json().catch(() => ({ success: false })) as Envelope<T>;
        if (envelope.success && envelope.data) return envelope.data;
        const code = envelope.error?.code ?? `HTTP_${response.status}`;
        const message = envelope.error?.message ?? response.statusText;
        if (response.status !== 429 && response.status < 500) throw new ApiRefused(code, message, envelope.error?.details);
        failure = new Error(`${code}: ${message}`);
      } catch (error) {
        if (error instanceof ApiRefused) throw error;
        failure = error as Error;
      }
      if (attempt >= ATTEMPTS) throw failure;
      // A rate limit says when it resets; other transient failures get exponential backoff.
      const retryAfter = Number(response?.headers.get('retry-after'));
      await new Promise((resolve) => setTimeout(resolve, retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt));
    }
  }
}
