import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { decodeEntries, type AuditEntry } from './audit-entry.js';
import { AUDIT_WRITERS_GROUP, auditStreamKey, ENTRY_FIELD, recordTime } from './audit-stream.js';
import { writeAuditBatch, type BatchOutcome } from './request-log.repository.js';

export interface DrainMetrics {
  written(outcome: BatchOutcome): void;
  retried(): void;
  backlog(entries: number, oldestAgeSeconds: number): void;
}

export interface DrainOptions {
  batchSize: number;
  /** How long a record may stay delivered but unacknowledged before another writer takes it over. */
  claimIdleMs: number;
  blockMs: number;
  /**
   * How long to let entries gather after a read that found fewer than half a batch. Under load a
   * writer that reads as fast as it can writes batches of a few entries, and a transaction's fixed
   * cost (six statements, a commit) then dominates; waiting a moment makes the batches full.
   */
  lingerMs: number;
}

type StreamRecord = [id: string, fields: string[]];

const MAX_BACKOFF_MS = 10_000;
const BACKLOG_EVERY_MS = 1000;
const CLAIM_EVERY_MS = 5000;
/** A consumer idle this long with nothing pending belonged to a process that is gone. */
const STALE_CONSUMER_MS = 3_600_000;

/**
 * Writes captured audit entries from the Redis stream to MySQL, in batches, in every process
 * that runs one (they share the work through one consumer group). A batch is acknowledged and
 * deleted from the stream only after its transaction committed; if this process dies first,
 * another writer claims the batch once it has been idle `claimIdleMs`, and writes it again
 * without duplicates (entry ids). While MySQL is down the batch is retried with backoff and
 * everything behind it waits in the stream, whose length is the backlog metric.
 */
export class AuditDrain {
  private readonly key: string;
  private readonly consumer = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private running = false;
  private loop: Promise<void> | undefined;
  private lastClaim = 0;
  private lastBacklog = 0;

  constructor(
    private readonly redis: Redis,
    /** A connection of its own: XREADGROUP BLOCK holds it while waiting. */
    private readonly blocking: Redis,
    private readonly db: Kysely<Database>,
    prefix: string,
    private readonly metrics: DrainMetrics,
    private readonly logger: Logger,
    private readonly options: DrainOptions,
  ) {
    this.key = auditStreamKey(prefix);
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Stops after the batch in hand is written (or, if MySQL is down, left for another writer). */
  async stop(): Promise<void> {
    this.running = false;
    this.blocking.disconnect();
    await this.loop;
  }

  private async run(): Promise<void> {
    let backoff = 500;
    while (this.running) {
      try {
        await this.ensureGroup();
        await this.reportBacklog();
        const records = await this.next();
        if (records.length > 0) await this.write(records);
        if (records.length > 0 && records.length < this.options.batchSize / 2) await sleep(this.options.lingerMs);
        backoff = 500;
      } catch (error) {
        if (!this.running) break;
        this.logger.warn({ err: error }, 'audit writer: Redis unavailable; retrying');
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  private groupReady = false;

  private async ensureGroup(): Promise<void> {
    if (this.groupReady) return;
    try {
      await this.redis.xgroup('CREATE', this.key, AUDIT_WRITERS_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
    this.groupReady = true;
  }

  /** Records abandoned by a writer that died come first; then new ones, waiting up to blockMs. */
  private async next(): Promise<StreamRecord[]> {
    if (Date.now() - this.lastClaim >= CLAIM_EVERY_MS) {
      this.lastClaim = Date.now();
      const [, claimed] = (await this.redis.xautoclaim(
        this.key, AUDIT_WRITERS_GROUP, this.consumer, this.options.claimIdleMs, '0-0', 'COUNT', this.options.batchSize,
      )) as [string, StreamRecord[]];
      const live = claimed.filter((r) => r[1] !== null);
      if (live.length > 0) {
        this.logger.info({ entries: live.length }, 'audit writer: took over entries another writer left unwritten');
        return live;
      }
      await this.forgetStaleConsumers();
    }
    try {
      const reply = (await this.blocking.xreadgroup(
        'GROUP', AUDIT_WRITERS_GROUP, this.consumer, 'COUNT', this.options.batchSize, 'BLOCK', this.options.blockMs, 'STREAMS', this.key, '>',
      )) as [string, StreamRecord[]][] | null;
      return reply?.[0]?.[1] ?? [];
    } catch (error) {
      // The group disappears with the stream (FLUSHALL, a Redis restart without persistence).
      if (String((error as Error).message).includes('NOGROUP')) this.groupReady = false;
      throw error;
    }
  }

  /** Writes one batch, retrying while MySQL refuses, then acknowledges and deletes it. */
  private async write(records: StreamRecord[]): Promise<void> {
    const entries: AuditEntry[] = [];
    for (const [id, fields] of records) {
      const decoded = decodeEntries(fields[fields.indexOf(ENTRY_FIELD) + 1] ?? '');
      entries.push(...decoded.entries);
      if (decoded.unreadable > 0) this.logger.error({ id, entries: decoded.unreadable }, 'audit writer: unreadable entries skipped');
    }
    let backoff = 500;
    for (;;) {
      try {
        this.metrics.written(await writeAuditBatch(this.db, entries));
        break;
      } catch (error) {
        this.metrics.retried();
        if (!this.running) return; // left pending: another writer claims it
        this.logger.warn({ err: error, entries: entries.length }, 'audit writer: database write failed; retrying');
        await this.reportBacklog(true);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
    const ids = records.map(([id]) => id);
    await this.redis.multi().xack(this.key, AUDIT_WRITERS_GROUP, ...ids).xdel(this.key, ...ids).exec();
  }

  private async reportBacklog(force = false): Promise<void> {
    if (!force && Date.now() - this.lastBacklog < BACKLOG_EVERY_MS) return;
    this.lastBacklog = Date.now();
    try {
      const [length, oldest] = await Promise.all([this.redis.xlen(this.key), this.redis.xrange(this.key, '-', '+', 'COUNT', 1)]);
      const age = oldest[0] ? Math.max(0, (Date.now() - recordTime(oldest[0][0])) / 1000) : 0;
      this.metrics.backlog(length, age);
    } catch {
      // Reported at the next turn.
    }
  }

  private async forgetStaleConsumers(): Promise<void> {
    const consumers = (await this.redis.xinfo('CONSUMERS', this.key, AUDIT_WRITERS_GROUP)) as unknown[][];
    for (const fields of consumers) {
      const info = Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]));
      if (info.name !== this.consumer && Number(info.pending) === 0 && Number(info.idle) > STALE_CONSUMER_MS) {
        await this.redis.xgroup('DELCONSUMER', this.key, AUDIT_WRITERS_GROUP, String(info.name));
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
