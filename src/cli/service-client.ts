/**
 * The command-line tools (npm run ingest, npm run crawl) talk to the API through the typed
 * client (clients/typescript) with an ordinary key, so they work against any deployment and go
 * through the same validation, queues and workers as any other client.
 */
import { SevClient } from '../../clients/typescript/src/index.js';

/** Retries of a transient failure (429, 5xx, a lost connection): five attempts in all. */
const RETRIES = 4;

/** SEV_URL, or the local service on PORT (8080 unless set). */
export function apiBaseUrl(): string {
  return process.env.SEV_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
}

export function serviceClient(baseUrl: string, apiKey: string): SevClient {
  return new SevClient({ baseUrl, apiKey, retries: RETRIES });
}
