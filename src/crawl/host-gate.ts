/**
 * Politeness shared by every worker process: one request at a time per host, and the host's
 * Crawl-delay (or DEFAULT_CRAWL_DELAY_MS) between the end of one request and the start of the
 * next. One Redis key per host holds the time before which nobody may start, and the token of
 * whoever is fetching; Redis' own clock decides, so the processes' clocks need not agree.
 *
 * A holder that dies keeps the host for HOLD_MS at most: its reservation then lapses.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Delay between two requests to a host whose robots.txt sets no Crawl-delay. */
export const DEFAULT_CRAWL_DELAY_MS = 1000;
/** Longest a request may hold its host: the page time-out plus a margin. */
const HOLD_MS = 20_000;
/** Longest single sleep while waiting, so a cancellation or a freed host is noticed soon. */
const MAX_POLL_MS = 500;

// Returns 0 when the caller now holds the host, else the milliseconds until it may try again.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, ':', 1, true)
  local notBefore = tonumber(string.sub(current, 1, sep - 1))
  if notBefore > now then return notBefore - now end
end
local hold = tonumber(ARGV[2])
redis.call('SET', KEYS[1], (now + hold) .. ':' .. ARGV[1], 'PX', hold)
return 0
`;

// The holder hands the host back: nobody may start before now + the delay.
const RELEASE = `
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, string.find(current, ':', 1, true) + 1) ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local delay = tonumber(ARGV[2])
redis.call('SET', KEYS[1], (now + delay) .. ':', 'PX', delay + 1)
return 1
`;

type Script = (key: string, ...args: (string | number)[]) => Promise<number>;

export class HostGate {
  private readonly acquireScript: Script;
  private readonly releaseScript: Script;

  constructor(private readonly redis: Redis, private readonly prefix: string) {
    redis.defineCommand('sevCrawlHostAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand('sevCrawlHostRelease', { numberOfKeys: 1, lua: RELEASE });
    const commands = redis as unknown as Record<string, Script>;
    this.acquireScript = commands.sevCrawlHostAcquire!.bind(redis);
    this.releaseScript = commands.sevCrawlHostRelease!.bind(redis);
  }

  /**
   * Runs task while holding the host, after waiting for its turn; the host's delay starts when
   * the task ends.
   * @throws the signal's reason when it aborts while waiting.
   */
  async run<T>(host: string, delayMs: number, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    const key = `${this.prefix}:crawl:host:${host}`;
    const token = randomUUID();
    for (;;) {
      signal.throwIfAborted();
      const waitMs = await this.acquireScript(key, token, HOLD_MS);
      if (waitMs === 0) break;
      await sleep(Math.min(waitMs, MAX_POLL_MS), signal);
    }
    try {
      return await task();
    } finally {
      // A release that fails (Redis away) must not replace the task's own outcome: the hold then
      // lapses after HOLD_MS, which is only a longer pause for the host.
      await this.releaseScript(key, token, Math.max(1, Math.round(delayMs))).catch(() => undefined);
    }
  }
}

/** Resolves after ms, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
