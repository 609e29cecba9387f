/**
 * Byte formats of the index's stored lists (src/index/segments.repository.ts). Both are LEB128
 * varints over ascending ids stored as gaps, so a dense list costs about a byte per number:
 * - a postings chunk: count, then per posting its passage id gap, tf and passage length;
 * - a term-id set (a passage's distinct terms, kept so deletion can correct df): count, then gaps.
 */

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

  finish(): Uint8Array {
    return this.bytes.slice(0, this.size);
  }
}

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
}

/** Encodes postings sorted by passage id (ascending, distinct): the writer's and the merger's output. */
export function encodePostings(passages: ArrayLike<number>, tfs: ArrayLike<number>, lengths: ArrayLike<number>, from = 0, to = passages.length): Uint8Array {
  const out = new ByteWriter();
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

export function decodePostings(bytes: Uint8Array): PostingColumns {
  const input = new ByteReader(bytes);
  const count = input.varint();
  const columns = { passages: new Uint32Array(count), tfs: new Uint32Array(count), lengths: new Uint32Array(count) };
  let passage = 0;
  for (let i = 0; i < count; i++) {
    passage += input.varint();
    columns.passages[i] = passage;
    columns.tfs[i] = input.varint();
    columns.lengths[i] = input.varint();
  }
  return columns;
}

/** Encodes a set of ids (any order; duplicates kept once). */
export function encodeIdSet(ids: Iterable<number>): Uint8Array {
  const sorted = Uint32Array.from(new Set(ids)).sort();
  const out = new ByteWriter();
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
