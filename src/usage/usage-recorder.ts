import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { touchLastUsed } from '../auth/keys.repository.js';
import { addUsage, type DailyDelta, type MonthlyDelta } from './usage.repository.js';

/**
 * The durable half of usage counting. Requests are counted in memory and added to MySQL once a
 * second (and on shutdown), so the hot path never waits for a database write while the monthly
 * totals still survive a restart of Redis or of the API. A failed write keeps its counts for the
 * next attempt: counts are only ever added, never lost or applied twice.
 */
export class UsageRecorder {
  private monthly = new Map<string, MonthlyDelta>();
  private daily = new Map<string, DailyDelta>();
  private lastUsed = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
  ) {}

  /** One admitted, metered request. */
  count(accountId: string, mode: string, keyId: string, period: string, day: string): void {
    this.addMonthly({ accountId, mode, period, requests: 1 });
    this.addDaily({ keyId, day, requests: 1 });
  }

  /** Any authenticated use of a key, metered or not, moves its last_used_at. */
  used(keyId: string, at: Date): void {
    const previous = this.lastUsed.get(keyId);
    if (!previous || previous < at) this.lastUsed.set(keyId, at);
    this.schedule();
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    const monthly = [...this.monthly.values()];
    const daily = [...this.daily.values()];
    const lastUsed = [...this.lastUsed];
    if (monthly.length + daily.length + lastUsed.length === 0) return;
    this.monthly = new Map();
    this.daily = new Map();
    this.lastUsed = new Map();
    this.flushing = (async () => {
      try {
        await addUsage(this.db, monthly, daily);
      } catch (error) {
        for (const delta of monthly) this.addMonthly(delta);
        for (const delta of daily) this.addDaily(delta);
        this.logger.warn({ err: error }, 'usage flush failed; will retry');
      }
      try {
        for (const [keyId, at] of lastUsed) await touchLastUsed(this.db, keyId, at);
      } catch (error) {
        for (const [keyId, at] of lastUsed) this.used(keyId, at);
        this.logger.warn({ err: error }, 'last_used_at flush failed; will retry');
      }
    })();
    await this.flushing;
    this.flushing = undefined;
  }

  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private addMonthly(delta: MonthlyDelta): void {
    const key = `${delta.accountId}|${delta.mode}|${delta.period}`;
    const total = this.monthly.get(key);
    if (total) total.requests += delta.requests;
    else this.monthly.set(key, { ...delta });
    this.schedule();
  }

  private addDaily(delta: DailyDelta): void {
    const key = `${delta.keyId}|${delta.day}`;
    const total = this.daily.get(key);
    if (total) total.requests += delta.requests;
    else this.daily.set(key, { ...delta });
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
  }
}
