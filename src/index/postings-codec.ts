/**
 * Byte formats of the index's stored lists (src/index/segments.repository.ts). All are LEB128
 * varints over ascending ids stored as gaps, so a dense list costs about a byte per number:
 * - a postings chunk: count, then per posting its passage id gap, tf and passage length;
 * - a term-id set (a passage's distinct terms, kept so deletion can correct df): count, then gaps;
 * - a packed segment (every list of a small segment in one value): the number of lists, then per
 *   list its term id gap and its number of chunks, and per chunk its block, its byte length and
 *   its bytes (a postings chunk as above).
 */

/**
 * A term's postings in one segment are stored a block of BLOCK_SPAN passage ids at a time
 * (block b holds the ids from the segment's first passage + b × BLOCK_SPAN on): a block is
 * what scoring adds up while its totals stay in cache, and what a query spreads over threads.
 * A block holds at most BLOCK_SPAN postings of a term, a row of at most a few hundred KB.
 */
export const BLOCK_SPAN = 32_768;

export interface StoredBlock {
  block: number;
  data: Uint8Array;
}

export interface PostingColumns {
  passages: Uint32Array;
  tfs: Uint32Array;
  lengths: Uint32Array;
}

class ByteWriter {
  private bytes = new Uint8Array(256);
  private size = 0;

  varint(value: number): void {
    if (this.size + 5 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    let v = value >>> 0;
    while (v >= 0x80) {
      this.bytes[this.size++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.size++] = v;
  }

  raw(bytes: Uint8Array): void {
    if (this.size + bytes.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.size + bytes.length));
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(bytes, this.size);
    this.size += bytes.length;
  }

  /** A copy of what was written; the writer is empty again, its buffer kept for the next value. */
  finish(): Uint8Array {
    const written = this.bytes.slice(0, this.size);
    this.size = 0;
    return written;
  }
}

/**
 * The writer of every postings chunk and term-id set this thread encodes: a merge encodes
 * thousands of lists of a few bytes, a write a set per passage, and a buffer of its own for each
 * (256 bytes, outside V8's heap) cost more than writing them.
 */
const shortWriter = new ByteWriter();

class ByteReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  varint(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (this.at >= this.bytes.length) throw new RangeError('truncated varint in a stored list');
      const byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  }

  /** The next `length` bytes, as a view of the input. */
  raw(length: number): Uint8Array {
    if (this.at + length > this.bytes.length) throw new RangeError('truncated packed segment');
    const view = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return view;
  }
}

/** Encodes postings sorted by passage id (ascending, distinct): the writer's and the merger's output. */
export function encodePostings(passages: ArrayLike<number>, tfs: ArrayLike<number>, lengths: ArrayLike<number>, from = 0, to = passages.length): Uint8Array {
  const out = shortWriter;
  out.varint(to - from);
  let previous = 0;
  for (let i = from; i < to; i++) {
    out.varint(passages[i]! - previous);
    out.varint(tfs[i]!);
    out.varint(lengths[i]!);
    previous = passages[i]!;
  }
  return out.finish();
}

/** Encodes the first `count` postings (sorted by passage id) as the blocks of a segment starting at passage `first`. */
export function encodeBlocks(passages: ArrayLike<number>, tfs: ArrayLike<number>, lengths: ArrayLike<number>, count: number, first: number): StoredBlock[] {
  const blocks: StoredBlock[] = [];
  for (let from = 0; from < count;) {
    const block = Math.floor((passages[from]! - first) / BLOCK_SPAN);
    const end = first + (block + 1) * BLOCK_SPAN;
    let to = from;
    while (to < count && passages[to]! < end) to++;
    blocks.push({ block, data: encodePostings(passages, tfs, lengths, from, to) });
    from = to;
  }
  return blocks;
}

