import { Redis, type RedisOptions } from 'ioredis';

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
  };
}

/** A command connection that fails fast instead of queueing commands while Redis is away. */
export function openRedis(url: string): Redis {
  return new Redis({ ...redisOptions(url), maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 5000 });
}
