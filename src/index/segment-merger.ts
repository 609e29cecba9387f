import { sql, type Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import { withDeadlockRetry } from '../storage/deadlock-retry.js';
import { unpackLists } from './postings-codec.js';
import {
  createSegment, dropSegment, dropSegments, insertLists, PACK_MAX_POSTINGS, PACKED_TERM, segmentsByState, segmentsOf, writeLists, type Segment, type SegmentList,
} from './segments.repository.js';

/** Segments of one level that are folded into one of the next: about log10(passages) levels, so a query reads a few dozen rows per term. */
export const MERGE_FACTOR = 10;
/** A segment whose postings are this dead (deleted or replaced passages) is rewritten on its own. */
const EXPUNGE_RATIO = 0.3;
/** Postings-list rows read per segment per round of a merge. */
const ROWS_PER_READ = 1000;
/** Bytes of stored lists handed to one merge task. */
const BYTES_PER_TASK = 8 * 2 ** 20;
/** When another process holds a mode's merge lock, try again after this long. */
const BUSY_RETRY_MS = 2000;

/** Told of every merge a SegmentMerger runs (for metrics). */
export interface MergeObserver {
  /** A merge swapped its segments for the merged one, in this many seconds. */
  merged(seconds: number): void;
  /** A merge threw; the error then goes to `onError`. */
  failed(): void;
}

export interface MergerOptions {
  /** Errors of the background work (merges and the clean-up before them); the mode is merged again at its next request. */
  onError?: (error: unknown, mode: Mode) => void;
  observer?: MergeObserver;
}

export interface MergePlan {
  segments: Segment[];
  level: number;
}

/**
 * What to merge next: every segment of the lowest level that has MERGE_FACTOR of them (levels
 * age upwards, so they hold neighbouring passage ranges), else a segment mostly dead.
 */
export function planMerge(active: readonly Segment[]): MergePlan | null {
  const levels = [...new Set(active.map((s) => s.level))].sort((a, b) => a - b);
  for (const level of levels) {
    const segments = active.filter((s) => s.level === level);
    if (segments.length >= MERGE_FACTOR) return { segments, level: level + 1 };
  }
  const dead = active.find((s) => s.deadPostings > EXPUNGE_RATIO * s.postings);
  return dead ? { segments: [dead], level: dead.level } : null;
}

/**
 * Keeps each mode's segments few and free of dead postings, in the background of the process
 * that writes. A MySQL named lock (released by the server if the process dies) makes one
 * process at a time merge a mode; a merge cut short leaves a `building` segment that queries
 * never read and the next merge removes.
 */
export class SegmentMerger {
  private readonly loops = new Map<Mode, Promise<void>>();
  private readonly requested = new Set<Mode>();
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly pool: CpuPool,
    private readonly options: MergerOptions = {},
  ) {}

  /** Notes that a mode may need merging; the work happens in the background. */
  request(mode: Mode): void {
    if (this.closed) return;
    this.requested.add(mode);
    if (!this.loops.has(mode)) {
      this.loops.set(mode, this.loop(mode).finally(() => this.loops.delete(mode)));
    }
  }

  /** Merges a mode until nothing is left to merge (for benchmarks and tests that measure the settled index). */
  async settle(mode: Mode): Promise<void> {
    this.request(mode);
    while (this.loops.has(mode)) await this.loops.get(mode);
  }

  /** Stops between two rounds of a merge; what was being built is discarded by the next merge. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.loops.values());
  }

  private async loop(mode: Mode): Promise<void> {
    while (this.requested.has(mode) && !this.closed) {
      this.requested.delete(mode);
      try {
        if (!(await this.mergeWhileNeeded(mode))) {
          this.requested.add(mode);
          await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
        }
      } catch (error) {
        this.options.onError?.(error, mode);
      }
    }
  }

  /**
   * Whether there is anything to merge or clean up, from one read without the lock: a merge is
   * requested after every write, and most find nothing to do (taking the lock and reading the
   * segments under it were five statements). A writer asks after its commit, so the segment
   * that makes a merge due is always seen by the request that follows it.
   */
  private async mergeDue(mode: Mode): Promise<boolean> {
    const segments = await segmentsByState(this.db, mode, ['active', 'building', 'retired']);
    return segments.building.length > 0 || segments.retired.length > 0 || planMerge(segments.active) !== null;
  }

  /** False when another process holds the mode's merge lock. */
  private async mergeWhileNeeded(mode: Mode): Promise<boolean> {
    if (!(await this.mergeDue(mode))) return true;
    return this.db.connection().execute(async (conn) => {
      // Named locks are server-wide: the database's name keeps deployments sharing a server apart (SHA1 keeps it within 64 characters).
      const lock = sql`CONCAT('sev_merge_', SHA1(CONCAT(DATABASE(), ':', ${mode})))`;
      const got = await sql<{ got: number | null }>`SELECT GET_LOCK(${lock}, 0) AS got`.execute(conn);
      if (Number(got.rows[0]?.got) !== 1) return false;
      try {
        const leftovers = await segmentsByState(conn, mode, ['building', 'retired']);
        await dropSegments(conn, [...leftovers.building, ...leftovers.retired].map((s) => s.id));
        for (let plan = planMerge(await segmentsOf(conn, mode, 'active')); plan && !this.closed; plan = planMerge(await segmentsOf(conn, mode, 'active'))) {
          const started = performance.now();
          try {
            if (await this.merge(conn, mode, plan)) this.options.observer?.merged((performance.now() - started) / 1000);
          } catch (error) {
            this.options.observer?.failed();
            throw error;
          }
        }
        return true;
      } finally {
        await sql`SELECT RELEASE_LOCK(${lock})`.execute(conn);
      }
    });
  }

  /** False when close() stopped it before the swap. */
  private async merge(conn: Kysely<Database>, mode: Mode, plan: MergePlan): Promise<boolean> {
    const first = Math.min(...plan.segments.map((s) => s.firstPassage));
    const last = Math.max(...plan.segments.map((s) => s.lastPassage));
    const live = await livePassages(conn, mode, first, last);
    const target = await createSegment(conn, mode, { level: plan.level, state: 'building', postings: 0, firstPassage: first, lastPassage: last });
    const cursors = plan.segments.map((s) => new ListCursor(conn, s.id));
    // A merge of small segments makes a small one: its lists are gathered and written packed at the end.
    const packed: SegmentList[] | undefined = plan.segments.reduce((sum, s) => sum + s.postings, 0) <= PACK_MAX_POSTINGS ? [] : undefined;
    let written = 0;
    let dropped = 0;
    for (;;) {
      if (this.closed) return false;
      for (const cursor of cursors) await cursor.fill();
      const open = cursors.filter((c) => c.pending());
      if (open.length === 0) break;
      // Terms up to the smallest last term any unfinished cursor holds are complete in every buffer.
      const bound = Math.min(...open.filter((c) => !c.finished).map((c) => c.lastTerm()));
      const lists = new Map<number, Uint8Array[]>();
      for (const cursor of cursors) {
        for (const row of cursor.take(bound)) {
          const chunks = lists.get(row.termId);
          if (chunks) chunks.push(row.data);
          else lists.set(row.termId, [row.data]);
        }
      }
      for (const part of byBytes([...lists.entries()].sort((a, b) => a[0] - b[0]).map(([termId, chunks]) => ({ termId, chunks })))) {
        const merged = await this.pool.run('mergePostings', { lists: part, first, live });
        if (packed) packed.push(...merged.lists);
        else await insertLists(conn, target, merged.lists);
        written += merged.written;
        dropped += merged.dropped;
      }
    }
    if (packed && written > 0) await writeLists(conn, target, packed, written);
    await withDeadlockRetry(() => conn.transaction().execute(async (trx) => {
      // Passages deleted while the merge ran were counted dead on the old segments; they are still in the new one.
      const old = await trx.selectFrom('index_segments').select(['dead_postings']).where('id', 'in', plan.segments.map((s) => s.id)).forUpdate().execute();
      // A segment rewritten alone for its dead postings that had none to drop was counted wrong;
      // leaving the count would have it rewritten again and again.
      const miscounted = plan.segments.length === 1 && dropped === 0;
      const dead = miscounted ? 0 : Math.max(0, old.reduce((sum, s) => sum + Number(s.dead_postings), 0) - dropped);
      await trx.updateTable('index_segments').set({ state: 'active', postings: written, dead_postings: dead }).where('id', '=', target).execute();
      await trx.updateTable('index_segments').set({ state: 'retired' }).where('id', 'in', plan.segments.map((s) => s.id)).execute();
    }));
    await dropSegments(conn, plan.segments.map((s) => s.id));
    // A merge that left nothing (every passage deleted) leaves no empty segment behind.
    if (written === 0) await dropSegment(conn, target);
    return true;
  }
}

