import { decodePostingsInto, encodeBlocks, type PostingColumns, type StoredBlock } from './postings-codec.js';

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
 * Columns every merge of this thread decodes into, grown as needed and kept. A merge of the small
 * segments concurrent extractions write reads thousands of lists of a few postings each: typed
 * arrays allocated per list (six, with their views) cost more than decoding the lists.
 */
const scratch: PostingColumns = { passages: new Uint32Array(1024), tfs: new Uint32Array(1024), lengths: new Uint32Array(1024) };

/**
 * Pool task: rewrites the lists of several segments as one, sorted by passage id, without the
 * postings of deleted passages. A term left with no postings is left out.
 */
export function mergePostings(input: MergePostingsInput): MergePostingsOutput {
  let written = 0;
  let dropped = 0;
  const lists: MergePostingsOutput['lists'] = [];
  for (const { termId, chunks } of input.lists) {
    let total = 0;
    for (const chunk of chunks) total += decodePostingsInto(chunk, scratch, total);
    const { passages, tfs, lengths } = scratch;
    // Live postings moved to the front, in place (a posting only ever moves towards the front).
    let kept = 0;
    let ordered = true;
    for (let i = 0; i < total; i++) {
      const passage = passages[i]!;
      const offset = passage - input.first;
      if (offset < 0 || !(input.live[offset >> 3]! & (1 << (offset & 7)))) continue;
      if (kept > 0 && passages[kept - 1]! >= passage) ordered = false;
      passages[kept] = passage;
      tfs[kept] = tfs[i]!;
      lengths[kept] = lengths[i]!;
      kept++;
    }
    dropped += total - kept;
    written += kept;
    if (kept === 0) continue;
    // Segments are merged oldest first, so their lists usually come in order already.
    const columns = ordered ? [passages, tfs, lengths] : sortedColumns(passages, tfs, lengths, kept);
    lists.push({ termId, chunks: encodeBlocks(columns[0]!, columns[1]!, columns[2]!, kept, input.first) });
  }
  return { lists, written, dropped };
}

/** The first `count` postings sorted by passage id, as new columns. */
function sortedColumns(passages: Uint32Array, tfs: Uint32Array, lengths: Uint32Array, count: number): Uint32Array[] {
  const order = Uint32Array.from({ length: count }, (_v, i) => i).sort((a, b) => passages[a]! - passages[b]!);
  return [passages, tfs, lengths].map((column) => order.map((i) => column[i]!));
}
