import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { AuditEntry } from './audit-entry.js';
import { encodeEntry } from './audit-entry.js';
import { auditStreamKey, ENTRY_FIELD } from './audit-stream.js';

export interface CaptureMetrics {
  dropped(reason: 'backlog_full' | 'buffer_full', count: number): void;
  buffered(entries: number): void;
}

export interface CaptureOptions {
  /** Entries the stream may hold before new ones are refused (the bounded backlog). */
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

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly metrics: CaptureMetrics,
    private readonly logger: Logger,
    private readonly options: CaptureOptions,
  ) {
    this.key = auditStreamKey(prefix);
    this.backlogTimer = setInterval(() => void this.refreshBacklog(), BACKLOG_REFRESH_MS);
    this.backlogTimer.unref();
    void this.refreshBacklog();
  }

  /** Entries waiting: in the stream (as last read) and in this process's buffer. */
  pending(): { stream: number; buffered: number } {
    return { stream: this.backlog, buffered: this.buffer.length };
  }

  /** Resolves once the entry is in Redis or, while Redis is away, in the buffer. Never rejects. */
  async record(entry: AuditEntry): Promise<void> {
    if (this.backlog >= this.options.maxBacklog) {
      this.metrics.dropped('backlog_full', 1);
      return;
    }
    if (this.redis.status !== 'ready') {
      this.keep([entry]);
      return;
    }
    try {
      await this.withTimeout(this.redis.xadd(this.key, '*', ENTRY_FIELD, encodeEntry(entry)));
      this.backlog++;
    } catch {
      this.keep([entry]);
    }
  }

  /** Hands the buffer over (waiting at most `timeoutMs`), then stops. */
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

  /** Moves up to 500 buffered entries to the stream in one pipeline; false when Redis refused. */
  private async handOver(): Promise<boolean> {
    const batch = this.buffer.slice(0, 500);
    const pipeline = this.redis.pipeline();
    for (const entry of batch) pipeline.xadd(this.key, '*', ENTRY_FIELD, encodeEntry(entry));
    try {
      const replies = await this.withTimeout(pipeline.exec());
      const failed = (replies ?? []).findIndex(([error]) => error);
      const taken = failed === -1 ? batch.length : failed;
      this.buffer.splice(0, taken);
      this.backlog += taken;
      this.metrics.buffered(this.buffer.length);
      return failed === -1;
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
