import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { touchLastUsed } from '../auth/keys.repository.js';
import { raiseUsage, type DailyCount, type MonthlyCount } from './usage.repository.js';

/**
 * The durable half of usage counting. The counts Redis's counters reached when they admitted a
 * request are kept in memory (the highest of each) and written to MySQL once a second (and on
 * shutdown), so the hot path never waits for a database write while the totals survive a
 * restart of Redis or of the API.
 *
 * Counts are written, not increments: MySQL keeps the greater of its count and the one written.
 * What a process killed before its write held is then not lost: the next request of the same
 * account (the month) or key (the day), on any process, carries a count that includes it. When
 * increments were kept instead, every kill -9 lost about a second of them for good. A failed
 * write keeps its counts for the next attempt; a count written twice changes nothing.
 */
export class UsageRecorder {
  private monthly = new Map<string, MonthlyCount>();
  private daily = new Map<string, DailyCount>();
  private lastUsed = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
  ) {}

  /** One admitted, metered request: its account's month and its key's day as their counters reached once it was counted. */
  count(month: MonthlyCount, day: DailyCount): void {
    this.keepMonthly(month);
    this.keepDaily(day);
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
        await raiseUsage(this.db, monthly, daily);
      } catch (error) {
        for (const count of monthly) this.keepMonthly(count);
        for (const count of daily) this.keepDaily(count);
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

  private keepMonthly(count: MonthlyCount): void {
    const key = `${count.accountId}|${count.mode}|${count.period}`;
    const kept = this.monthly.get(key);
    if (kept) kept.requests = Math.max(kept.requests, count.requests);
    else this.monthly.set(key, { ...count });
    this.schedule();
  }

  private keepDaily(count: DailyCount): void {
    const key = `${count.keyId}|${count.day}`;
    const kept = this.daily.get(key);
    if (kept) kept.requests = Math.max(kept.requests, count.requests);
    else this.daily.set(key, { ...count });
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
  }
}
