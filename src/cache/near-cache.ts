import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';

/** Where Redis publishes tracking invalidations for RESP2 clients (they receive them by REDIRECT). */
const INVALIDATE_CHANNEL = '__redis__:invalidate';

/**
 * How long a copy may be served at most. Invalidation is what keeps copies right; this bounds
 * a copy whose invalidation was lost in a way nobody noticed (a half-open connection).
 */
const MAX_AGE_MS = 10_000;

interface Copy<V> {
  value: V;
  bytes: number;
  copiedAt: number;
}

/** A key being read from Redis: `stale` once the key changed (or was dropped here) during the read. */
interface Reading {
  stale: boolean;
  readers: number;
}

/**
 * Copies of hot Redis values in this process, kept right by Redis's server-assisted client-side
 * caching: the command connection turns on CLIENT TRACKING in broadcast mode for `prefix`, with
 * its invalidations redirected to a subscriber connection, so every write to a key under the
 * prefix, by any process (this one included), expiry and eviction included, drops the copies.
 * A hit then costs no round trip at all, while what every process serves stays what Redis holds.
 *
 * The rules that keep a stale copy from being served, as in auth/key-cache.ts:
 *  - nothing is copied or served unless tracking is on; when either connection closes, every
 *    copy goes and copying stops until tracking is turned on again on the new connections;
 *  - a read that the key's invalidation overtook (invalidations and replies travel on different
 *    connections) does not store what it read;
 *  - a copy is served for MAX_AGE_MS at most.
 * What remains is the time an invalidation takes to arrive: a write on another process can be
 * missed by a read here for that long (well under a millisecond on one network).
 */
export class NearCache<V> {
  private readonly copies = new Map<string, Copy<V>>();
  private readonly reading = new Map<string, Reading>();
  private bytes = 0;
  private on = false;
  /** Moves on whenever copies made before may no longer be trusted. */
  private epoch = 0;
  /** Moves on whenever a connection closes: tracking turned on before then is gone. */
  private outages = 0;
  private subscriberId: number | undefined;
  private tracking: Promise<void> = Promise.resolve();

  constructor(
    private readonly commands: Redis,
    /** A connection of its own, opened with autoResubscribe off: it must ask its ID before subscribing. */
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('messageBuffer', (channel: Buffer, keys: Buffer[] | null) => {
      if (channel.toString() === INVALIDATE_CHANNEL) this.invalidate(keys);
    });
    this.subscriber.on('close', () => {
      this.subscriberId = undefined;
      this.pause();
    });
    this.commands.on('close', () => this.pause());
    // Both connections are ready before the first attempt, so the service starts with copies on.
    await Promise.all([this.commands, this.subscriber].map((redis) => redis.status === 'ready' ? undefined : once(redis, 'ready')));
    this.subscriber.on('ready', () => this.track());
    this.commands.on('ready', () => this.track());
    this.track();
    await this.tracking;
  }

  /** Whether copies are being made and served (tracking is on). */
  get active(): boolean {
    return this.on;
  }

  /** The copy under `key`, or undefined. */
  get(key: string): V | undefined {
    const copy = this.copies.get(key);
    if (!copy) return undefined;
    if (Date.now() - copy.copiedAt > MAX_AGE_MS) {
      this.forget(key);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.copies.delete(key);
    this.copies.set(key, copy);
    return copy.value;
  }

  /** Reads `key` with `read` and keeps a copy of a non-null result (of `size` bytes) when that is safe. */
  async read(key: string, read: () => Promise<V | null>, size: (value: V) => number): Promise<V | null> {
    if (!this.on) return read();
    const epoch = this.epoch;
    let reading = this.reading.get(key);
    if (!reading) this.reading.set(key, reading = { stale: false, readers: 0 });
    reading.readers++;
    try {
      const value = await read();
      if (value !== null && !reading.stale && this.on && epoch === this.epoch) this.keep(key, value, size(value));
      return value;
    } finally {
      if (--reading.readers === 0) this.reading.delete(key);
    }
  }

  /** Drops `key`'s copy at once: also for this process's own writes, before Redis's word arrives. */
  forget(key: string): void {
    const reading = this.reading.get(key);
    if (reading) reading.stale = true;
    const copy = this.copies.get(key);
    if (!copy) return;
    this.copies.delete(key);
    this.bytes -= copy.bytes;
  }

  /** Drops every copy whose key starts with `start`. */
  forgetStartingWith(start: string): void {
    for (const key of this.copies.keys()) if (key.startsWith(start)) this.forget(key);
    for (const [key, reading] of this.reading) if (key.startsWith(start)) reading.stale = true;
  }

  async close(): Promise<void> {
    this.pause();
    await this.tracking.catch(() => undefined);
    this.subscriber.disconnect();
  }

  /** Turns tracking on for the current connections, one attempt at a time, then starts copying. */
  private track(): void {
    this.tracking = this.tracking.then(async () => {
      const outages = this.outages;
      try {
        if (this.subscriberId === undefined) {
          if (this.subscriber.status !== 'ready') return;
          const id = await this.subscriber.client('ID');
          await this.subscriber.subscribe(INVALIDATE_CHANNEL);
          this.subscriberId = id;
        }
        if (this.commands.status !== 'ready') return;
        // Turned off first: tracking already on (an earlier subscriber) cannot be redirected.
        await this.commands.call('CLIENT', 'TRACKING', 'OFF');
        await this.commands.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', String(this.subscriberId), 'BCAST', 'PREFIX', this.prefix);
        // A connection that closed meanwhile has its own 'ready' coming, which tracks again.
        if (outages !== this.outages || this.subscriberId === undefined) return;
        this.clear();
        this.on = true;
      } catch (error) {
        this.logger.warn({ err: error }, 'near cache: Redis tracking could not be turned on; reading from Redis only');
      }
    });
  }

  private invalidate(keys: Buffer[] | null): void {
    // No keys: the database was flushed.
    if (keys === null) {
      this.clear();
      return;
    }
    for (const key of keys) this.forget(key.toString());
  }

  private keep(key: string, value: V, bytes: number): void {
    // One value never pushes out a cache's worth of others.
    if (bytes > this.maxBytes / 4) return;
    this.forget(key);
    this.copies.set(key, { value, bytes, copiedAt: Date.now() });
    this.bytes += bytes;
    for (const oldest of this.copies.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  private pause(): void {
    this.outages++;
    this.on = false;
    this.clear();
  }

  private clear(): void {
    this.epoch++;
    this.copies.clear();
    this.bytes = 0;
  }
}
