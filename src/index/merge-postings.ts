import { decodePostings, encodeBlocks, type StoredBlock } from './postings-codec.js';

export interface MergePostingsInput {
  /** Each term's stored blocks from the segments being merged, oldest segment first. */
  lists: { termId: number; chunks: Uint8Array[] }[];
  /** The merged segment's first passage: its blocks count from there, and bit i of `live` stands for passage first + i. */
  first: number;
  /** Passages still indexed. */
  live: Uint8Array;
}

export interface MergePostingsOutput {
  lists: { termId: number; chunks: StoredBlock[] }[];
  /** Postings written, and postings dropped because their passage was deleted. */
  written: number;
  dropped: number;
}

/**
 * Pool task: rewrites the lists of several segments as one, sorted by passage id, without the
 * postings of deleted passages. A term left with no postings is left out.
 */
export function mergePostings(input: MergePostingsInput): MergePostingsOutput {
  let written = 0;
  let dropped = 0;
  const lists: MergePostingsOutput['lists'] = [];
  for (const { termId, chunks } of input.lists) {
    const decoded = chunks.map(decodePostings);
    const total = decoded.reduce((sum, c) => sum + c.passages.length, 0);
    const passages = new Uint32Array(total);
    const tfs = new Uint32Array(total);
    const lengths = new Uint32Array(total);
    let kept = 0;
    for (const chunk of decoded) {
      for (let i = 0; i < chunk.passages.length; i++) {
        const offset = chunk.passages[i]! - input.first;
        if (offset < 0 || !(input.live[offset >> 3]! & (1 << (offset & 7)))) continue;
        passages[kept] = chunk.passages[i]!;
        tfs[kept] = chunk.tfs[i]!;
        lengths[kept] = chunk.lengths[i]!;
        kept++;
      }
    }
    dropped += total - kept;
    written += kept;
    if (kept === 0) continue;
    const order = sortedOrder(passages, kept);
    const sorted = order ? [passages, tfs, lengths].map((column) => order.map((i) => column[i]!)) : [passages, tfs, lengths];
    lists.push({ termId, chunks: encodeBlocks(sorted[0]!, sorted[1]!, sorted[2]!, kept, input.first) });
  }
  return { lists, written, dropped };
}

/** Segments are merged oldest first, so their lists usually come in order already: null then. */
function sortedOrder(passages: Uint32Array, count: number): Uint32Array | null {
  let ordered = true;
  for (let i = 1; i < count && ordered; i++) ordered = passages[i - 1]! < passages[i]!;
  if (ordered) return null;
  return Uint32Array.from({ length: count }, (_v, i) => i).sort((a, b) => passages[a]! - passages[b]!);
}
