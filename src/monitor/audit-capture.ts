import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { encodeEntries, type AuditEntry } from './audit-entry.js';
import { auditStreamKey, ENTRY_FIELD } from './audit-stream.js';

export interface CaptureMetrics {
  dropped(reason: 'backlog_full' | 'buffer_full', count: number): void;
  buffered(entries: number): void;
}

export interface CaptureOptions {
  /** Records (entries answered together) the stream may hold before new entries are dropped (the bounded backlog). */
  maxBacklog: number;
  /** Entries this process keeps in memory while Redis cannot take them. */
  maxBuffered: number;
  /** How long a response may wait for Redis to take its entry before the entry is buffered. */
  handoffTimeoutMs: number;
}

const RETRY_MS = 1000;
const BACKLOG_REFRESH_MS = 1000;

/**
 * The API side of the audit log. Each answered request's entry is handed to a Redis stream
 * before the response leaves, so an entry outlives this process from the moment the client
 * can see the answer; any process's AuditDrain writes it to MySQL later. While Redis cannot
 * take entries they wait in a bounded in-memory buffer and are handed over when it returns
 * (a crash during a Redis outage loses that buffer: the one window where entries can be lost,
 * and the log says so). An entry handed over twice (a reply lost in a time-out) is written
 * once: the writer skips entry ids it already has.
 */
export class AuditCapture {
  private readonly key: string;
  private buffer: AuditEntry[] = [];
  private backlog = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly backlogTimer: NodeJS.Timeout;
  private closed = false;
  /**
   * Set when the connection closes, cleared when it is ready again. A connection still opening
   * for the first time is not away: its commands wait in ioredis's queue, bounded by the hand-off
   * timeout, where buffering them would leave the first answers of a new process in memory.
   */
  private away = false;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly metrics: CaptureMetrics,
    private readonly logger: Logger,
    private readonly options: CaptureOptions,
    /**
     * When the entries gathered in a turn are sent: by default in the check phase; on a connection
     * whose writes are coalesced, with the turn's write (CoalescedWrites.atWrite), so the entries
     * share the write system call, and the reply the read, of the turn's other commands.
     */
    private readonly schedule: (send: () => void) => void = setImmediate,
  ) {
    this.key = auditStreamKey(prefix);
    redis.on('close', () => { this.away = true; });
    redis.on('ready', () => { this.away = false; });
    this.backlogTimer = setInterval(() => void this.refreshBacklog(), BACKLOG_REFRESH_MS);
    this.backlogTimer.unref();
    void this.refreshBacklog();
  }

  /** Entries waiting: in the stream (as last read) and in this process's buffer. */
  pending(): { stream: number; buffered: number } {
    return { stream: this.backlog, buffered: this.buffer.length };
  }

  /**
   * Resolves once the entry is in Redis or, while Redis is away, in the buffer. Never rejects.
   * Entries recorded in the same event-loop turn (the requests a busy process answers together)
   * travel as one stream record: one command and one reply for all of them, where a command per
   * entry cost a cached search a fifth of its throughput.
   */
  record(entry: AuditEntry): Promise<void> {
    if (this.backlog >= this.options.maxBacklog) {
      this.metrics.dropped('backlog_full', 1);
      return Promise.resolve();
    }
    if (this.away) {
      this.keep([entry]);
      return Promise.resolve();
    }
    if (!this.gathering) {
      const batch: AuditEntry[] = [];
      this.gathering = { entries: batch, sent: new Promise((resolve) => this.schedule(() => void this.send(batch).then(resolve))) };
    }
    this.gathering.entries.push(entry);
    return this.gathering.sent;
  }

  private gathering: { entries: AuditEntry[]; sent: Promise<void> } | undefined;

  private async send(batch: AuditEntry[]): Promise<void> {
    this.gathering = undefined;
    try {
      await this.withTimeout(this.redis.xadd(this.key, '*', ENTRY_FIELD, encodeEntries(batch)));
      this.backlog++;
    } catch {
      this.keep(batch);
    }
  }

  /** Hands the buffer over (waiting at most `timeoutMs`), then stops; the connection is its owner's to close. */
  async close(timeoutMs = 2000): Promise<void> {
    this.closed = true;
    clearInterval(this.backlogTimer);
    clearTimeout(this.retryTimer);
    const deadline = Date.now() + timeoutMs;
    while (this.buffer.length > 0 && Date.now() < deadline && this.redis.status === 'ready') {
      if (!(await this.handOver())) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (this.buffer.length > 0) this.logger.error({ entries: this.buffer.length }, 'audit entries lost at shutdown: Redis did not take them');
  }

  private keep(entries: AuditEntry[]): void {
    this.buffer.push(...entries);
    const over = this.buffer.length - this.options.maxBuffered;
    if (over > 0) {
      this.buffer.splice(0, over);
      this.metrics.dropped('buffer_full', over);
      this.logger.error({ dropped: over }, 'audit buffer full while Redis is unavailable: oldest entries dropped');
    }
    this.metrics.buffered(this.buffer.length);
    if (!this.closed) this.retryTimer ??= setTimeout(() => void this.retry(), RETRY_MS);
  }

  private async retry(): Promise<void> {
    this.retryTimer = undefined;
    while (this.buffer.length > 0 && this.redis.status === 'ready' && !this.closed) {
      if (!(await this.handOver())) break;
    }
    if (this.buffer.length > 0 && !this.closed) this.retryTimer = setTimeout(() => void this.retry(), RETRY_MS);
  }

  /** Moves up to 500 buffered entries to the stream as one record; false when Redis refused. */
  private async handOver(): Promise<boolean> {
    const batch = this.buffer.slice(0, 500);
    try {
      await this.withTimeout(this.redis.xadd(this.key, '*', ENTRY_FIELD, encodeEntries(batch)));
      this.buffer.splice(0, batch.length);
      this.backlog++;
      this.metrics.buffered(this.buffer.length);
      return true;
    } catch {
      return false;
    }
  }

  private async refreshBacklog(): Promise<void> {
    if (this.redis.status !== 'ready') return;
    try {
      this.backlog = await this.redis.xlen(this.key);
    } catch {
      // Kept as last read: the next refresh tries again.
    }
  }

  private async withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        promise,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('Redis did not take the audit entry in time')), this.options.handoffTimeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