export function decodePostings(bytes: Uint8Array): PostingColumns {
  const columns = { passages: new Uint32Array(0), tfs: new Uint32Array(0), lengths: new Uint32Array(0) };
  const count = decodePostingsInto(bytes, columns);
  return { passages: columns.passages.subarray(0, count), tfs: columns.tfs.subarray(0, count), lengths: columns.lengths.subarray(0, count) };
}

/**
 * Decodes into `columns` from index `offset` on, growing them (keeping what they hold) when too
 * short, and returns how many postings it wrote: what scoring uses, reusing its columns across
 * chunks and queries. The varint
 * reads are written out inline; a method call per number tripled the time of scoring.
 */
export function decodePostingsInto(bytes: Uint8Array, columns: PostingColumns, offset = 0): number {
  let at = 0;
  // Varints written out inline (a function call per number tripled the time of scoring); a
  // read past the end yields undefined, which ends a varint, and is caught once at the end.
  let byte = bytes[at++]!;
  let count = byte & 0x7f;
  for (let scale = 0x80; byte >= 0x80; scale *= 0x80) count += ((byte = bytes[at++]!) & 0x7f) * scale;
  if (columns.passages.length < offset + count) {
    const size = Math.max(offset + count, 2 * columns.passages.length);
    for (const name of ['passages', 'tfs', 'lengths'] as const) {
      const grown = new Uint32Array(size);
      grown.set(columns[name].subarray(0, offset));
      columns[name] = grown;
    }
  }
  const { passages, tfs, lengths } = columns;
  let passage = 0;
  for (let i = offset; i < offset + count; i++) {
    byte = bytes[at++]!;
    let gap = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) gap += ((byte = bytes[at++]!) & 0x7f) * scale;
    passage += gap;
    passages[i] = passage;
    byte = bytes[at++]!;
    let tf = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) tf += ((byte = bytes[at++]!) & 0x7f) * scale;
    tfs[i] = tf;
    byte = bytes[at++]!;
    let length = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) length += ((byte = bytes[at++]!) & 0x7f) * scale;
    lengths[i] = length;
  }
  if (at > bytes.length) throw new RangeError('truncated stored postings list');
  return count;
}

/** Encodes a set of ids (any order; duplicates kept once). */
export function encodeIdSet(ids: Iterable<number>): Uint8Array {
  const sorted = Uint32Array.from(new Set(ids)).sort();
  const out = shortWriter;
  out.varint(sorted.length);
  let previous = 0;
  for (const id of sorted) {
    out.varint(id - previous);
    previous = id;
  }
  return out.finish();
}

export function decodeIdSet(bytes: Uint8Array): number[] {
  const input = new ByteReader(bytes);
  const ids = new Array<number>(input.varint());
  let id = 0;
  for (let i = 0; i < ids.length; i++) ids[i] = id += input.varint();
  return ids;
}

/** A term's stored blocks in one segment. */
export interface TermBlocks {
  termId: number;
  chunks: StoredBlock[];
}

/** Every list of a segment as one value (lists in ascending term order). */
export function packLists(lists: readonly TermBlocks[]): Uint8Array {
  const out = new ByteWriter();
  out.varint(lists.length);
  let previous = 0;
  for (const { termId, chunks } of lists) {
    out.varint(termId - previous);
    previous = termId;
    out.varint(chunks.length);
    for (const { block, data } of chunks) {
      out.varint(block);
      out.varint(data.length);
      out.raw(data);
    }
  }
  return out.finish();
}

/** The lists of a packed segment. Their chunks are views of `packed`. */
export function unpackLists(packed: Uint8Array): TermBlocks[] {
  const input = new ByteReader(packed);
  const lists: TermBlocks[] = [];
  let termId = 0;
  for (let n = input.varint(); n > 0; n--) {
    termId += input.varint();
    const chunks: StoredBlock[] = [];
    for (let c = input.varint(); c > 0; c--) {
      const block = input.varint();
      chunks.push({ block, data: input.raw(input.varint()) });
    }
    lists.push({ termId, chunks });
  }
  return lists;
}
