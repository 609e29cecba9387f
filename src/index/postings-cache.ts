/** A stored block of one term's postings in one segment, as scoring takes it. */
export interface CachedBlock {
  block: number;
  /** In a SharedArrayBuffer: handing it to a pool thread shares it instead of copying it. */
  data: Uint8Array;
}

/** What an entry costs besides its bytes (the key, the array, the map's slot), for the budget. */
const ENTRY_OVERHEAD = 128;

/** What a list of blocks counts for in the budget. */
function entryBytes(blocks: readonly CachedBlock[]): number {
  return ENTRY_OVERHEAD + blocks.reduce((sum, b) => sum + b.data.byteLength, 0);
}

/** A block copied into shared memory: a row's buffer may be a slice of a much larger one, and a pool thread then shares it instead of copying it. */
function shared({ block, data }: { block: number; data: Uint8Array }): CachedBlock {
  const copy = new Uint8Array(new SharedArrayBuffer(data.byteLength));
  copy.set(data);
  return { block, data: copy };
}

/**
 * The postings lists queries read, by segment and term, least recently used evicted first, at
 * most `maxBytes` in all. A segment's postings never change once it is active (writes add
 * segments, deletions only count dead postings, merges write new segments and retire old ones),
 * so an entry is never stale; it is keyed by the segment's id and creation time, which together
 * name one segment however a database is emptied and refilled. An empty list (the term has no
 * posting in that segment) is remembered too.
 */
export class PostingsCache {
  private readonly entries = new Map<string, { blocks: CachedBlock[]; bytes: number }>();
  private bytes = 0;
  /**
   * Packed segments (segments.repository.ts) unpacked, by segment, and null for a segment known
   * not to be packed; the most recently used, within a quarter of the budget. A packed segment is
   * small (few postings), so one read gives every term of it, and later queries take theirs here.
   */
  private readonly packedSegments = new Map<string, { lists: ReadonlyMap<number, CachedBlock[]> | null; bytes: number }>();
  private packedBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The name of one segment however a database is emptied and refilled: its id and creation time. */
  static segmentKey(segment: { id: number; createdAt: number }): string {
    return `${segment.id}:${segment.createdAt}`;
  }

  static key(segment: { id: number; createdAt: number }, termId: number): string {
    return `${PostingsCache.segmentKey(segment)}:${termId}`;
  }

  /** A segment's lists by term if it is packed, null if it is not, undefined when not known here. */
  packed(segment: { id: number; createdAt: number }): ReadonlyMap<number, CachedBlock[]> | null | undefined {
    const key = PostingsCache.segmentKey(segment);
    const entry = this.packedSegments.get(key);
    if (entry) {
      this.packedSegments.delete(key);
      this.packedSegments.set(key, entry);
    }
    return entry?.lists;
  }

  /** Remembers a segment's unpacked lists (copied into shared memory), or null for a segment that is not packed; returns what it keeps. */
  setPacked(segment: { id: number; createdAt: number }, lists: readonly { termId: number; chunks: readonly { block: number; data: Uint8Array }[] }[] | null): ReadonlyMap<number, CachedBlock[]> | null {
    const kept = lists === null ? null : new Map(lists.map(({ termId, chunks }) => [termId, chunks.map(shared)]));
    let bytes = ENTRY_OVERHEAD;
    for (const blocks of kept?.values() ?? []) bytes += entryBytes(blocks);
    const limit = this.maxBytes / 4;
    if (bytes > limit) return kept;
    const key = PostingsCache.segmentKey(segment);
    this.packedBytes += bytes - (this.packedSegments.get(key)?.bytes ?? 0);
    this.packedSegments.delete(key);
    this.packedSegments.set(key, { lists: kept, bytes });
    for (const [oldest, entry] of this.packedSegments) {
      if (this.packedBytes <= limit) break;
      this.packedSegments.delete(oldest);
      this.packedBytes -= entry.bytes;
    }
    return kept;
  }

  get(key: string): CachedBlock[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: eviction takes the map's first entries.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.blocks;
  }

  /** Keeps `blocks` (copied into shared memory: a row's buffer may be a slice of a much larger one) and returns the kept copy. */
  set(key: string, blocks: readonly { block: number; data: Uint8Array }[]): CachedBlock[] {
    const kept = blocks.map(shared);
    const bytes = entryBytes(kept);
    if (bytes > this.maxBytes) return kept;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { blocks: kept, bytes });
    this.bytes += bytes;
    // Packed segments hold up to a quarter of the budget; the lists by term the rest.
    for (const [oldest, entry] of this.entries) {
      if (this.bytes + this.packedBytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return kept;
  }

  /** Bytes held (entries, packed segments and their overhead). */
  size(): number {
    return this.bytes + this.packedBytes;
  }
}
