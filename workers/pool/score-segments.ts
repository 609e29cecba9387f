import { B, K1 } from './bm25.js';
import { decodePostingsInto, type PostingColumns } from './postings-codec.js';

export interface ScoreSegmentsInput {
  /** idf of each query term, by its index in the query. */
  idf: number[];
  avgdl: number;
  /** The active segments the chunks come from: a segment's postings lie within its passage-id range. */
  segments: { first: number; last: number }[];
  /** Stored postings chunks of the query terms, each with its query term and segment (by index). */
  chunks: { term: number; segment: number; data: Uint8Array }[];
  /** How many of the best passages to return. */
  want: number;
}

export interface ScoreSegmentsOutput {
  /** The best `want` passages, best first (ties: lower id first, for a stable order). */
  passages: number[];
  scores: number[];
  /** Passages that matched at least one query term. */
  matched: number;
}

// Per thread, reused by every query: score totals over a segment's id range, the offsets
// touched, and decoded postings columns.
let totals = new Float64Array(0);
let touched = new Uint32Array(0);
const columns: PostingColumns = { passages: new Uint32Array(0), tfs: new Uint32Array(0), lengths: new Uint32Array(0) };

/**
 * Pool task: exhaustive BM25 over the query terms' postings, one segment at a time. A passage
 * lives in exactly one active segment with all its postings (tf and length included), so each
 * segment's totals are final once its chunks are added up: every score is exact with the
 * current corpus statistics, and no passage is looked up one by one. The totals are a dense
 * array over the segment's id range (segments hold consecutive passages), so adding a posting
 * is an array write rather than a hash-map update.
 */
export function scoreSegments(input: ScoreSegmentsInput): ScoreSegmentsOutput {
  const top = new TopK(Math.max(1, input.want));
  const norm = K1 * (1 - B);
  const slope = (K1 * B) / input.avgdl;
  let matched = 0;
  const bySegment = new Map<number, ScoreSegmentsInput['chunks']>();
  for (const chunk of input.chunks) {
    const list = bySegment.get(chunk.segment);
    if (list) list.push(chunk);
    else bySegment.set(chunk.segment, [chunk]);
  }
  for (const [index, chunks] of bySegment) {
    const { first, last } = input.segments[index]!;
    const span = last - first + 1;
    if (totals.length < span) totals = new Float64Array(span);
    let distinct = 0;
    for (const chunk of chunks) {
      const idf = input.idf[chunk.term]!;
      const count = decodePostingsInto(chunk.data, columns);
      if (touched.length < distinct + count) {
        const grown = new Uint32Array(Math.max(distinct + count, 2 * touched.length));
        grown.set(touched.subarray(0, distinct));
        touched = grown;
      }
      const { passages, tfs, lengths } = columns;
      for (let i = 0; i < count; i++) {
        const offset = passages[i]! - first;
        if (offset < 0 || offset >= span) throw new RangeError(`posting of passage ${passages[i]} outside its segment's range ${first}..${last}`);
        const tf = tfs[i]!;
        // BM25's term weight (bm25.ts) with its constants folded: tf (k1 + 1) / (tf + k1 (1 - b + b length / avgdl)).
        const weight = (idf * tf * (K1 + 1)) / (tf + norm + slope * lengths[i]!);
        if (totals[offset] === 0) touched[distinct++] = offset;
        totals[offset]! += weight;
      }
    }
    for (let i = 0; i < distinct; i++) {
      const offset = touched[i]!;
      top.offer(first + offset, totals[offset]!);
      // Leaves the totals zeroed for the next segment and query.
      totals[offset] = 0;
    }
    matched += distinct;
  }
  return { ...top.sorted(), matched };
}

/** The k best (score, id) pairs seen: a binary min-heap whose root is the weakest kept. */
class TopK {
  private readonly ids: number[] = [];
  private readonly scores: number[] = [];
  constructor(private readonly k: number) {}

  offer(id: number, score: number): void {
    if (this.ids.length < this.k) {
      this.ids.push(id);
      this.scores.push(score);
      this.up(this.ids.length - 1);
    } else if (this.weaker(0, id, score)) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.down(0);
    }
  }

  sorted(): { passages: number[]; scores: number[] } {
    const order = this.ids.map((_id, i) => i).sort((a, b) => this.scores[b]! - this.scores[a]! || this.ids[a]! - this.ids[b]!);
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
      for (const child of [2 * at + 1, 2 * at + 2]) {
        if (child < this.ids.length && this.weaker(child, this.ids[weakest]!, this.scores[weakest]!)) weakest = child;
      }
      if (weakest === at) return;
      this.swap(at, weakest);
      at = weakest;
    }
  }

  private swap(a: number, b: number): void {
    [this.ids[a], this.ids[b]] = [this.ids[b]!, this.ids[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }
}
