import { B, K1 } from '../ranking/bm25.js';
import { BLOCK_SPAN, decodePostingsInto, type PostingColumns } from './postings-codec.js';

export interface ScoreSegmentsInput {
  /** idf of each query term, by its index in the query. */
  idf: number[];
  avgdl: number;
  /** First passage of each active segment the chunks come from: blocks count from there. */
  segments: { first: number }[];
  /** Stored blocks of the query terms' postings, each with its query term, segment (by index) and block number. */
  chunks: { term: number; segment: number; block: number; data: Uint8Array }[];
  /** How many of the best passages to return. */
  want: number;
  /** When given, only these passages (ids in ascending order) are ranked: a selective filter applied while scoring. */
  allowed?: Uint32Array;
}

export interface ScoreSegmentsOutput {
  /** The best `want` passages, best first (ties: lower id first, for a stable order). */
  passages: number[];
  scores: number[];
  /** Passages that matched at least one query term. */
  matched: number;
}

// Per thread, reused by every query: a block's score totals (256 KB, so they stay in the
// core's cache), the offsets touched in it, and the decoded postings of a block's chunks.
const totals = new Float64Array(BLOCK_SPAN);
const touched = new Uint32Array(BLOCK_SPAN);
const columns: PostingColumns = { passages: new Uint32Array(0), tfs: new Uint32Array(0), lengths: new Uint32Array(0) };

/**
 * Pool task: exhaustive BM25 over the query terms' postings. A passage lives in exactly one
 * block of one active segment, with all its postings (tf and length included), so each block
 * is added up on its own and its totals are final: every score is exact with the current
 * corpus statistics, and no passage is looked up one by one.
 */
export function scoreSegments(input: ScoreSegmentsInput): ScoreSegmentsOutput {
  const top = new TopK(Math.max(1, input.want));
  const norm = K1 * (1 - B);
  const slope = (K1 * B) / input.avgdl;
  let matched = 0;
  const byBlock = new Map<string, ScoreSegmentsInput['chunks']>();
  for (const chunk of input.chunks) {
    const key = `${chunk.segment}:${chunk.block}`;
    const list = byBlock.get(key);
    if (list) list.push(chunk);
    else byBlock.set(key, [chunk]);
  }
  const sums = totals;
  const seen = touched;
  for (const chunks of byBlock.values()) {
    const base = input.segments[chunks[0]!.segment]!.first + chunks[0]!.block * BLOCK_SPAN;
    let distinct = 0;
    for (const chunk of chunks) {
      const count = decodePostingsInto(chunk.data, columns);
      const { passages, tfs, lengths } = columns;
      if (count > 0 && (passages[0]! < base || passages[count - 1]! >= base + BLOCK_SPAN)) {
        throw new RangeError(`postings outside their block ${base}..${base + BLOCK_SPAN - 1}`);
      }
      // BM25's term weight (bm25.ts) with its constants folded: idf tf (k1 + 1) / (tf + k1 (1 - b + b length / avgdl)).
      const scale = input.idf[chunk.term]! * (K1 + 1);
      for (let i = 0; i < count; i++) {
        const offset = passages[i]! - base;
        const tf = tfs[i]!;
        if (sums[offset] === 0) seen[distinct++] = offset;
        sums[offset]! += (scale * tf) / (tf + norm + slope * lengths[i]!);
      }
    }
    for (let i = 0; i < distinct; i++) {
      const offset = seen[i]!;
      if (!input.allowed || contains(input.allowed, base + offset)) top.offer(base + offset, sums[offset]!);
      // Leaves the totals zeroed for the next block and query.
      sums[offset] = 0;
    }
    matched += distinct;
  }
  return { ...top.sorted(), matched };
}

/** Binary search of an ascending array. */
function contains(sorted: Uint32Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = sorted[middle]!;
    if (at === value) return true;
    if (at < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/**
 * The k best (score, id) pairs seen: a binary min-heap whose root is the weakest kept, in typed
 * arrays of k entries (a query offers every passage it matches: tens of thousands at a million
 * passages, most of them turned away by one comparison with the root).
 */
class TopK {
  private readonly ids: Float64Array;
  private readonly scores: Float64Array;
  private size = 0;
  constructor(private readonly k: number) {
    this.ids = new Float64Array(k);
    this.scores = new Float64Array(k);
  }

  offer(id: number, score: number): void {
    if (this.size < this.k) {
      this.ids[this.size] = id;
      this.scores[this.size] = score;
      this.up(this.size++);
    } else if (this.weaker(0, id, score)) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.down(0);
    }
  }

  sorted(): { passages: number[]; scores: number[] } {
    const order = Array.from({ length: this.size }, (_e, i) => i).sort((a, b) => this.scores[b]! - this.scores[a]! || this.ids[a]! - this.ids[b]!);
    return { passages: order.map((i) => this.ids[i]!), scores: order.map((i) => this.scores[i]!) };
  }

  /** Whether the kept entry at `at` ranks below (id, score). */
  private weaker(at: number, id: number, score: number): boolean {
    return this.scores[at]! < score || (this.scores[at] === score && this.ids[at]! > id);
  }

  private up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.weaker(at, this.ids[parent]!, this.scores[parent]!)) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private down(at: number): void {
    for (;;) {
      let weakest = at;
      const left = 2 * at + 1;
      const right = left + 1;
      if (left < this.size && this.weaker(left, this.ids[weakest]!, this.scores[weakest]!)) weakest = left;
      if (right < this.size && this.weaker(right, this.ids[weakest]!, this.scores[weakest]!)) weakest = right;
      if (weakest === at) return;
      this.swap(at, weakest);
      at = weakest;
    }
  }

  private swap(a: number, b: number): void {
    const id = this.ids[a]!;
    this.ids[a] = this.ids[b]!;
    this.ids[b] = id;
    const score = this.scores[a]!;
    this.scores[a] = this.scores[b]!;
    this.scores[b] = score;
  }
}
