import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { insertRequestLogEntries, type RequestLogEntry } from './request-log.repository.js';

/**
 * Audit rows are written in batches off the request path: a request never waits for its own
 * audit insert, and one multi-row INSERT per interval costs far less than one per request.
 * A failed flush keeps its rows for the next attempt; only a buffer far past any sane backlog
 * sheds its oldest rows (and says so in the log).
 */
export class AuditWriter {
  private buffer: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly logger: Logger,
    private readonly options = { intervalMs: 250, batchSize: 500, maxBuffered: 100_000 },
  ) {}

  record(entry: RequestLogEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > this.options.maxBuffered) {
      const dropped = this.buffer.splice(0, this.buffer.length - this.options.maxBuffered);
      this.logger.error({ dropped: dropped.length }, 'audit buffer full: oldest entries dropped');
    }
    if (this.buffer.length >= this.options.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.intervalMs);
  }

  /** Writes everything buffered so far; on failure keeps the rows and retries a second later. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // One flush at a time, so rows are inserted in the order they were recorded.
    while (this.flushing) await this.flushing;
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.options.batchSize);
      let failed = false;
      this.flushing = insertRequestLogEntries(this.db, batch).catch((error: unknown) => {
        failed = true;
        this.buffer.unshift(...batch);
        this.logger.warn({ err: error, pending: this.buffer.length }, 'audit flush failed; will retry');
      });
      await this.flushing;
      this.flushing = undefined;
      if (failed) {
        this.timer ??= setTimeout(() => void this.flush(), 1000);
        return;
      }
    }
  }

  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
