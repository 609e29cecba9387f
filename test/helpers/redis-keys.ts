import { Redis } from 'ioredis';

/**
 * Removes every key under `prefix` (queues, limits, caches of a service started for a test run
 * or a benchmark): BullMQ keeps finished jobs and events for an hour, and Redis runs with
 * `noeviction`, so what runs leave behind would add up until Redis refuses writes.
 */
export async function removeKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
