import type { Redis } from 'ioredis';
import type { Principal } from '../auth/principal.js';

/** The per-key rate limit counts requests over a fixed window of this many seconds. */
export const WINDOW_SECONDS = 60;

/** A window's count after this request, and the time until the window ends. */
export interface WindowCount {
  used: number;
  msLeft: number;
}

/**
 * Lua that counts one request in the window KEYS[1] (ARGV[1] seconds long), leaving `used` and
 * `ttl` (ms) in locals. The window starts with its first request and lasts ARGV[1] seconds; the
 * count goes up even past the limit, so a client that keeps sending stays refused.
 */
export const WINDOW_LUA = `
local used = redis.call('INCR', KEYS[1])
local ttl
if used == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = 1000 * ARGV[1]
else
  ttl = redis.call('PTTL', KEYS[1])
  -- A count without expiry (written by hand, or restored without it) would never reset.
  if ttl == -1 then
    redis.call('EXPIRE', KEYS[1], ARGV[1])
    ttl = 1000 * ARGV[1]
  end
end
`;

const WINDOW_SCRIPT = `${WINDOW_LUA}
return {used, ttl}
`;

/**
 * The window's key. A key's window carries its account's hash tag, as its quota counters do, so
 * that one script can count the window and the quotas together on Redis Cluster too. The limit
 * is part of the key: a changed limit starts a window of its own.
 */
export function windowKey(prefix: string, principal: Pick<Principal, 'id' | 'accountId' | 'rateLimitPerMinute'>): string {
  const account = principal.accountId === null ? '' : `{${principal.accountId}}:`;
  return `${prefix}:rl:${principal.rateLimitPerMinute}:${account}${principal.id}`;
}

type WindowCommand = (key: string, seconds: number) => Promise<[number, number]>;
const windowCommands = new WeakMap<Redis, WindowCommand>();

/** Counts one request in the window `key` (one script call); the caller compares `used` with its limit. */
export async function countInWindow(redis: Redis, key: string): Promise<WindowCount> {
  let command = windowCommands.get(redis);
  if (!command) {
    // defineCommand sends EVALSHA and falls back to EVAL once after a Redis restart.
    redis.defineCommand('sevRateWindow', { lua: WINDOW_SCRIPT, numberOfKeys: 1 });
    command = (redis as unknown as Record<string, WindowCommand>).sevRateWindow!.bind(redis);
    windowCommands.set(redis, command);
  }
  const [used, msLeft] = await command(key, WINDOW_SECONDS);
  return { used, msLeft };
}
