import type { Redis } from 'ioredis';
import type { Mode } from '../mode.js';
import type { HostLoad } from './host-load.js';
import { LATENCY_BUCKETS } from './latency-buckets.js';

/**
 * The Redis layout of the live figures every API and worker process shares (prefix = QUEUE_PREFIX):
 *
 *   <prefix>:live:m:<minute>   hash per minute (minute = epoch ms / 60,000, floored), expiring
 *                              40 minutes after the minute ends. Fields `<scope>|<counter>`:
 *                              scope `all` (every request the API answered, probes excepted),
 *                              `mode:<mode>` (requests made with a key of that mode, the master
 *                              key's live), `acct:<account id>:<mode>` (requests made with that
 *                              account's keys in that mode), `ep:<route>` (every request to one
 *                              endpoint), `acctep:<account id>:<mode>:<route>` (an account's
 *                              requests to one endpoint); counters below, and the latency
 *                              buckets `b0`…`b13` of latency-buckets.ts. Each process adds its
 *                              requests with HINCRBY once a second.
 *   <prefix>:live:procs        hash: process id → JSON ProcessSnapshot, rewritten once a second;
 *                              a snapshot older than FRESH_MS is a process gone, one older than
 *                              PRUNE_MS is deleted by the next reader.
 */

/** Requests, failed ones (status ≥ 400), summed response time of all and of successful ones (µs), result-cache hits and misses. */
export const COUNTERS = ['n', 'err', 'us', 'okus', 'hit', 'miss'] as const;
export type Counter = (typeof COUNTERS)[number];
/** The counters, and requests per latency bucket (for percentiles, as the hourly rollups keep them). */
export type Counts = Record<Counter, number> & { lat: number[] };

/** Field names of the latency buckets. */
export const LATENCY_FIELDS: readonly string[] = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `b${i}`);

export const MINUTE_MS = 60_000;
/** Long enough for trending's 35 minutes. */
export const BUCKET_TTL_MS = 40 * MINUTE_MS;
export const FLUSH_MS = 1000;
export const FRESH_MS = 5 * FLUSH_MS;
export const PRUNE_MS = 10 * MINUTE_MS;


export const ALL_SCOPE = 'all';

export function accountScope(accountId: string, mode: Mode): string {
  return `acct:${accountId}:${mode}`;
}

export function modeScope(mode: Mode): string {
  return `mode:${mode}`;
}

export function endpointScope(route: string): string {
  return `ep:${route}`;
}

export function accountEndpointScope(accountId: string, mode: Mode, route: string): string {
  return `acctep:${accountId}:${mode}:${route}`;
}

export function minuteOf(epochMs: number): number {
  return Math.floor(epochMs / MINUTE_MS);
}

export function minuteKey(prefix: string, minute: number): string {
  return `${prefix}:live:m:${minute}`;
}

export function processesKey(prefix: string): string {
  return `${prefix}:live:procs`;
}

export function emptyCounts(): Counts {
  return { n: 0, err: 0, us: 0, okus: 0, hit: 0, miss: 0, lat: new Array<number>(LATENCY_BUCKETS).fill(0) };
}

export function addCounts(into: Counts, from: Readonly<Counts>): Counts {
  for (const counter of COUNTERS) into[counter] += from[counter];
  for (let i = 0; i < LATENCY_BUCKETS; i++) into.lat[i]! += from.lat[i]!;
  return into;
}

/** The hash fields of a scope's counts that are not zero, with their values: what a flush adds. */
export function countFields(scope: string, counts: Readonly<Counts>): Array<[string, number]> {
  const fields: Array<[string, number]> = [];
  for (const counter of COUNTERS) if (counts[counter] !== 0) fields.push([`${scope}|${counter}`, counts[counter]]);
  counts.lat.forEach((n, i) => {
    if (n !== 0) fields.push([`${scope}|${LATENCY_FIELDS[i]}`, n]);
  });
  return fields;
}

export type ProcessRole = 'all' | 'api' | 'worker';
export type ProcessStatus = 'healthy' | 'degraded' | 'unhealthy';

/** What one process tells the others about itself, once a second. */
export interface ProcessSnapshot {
  id: string;
  role: ProcessRole;
  region: string;
  pid: number;
  /** Epoch ms of the snapshot. */
  at: number;
  /** Overall status of the process's last health check (API processes); a worker that reports is healthy. */
  status: ProcessStatus;
  /** HTTP requests being answered by the process right now. */
  active_connections: number;
  /** Requests the process answered in the last 60 seconds (probes excepted). */
  requests_last_minute: number;
  /** The load of its host (see host-load.ts); processes of one host report the same. */
  load: HostLoad;
  /** MySQL connections in use and the pool's size. */
  db_pool: { in_use: number; size: number };
  /** Round trip of its last write to Redis, seconds; null before the first. */
  redis_rtt: number | null;
}

/** Counts per minute and scope. */
export type MinuteCounts = Map<number, Map<string, Counts>>;

