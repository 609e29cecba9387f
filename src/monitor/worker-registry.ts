import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PoolStats } from '../metrics/metrics.js';
import type { BrowserStats } from '../render/browser-pool.js';

/**
 * Worker liveness through Redis: each worker process writes a heartbeat into one hash every
 * interval. A worker whose heartbeat is older than three intervals is reported as down, so a
 * crashed worker (no clean deregistration) shows up in /v1/health until it is pruned ten
 * minutes later. A clean shutdown removes its own entry.
 */
export interface WorkerInfo {
  id: string;
  host: string;
  pid: number;
  queues: string[];
  concurrency: number;
  started_at: string;
  last_seen: string;
  active_jobs: number;
  pool: PoolStats | null;
  /** The rendering browser's state; absent from a worker of a version before it was reported. */
  browser?: BrowserStats;
}

export interface WorkerStatus extends WorkerInfo {
  status: 'alive' | 'down';
}

const PRUNE_AFTER_MS = 600_000;

function registryKey(prefix: string): string {
  return `${prefix}:workers`;
}

export async function listWorkers(redis: Redis, prefix: string, heartbeatMs: number, now = Date.now()): Promise<WorkerStatus[]> {
  const entries = await redis.hgetall(registryKey(prefix));
  const workers: WorkerStatus[] = [];
  const stale: string[] = [];
  for (const [id, json] of Object.entries(entries)) {
    let info: WorkerInfo;
    try {
      info = JSON.parse(json) as WorkerInfo;
    } catch {
      stale.push(id);
      continue;
    }
    const age = now - Date.parse(info.last_seen);
    if (age > PRUNE_AFTER_MS) stale.push(id);
    else workers.push({ ...info, status: age <= heartbeatMs * 3 ? 'alive' : 'down' });
  }
  if (stale.length > 0) await redis.hdel(registryKey(prefix), ...stale);
  return workers.sort((a, b) => a.started_at.localeCompare(b.started_at));
}

export interface Heartbeat {
  readonly id: string;
  /** Stops beating; with `deregister` the entry is removed (clean shutdown). */
  stop(deregister: boolean): Promise<void>;
}

export function startHeartbeat(
  redis: Redis,
  prefix: string,
  heartbeatMs: number,
  describe: () => { queues: string[]; concurrency: number; active_jobs: number; pool: PoolStats | null; browser: BrowserStats },
): Heartbeat {
  const id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const started = new Date().toISOString();
  const beat = async (): Promise<void> => {
    const info: WorkerInfo = { id, host: os.hostname(), pid: process.pid, started_at: started, last_seen: new Date().toISOString(), ...describe() };
    await redis.hset(registryKey(prefix), id, JSON.stringify(info));
  };
  // A missed beat (Redis briefly away) is not fatal: the next one repairs the entry.
  const timer = setInterval(() => void beat().catch(() => undefined), heartbeatMs);
  timer.unref();
  void beat().catch(() => undefined);
  return {
    id,
    async stop(deregister) {
      clearInterval(timer);
      if (deregister) await redis.hdel(registryKey(prefix), id).catch(() => undefined);
    },
  };
}
