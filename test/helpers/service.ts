import { randomUUID } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log/logger.js';
import type { Role } from '../../src/metrics/metrics.js';
import { startService } from '../../src/service.js';
import type { Clock } from '../../src/clock.js';

export const TEST_KEY = 'sev_test_master_key_0123456789abcdefghij';

export interface TestService {
  url: string;
  config: Config;
  close(): Promise<void>;
}

/** Environment of a test service: real MariaDB and Redis, its own queue namespace, a random port. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PORT: '0',
    WORKER_METRICS_PORT: '0',
    // Under mocha, prefixed with the run's name (run-scope.ts), so the run's keys are removed after it.
    QUEUE_PREFIX: `${process.env.TEST_KEY_PREFIX ?? 'test-'}${randomUUID()}`,
    MASTER_API_KEY: TEST_KEY,
    FETCH_ALLOW_PRIVATE: '127.0.0.0/8',
    LOG_LEVEL: 'silent',
    POOL_SIZE: '2',
    WORKER_HEARTBEAT_MS: '200',
    ...overrides,
  };
  for (const name of ['DATABASE_URL', 'REDIS_URL']) {
    const value = process.env[name];
    if (value && !(name in overrides)) env[name] = value;
  }
  return env;
}

/** A clock the test moves by hand: expiry, grace periods and quota periods without waiting. */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** The whole service (API, workers and pool, or one role) in this process, as `npm start` runs it. */
export async function startTestService(overrides: Record<string, string> = {}, role: Role = 'all', clock?: Clock): Promise<TestService> {
  const config = loadConfig(testEnv(overrides));
  const service = await startService(config, role, createLogger('silent', role), clock ? { clock } : {});
  return { url: service.url, config, close: () => service.close() };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  key?: string | null;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // Tests read arbitrary response shapes.
  json: any;
}

/** One request over real HTTP with the test key (unless `key: null`), JSON in and out. */
export async function call(base: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers.authorization ??= `Bearer ${options.key ?? TEST_KEY}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json };
}
