import { termWeight } from './bm25.js';
import { decodePostings } from './postings-codec.js';

export interface ScoreSegmentsInput {
  /** idf of each query term, by its index in the query. */
  idf: number[];
  avgdl: number;
  /** Stored postings chunks of the query terms (any segments, any order). */
  chunks: { term: number; data: Uint8Array }[];
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

/** Above this id span (or far sparser than the postings) scores go into a Map instead of an array. */
const MAX_DENSE_SPAN = 1 << 25;
let scratch = new Float64Array(0);

/**
 * Pool task: exhaustive BM25 over the query terms' postings, term at a time. A passage's
 * postings all travel in these chunks (tf and length included), so every score is exact with
 * the current corpus statistics, and no passage is looked up one by one.
 */
export function scoreSegments(input: ScoreSegmentsInput): ScoreSegmentsOutput {
  const lists = input.chunks.map((chunk) => ({ term: chunk.term, ...decodePostings(chunk.data) }));
  let postings = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const list of lists) {
    postings += list.passages.length;
    if (list.passages.length > 0) {
      min = Math.min(min, list.passages[0]!);
      max = Math.max(max, list.passages[list.passages.length - 1]!);
    }
  }
  if (postings === 0) return { passages: [], scores: [], matched: 0 };
  const span = max - min + 1;
  const top = new TopK(Math.max(1, input.want));
  let matched = 0;

  if (span <= MAX_DENSE_SPAN && span <= Math.max(8 * postings, 1 << 16)) {
    if (scratch.length < span) scratch = new Float64Array(Math.max(span, scratch.length * 2));
    const totals = scratch;
    for (const list of lists) {
      const idf = input.idf[list.term]!;
      for (let i = 0; i < list.passages.length; i++) {
        totals[list.passages[i]! - min]! += idf * termWeight(list.tfs[i]!, list.lengths[i]!, input.avgdl);
      }
    }
    // Every BM25 contribution is positive, so a non-zero total marks a passage not yet offered; zeroing it leaves the scratch clean.
    for (const list of lists) {
      for (const passage of list.passages) {
        const score = totals[passage - min]!;
        if (score === 0) continue;
        totals[passage - min] = 0;
        matched++;
        top.offer(passage, score);
      }
    }
  } else {
    const totals = new Map<number, number>();
    for (const list of lists) {
      const idf = input.idf[list.term]!;
      for (let i = 0; i < list.passages.length; i++) {
        const passage = list.passages[i]!;
        totals.set(passage, (totals.get(passage) ?? 0) + idf * termWeight(list.tfs[i]!, list.lengths[i]!, input.avgdl));
      }
    }
    matched = totals.size;
    for (const [passage, score] of totals) top.offer(passage, score);
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
