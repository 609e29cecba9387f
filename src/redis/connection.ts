import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../log/logger.js';

/** The longest pause between two reconnection attempts, whatever the connection. */
const RECONNECT_MAX_DELAY_MS = 1000;

/**
 * After a lost connection: try again after 100 ms, then at intervals growing by 100 ms up to a
 * second. Every connection of a process is back within a second of Redis, each trying about once
 * a second while it is away (a refused connect costs next to nothing). BullMQ's own strategy,
 * which its connections use otherwise, grows to 20 s after about 18 s of failed attempts: its
 * queue events and workers then stayed away up to 20 s after Redis returned, while the commands
 * connection (ioredis' default, up to 2 s) was long back.
 */
function reconnectDelay(attempt: number): number {
  return Math.min(attempt * 100, RECONNECT_MAX_DELAY_MS);
}

/**
 * Connection options from a redis:// or rediss:// URL. BullMQ opens its own connections from
 * these (workers and queue events need blocking connections of their own, and must never give
 * up on a command: maxRetriesPerRequest null).
 */
export function redisOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelay,
  };
}

export interface OutageReport {
  lost(error: Error): void;
  restored(): void;
}

/**
 * A command connection that fails fast instead of queueing commands while Redis is away.
 * ioredis emits an error per failed reconnection attempt (and prints each one to the console
 * when nobody listens); `report` hears once per outage that it began and that it ended.
 */
export function openRedis(url: string, report: OutageReport, options: RedisOptions = {}): Redis {
  const redis = new Redis({ ...redisOptions(url), maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 5000, ...options });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down) report.lost(error);
    down = true;
  });
  redis.on('ready', () => {
    if (down) report.restored();
    down = false;
  });
  return redis;
}

/** Outages of a named connection as log lines. */
export function loggedOutages(logger: Logger, connection: string): OutageReport {
  return {
    lost: (error) => logger.warn({ err: error, connection }, 'Redis connection lost; reconnecting'),
    restored: () => logger.info({ connection }, 'Redis connection restored'),
  };
}