/** Which passage ids of the mode in [first, last] still exist, as a bitmap (bit i: passage first + i). */
async function livePassages(conn: Kysely<Database>, mode: Mode, first: number, last: number): Promise<Uint8Array> {
  const bits = new Uint8Array(((last - first + 1) >> 3) + 1);
  const STEP = 500_000;
  for (let from = first; from <= last; from += STEP) {
    // The mode's own passages only: another mode's ids may fill the same range many times over.
    const rows = await conn.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id').select('p.id')
      .where('p.id', '>=', from).where('p.id', '<=', Math.min(last, from + STEP - 1)).where('d.mode', '=', mode).execute();
    for (const { id } of rows) {
      const offset = Number(id) - first;
      bits[offset >> 3]! |= 1 << (offset & 7);
    }
  }
  return bits;
}

/** Lists in groups of about BYTES_PER_TASK: one pool task each, so a round of large lists stays far within the task time limit. */
function byBytes(lists: { termId: number; chunks: Uint8Array[] }[]): { termId: number; chunks: Uint8Array[] }[][] {
  const groups: { termId: number; chunks: Uint8Array[] }[][] = [];
  let group: { termId: number; chunks: Uint8Array[] }[] = [];
  let bytes = 0;
  for (const list of lists) {
    group.push(list);
    bytes += list.chunks.reduce((sum, c) => sum + c.byteLength, 0);
    if (bytes >= BYTES_PER_TASK) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Reads one segment's lists in term order, a page at a time, never splitting a term's chunks across pages. */
class ListCursor {
  private rows: { termId: number; data: Uint8Array }[] = [];
  private after = -1;
  finished = false;

  constructor(private readonly conn: Kysely<Database>, private readonly segmentId: number) {}

  pending(): boolean {
    return this.rows.length > 0;
  }

  lastTerm(): number {
    return this.rows[this.rows.length - 1]!.termId;
  }

  async fill(): Promise<void> {
    if (this.finished || this.rows.length > 0) return;
    const page = await this.conn.selectFrom('index_segment_postings').select(['term_id', 'data'])
      .where('segment_id', '=', this.segmentId).where('term_id', '>', this.after).orderBy('term_id').orderBy('chunk').limit(ROWS_PER_READ).execute();
    if (page.length > 0 && Number(page[0]!.term_id) === PACKED_TERM) {
      // A packed segment: its one row is its packed value.
      this.rows = unpackLists(page[0]!.data as Uint8Array).flatMap(({ termId, chunks }) => chunks.map(({ data }) => ({ termId, data })));
      this.finished = true;
      return;
    }
    let rows = page.map((r) => ({ termId: Number(r.term_id), data: r.data as Uint8Array }));
    if (page.length < ROWS_PER_READ) {
      this.finished = true;
    } else {
      // The page may end inside the last term's blocks: that term is read whole next time.
      const cut = rows[rows.length - 1]!.termId;
      rows = rows.filter((r) => r.termId !== cut);
      // A term with blocks in more than ROWS_PER_READ id ranges (ids spread thin by deletions and
      // other modes) fills a page alone: it is read by itself, all its blocks at once.
      if (rows.length === 0) {
        rows = (await this.conn.selectFrom('index_segment_postings').select(['term_id', 'data'])
          .where('segment_id', '=', this.segmentId).where('term_id', '=', cut).orderBy('chunk').execute())
          .map((r) => ({ termId: Number(r.term_id), data: r.data as Uint8Array }));
      }
    }
    this.rows = rows;
    if (rows.length > 0) this.after = rows[rows.length - 1]!.termId;
  }

  take(bound: number): { termId: number; data: Uint8Array }[] {
    const split = this.rows.findIndex((r) => r.termId > bound);
    const taken = split < 0 ? this.rows : this.rows.slice(0, split);
    this.rows = split < 0 ? [] : this.rows.slice(split);
    return taken;
  }
}