/** Reads `scopes` for every minute of [from, to] in one round trip. */
export async function readMinutes(redis: Redis, prefix: string, scopes: readonly string[], from: number, to: number): Promise<MinuteCounts> {
  const names = [...COUNTERS, ...LATENCY_FIELDS];
  const fields = scopes.flatMap((scope) => names.map((name) => `${scope}|${name}`));
  const pipeline = redis.pipeline();
  for (let minute = from; minute <= to; minute++) pipeline.hmget(minuteKey(prefix, minute), ...fields);
  const replies = (await pipeline.exec()) ?? [];
  const result: MinuteCounts = new Map();
  replies.forEach(([error, values], index) => {
    if (error) throw error;
    const byScope = new Map<string, Counts>();
    const list = values as Array<string | null>;
    scopes.forEach((scope, s) => {
      const counts = emptyCounts();
      const at = s * names.length;
      COUNTERS.forEach((counter, c) => {
        counts[counter] = Number(list[at + c] ?? 0);
      });
      for (let b = 0; b < LATENCY_BUCKETS; b++) counts.lat[b] = Number(list[at + COUNTERS.length + b] ?? 0);
      byScope.set(scope, counts);
    });
    result.set(from + index, byScope);
  });
  return result;
}

/** Zero counts of `scopes` for every minute of [from, to]. */
export function emptyMinutes(scopes: readonly string[], from: number, to: number): MinuteCounts {
  const result: MinuteCounts = new Map();
  for (let minute = from; minute <= to; minute++) result.set(minute, new Map(scopes.map((scope) => [scope, emptyCounts()])));
  return result;
}

/** Adds `extra` (a process's counts not yet written) into `into`. */
export function mergeMinutes(into: MinuteCounts, extra: MinuteCounts): MinuteCounts {
  for (const [minute, scopes] of extra) {
    const target = into.get(minute);
    if (!target) continue;
    for (const [scope, counts] of scopes) {
      const existing = target.get(scope);
      if (existing) addCounts(existing, counts);
    }
  }
  return into;
}

/** The sum of `scope` over minutes [from, to]. */
export function sumMinutes(minutes: MinuteCounts, scope: string, from: number, to: number): Counts {
  const total = emptyCounts();
  for (let minute = from; minute <= to; minute++) {
    const counts = minutes.get(minute)?.get(scope);
    if (counts) addCounts(total, counts);
  }
  return total;
}

/** Every process that reported within PRUNE_MS: `fresh` ones (within FRESH_MS) and `gone` ones. Older entries are deleted. */
export async function readProcesses(redis: Redis, prefix: string, now = Date.now()): Promise<{ fresh: ProcessSnapshot[]; gone: ProcessSnapshot[] }> {
  const entries = await redis.hgetall(processesKey(prefix));
  const fresh: ProcessSnapshot[] = [];
  const gone: ProcessSnapshot[] = [];
  const stale: string[] = [];
  for (const [id, json] of Object.entries(entries)) {
    let snapshot: ProcessSnapshot;
    try {
      snapshot = JSON.parse(json) as ProcessSnapshot;
    } catch {
      stale.push(id);
      continue;
    }
    const age = now - snapshot.at;
    if (age > PRUNE_MS) stale.push(id);
    else (age <= FRESH_MS ? fresh : gone).push(snapshot);
  }
  if (stale.length > 0) await redis.hdel(processesKey(prefix), ...stale);
  return { fresh, gone };
}

/** `snapshots` with `own` in place of its stored (older) copy. */
export function withOwn(snapshots: readonly ProcessSnapshot[], own: ProcessSnapshot): ProcessSnapshot[] {
  return [...snapshots.filter((s) => s.id !== own.id), own];
}

/**
 * CPU and memory use of a set of processes, 0 to 1: each host counted once (its newest
 * snapshot), its cores or bytes in use summed and divided by the summed capacities.
 */
export function hostUsage(snapshots: readonly ProcessSnapshot[]): { cpu: number; memory: number } {
  const hosts = new Map<string, ProcessSnapshot>();
  for (const snapshot of snapshots) {
    const known = hosts.get(snapshot.load.host);
    if (!known || known.at < snapshot.at) hosts.set(snapshot.load.host, snapshot);
  }
  let cpuUsed = 0;
  let cpuCapacity = 0;
  let memoryUsed = 0;
  let memoryLimit = 0;
  for (const { load } of hosts.values()) {
    cpuUsed += Math.min(load.cpu.used, load.cpu.capacity);
    cpuCapacity += load.cpu.capacity;
    memoryUsed += Math.min(load.memory.used, load.memory.limit);
    memoryLimit += load.memory.limit;
  }
  const ratio = (used: number, capacity: number) => (capacity > 0 ? Math.round((used / capacity) * 1000) / 1000 : 0);
  return { cpu: ratio(cpuUsed, cpuCapacity), memory: ratio(memoryUsed, memoryLimit) };
}
