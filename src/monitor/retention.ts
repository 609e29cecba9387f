import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { deleteOlderThan } from './retention.repository.js';

export interface RetentionPolicy {
  /** Raw audit rows (request_log) and the per-IP sets that answer unique_ips for them. */
  auditDays: number;
  /** Hourly rollups: usage and error analytics for periods older than the raw rows. */
  rollupDays: number;
}

const RUN_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Deletes audit rows and rollups past their retention, once per hour across the cluster: every
 * process's timer competes for that hour's lease in Redis (SET NX), and the one that takes it
 * runs the deletions, in chunks so no transaction holds many locks.
 */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly db: Kysely<Database>,
    private readonly prefix: string,
    private readonly policy: RetentionPolicy,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const tick = () => void this.runIfLeased().catch((error: unknown) => this.logger.warn({ err: error }, 'audit retention failed; next hour tries again'));
    this.timer = setInterval(tick, RUN_EVERY_MS);
    this.timer.unref();
    tick();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Runs the deletions if no other process has run them this hour; true when this one did. */
  async runIfLeased(now = new Date()): Promise<boolean> {
    const slot = Math.floor(now.getTime() / RUN_EVERY_MS);
    const taken = await this.redis.set(`${this.prefix}:audit:retention:${slot}`, process.pid, 'PX', RUN_EVERY_MS * 2, 'NX');
    if (taken !== 'OK') return false;
    const deleted = await this.run(now);
    if (Object.values(deleted).some((n) => n > 0)) this.logger.info({ deleted }, 'audit retention: expired rows deleted');
    return true;
  }

  async run(now = new Date()): Promise<Record<string, number>> {
    const raw = new Date(now.getTime() - this.policy.auditDays * DAY_MS);
    const rollups = new Date(now.getTime() - this.policy.rollupDays * DAY_MS);
    return deleteOlderThan(this.db, { raw, rollups });
  }
}
