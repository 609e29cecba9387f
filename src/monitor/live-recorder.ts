import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { Mode } from '../mode.js';
import { HostLoadSampler, type HostLoad } from './host-load.js';
import {
  accountEndpointScope, accountScope, addCounts, ALL_SCOPE, modeScope, BUCKET_TTL_MS, countFields, emptyCounts, endpointScope, FLUSH_MS, MINUTE_MS, minuteKey, minuteOf,
  processesKey, type MinuteCounts, type ProcessRole, type ProcessSnapshot, type ProcessStatus,
} from './live-store.js';
import { latencyBucket } from './latency-buckets.js';

const CLOSE_WAIT_MS = 1000;

/** One answered request, as the edge saw it. */
export interface RequestSample {
  /** The account and mode of the key (accepted, or refused but existing); null account for the master key, null mode without a key. */
  accountId: string | null;
  mode: Mode | null;
  /** The route template, when the path matched one. */
  route: string | undefined;
  status: number;
  seconds: number;
  /** true: answered from the result cache; false: looked there and missed; undefined: did not look. */
  cacheHit: boolean | undefined;
}

export interface LiveRecorderDeps {
  redis: Redis;
  prefix: string;
  region: string;
  role: ProcessRole;
  /** MySQL connections of this process: in use and pool size. */
  dbPool: () => { inUse: number; limit: number };
  logger: Logger;
  sampler?: HostLoadSampler;
}

/**
 * This process's share of the live figures. Requests are counted in memory (no Redis round trip
 * on the request path) per minute and scope, and added to the shared per-minute hashes once a
 * second, with this process's snapshot (see live-store.ts). A write that fails keeps its counts
 * for the next one; counts older than the hashes' lifetime are dropped.
 */
export class LiveRecorder {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private pending: MinuteCounts = new Map();
  private inFlight = 0;
  /** Requests per second over the last minute: a ring indexed by epoch second modulo 60. */
  private readonly perSecond = new Float64Array(60);
  private readonly secondOf = new Float64Array(60).fill(-1);
  private status: ProcessStatus = 'healthy';
  private load: HostLoad | undefined;
  private redisRtt: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failing = false;
  private readonly sampler: HostLoadSampler;

  constructor(private readonly deps: LiveRecorderDeps) {
    this.sampler = deps.sampler ?? new HostLoadSampler();
  }

  get region(): string {
    return this.deps.region;
  }

  start(intervalMs = FLUSH_MS): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
    void this.flush();
  }

  /** Stops the timer, writes what is left and removes this process's snapshot (clean shutdown); gives up after a second without Redis. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    await Promise.race([
      this.flush().then(() => this.deps.redis.hdel(processesKey(this.deps.prefix), this.id)).catch(() => undefined),
      giveUp,
    ]);
    clearTimeout(timer);
  }

  begin(): void {
    this.inFlight++;
  }

  end(): void {
    this.inFlight--;
  }

  /** Overall status of this process's latest health check, told to the others with its snapshot. */
  setStatus(status: ProcessStatus): void {
    this.status = status;
  }

  record(sample: RequestSample, now = Date.now()): void {
    const second = Math.floor(now / 1000);
    const slot = second % 60;
    if (this.secondOf[slot] !== second) {
      this.secondOf[slot] = second;
      this.perSecond[slot] = 0;
    }
    this.perSecond[slot]!++;

    const minute = minuteOf(now);
    let scopes = this.pending.get(minute);
    if (!scopes) this.pending.set(minute, (scopes = new Map()));
    const us = Math.round(sample.seconds * 1e6);
    const bucket = latencyBucket(sample.seconds * 1000);
    const failed = sample.status >= 400;
    const add = (scope: string): void => {
      let counts = scopes.get(scope);
      if (!counts) scopes.set(scope, (counts = emptyCounts()));
      counts.n++;
      counts.us += us;
      counts.lat[bucket]!++;
      if (failed) counts.err++;
      else counts.okus += us;
      if (sample.cacheHit === true) counts.hit++;
      else if (sample.cacheHit === false) counts.miss++;
    };
    add(ALL_SCOPE);
    if (sample.mode !== null) {
      add(modeScope(sample.mode));
      if (sample.accountId !== null) {
        add(accountScope(sample.accountId, sample.mode));
        if (sample.route !== undefined) add(accountEndpointScope(sample.accountId, sample.mode, sample.route));
      }
    }
    if (sample.route !== undefined) add(endpointScope(sample.route));
  }

  /** Counts not yet written to Redis, per minute and scope (readers add them to what Redis holds). */
  unwritten(): MinuteCounts {
    return this.pending;
  }

  /** This process as it stands now (CPU and memory as of the last sample). */
  snapshot(now = Date.now()): ProcessSnapshot {
    const second = Math.floor(now / 1000);
    let lastMinute = 0;
    for (let slot = 0; slot < 60; slot++) if (this.secondOf[slot]! > second - 60) lastMinute += this.perSecond[slot]!;
    const pool = this.deps.dbPool();
    return {
      id: this.id,
      role: this.deps.role,
      region: this.deps.region,
      pid: process.pid,
      at: now,
      status: this.status,
      active_connections: this.inFlight,
      requests_last_minute: lastMinute,
      load: this.load ?? { host: this.sampler.host, cpu: { used: 0, capacity: os.cpus().length || 1 }, memory: { used: os.totalmem() - os.freemem(), limit: os.totalmem() } },
      db_pool: { in_use: pool.inUse, size: pool.limit },
      redis_rtt: this.redisRtt,
    };
  }

  /** Writes the counts gathered since the last write, and the snapshot. One at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    this.load = await this.sampler.sample().catch(() => this.load);
    // The first snapshot already tells the round trip: a PING, timed.
    if (this.redisRtt === null) {
      const started = performance.now();
      if (await this.deps.redis.ping().then(() => true, () => false)) this.redisRtt = Math.round((performance.now() - started) * 1000) / 1e6;
    }
    const batch = this.pending;
    this.pending = new Map();
    const now = Date.now();
    const multi = this.deps.redis.multi();
    for (const [minute, scopes] of batch) {
      const key = minuteKey(this.deps.prefix, minute);
      for (const [scope, counts] of scopes) {
        for (const [field, n] of countFields(scope, counts)) multi.hincrby(key, field, n);
      }
      multi.pexpireat(key, (minute + 1) * MINUTE_MS + BUCKET_TTL_MS);
    }
    multi.hset(processesKey(this.deps.prefix), this.id, JSON.stringify(this.snapshot(now)));
    const started = performance.now();
    try {
      await multi.exec();
      this.redisRtt = Math.round((performance.now() - started) * 1000) / 1e6;
      if (this.failing) this.deps.logger.info('live figures written to Redis again');
      this.failing = false;
    } catch (error) {
      // Kept for the next write; what has outlived the hashes is dropped.
      this.restore(batch, now);
      if (!this.failing) this.deps.logger.warn({ err: error }, 'live figures could not be written to Redis; kept for the next attempt');
      this.failing = true;
    }
  }

  private restore(batch: MinuteCounts, now: number): void {
    const oldest = minuteOf(now - BUCKET_TTL_MS);
    for (const [minute, scopes] of batch) {
      if (minute < oldest) continue;
      let target = this.pending.get(minute);
      if (!target) this.pending.set(minute, (target = new Map()));
      for (const [scope, counts] of scopes) {
        const existing = target.get(scope);
        if (existing) addCounts(existing, counts);
        else target.set(scope, counts);
      }
    }
  }
}
