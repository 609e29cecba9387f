/**
 * A 64-bit simhash over 3-term shingles (Charikar; Manku et al. for near-duplicate web pages),
 * returned as four 16-bit bands: two texts within Hamming distance 3 share at least one band
 * exactly, which is what lets the database find candidates by equality.
 */
const SHINGLE = 3;

export type Bands = [number, number, number, number];

export function simhashBands(terms: readonly string[]): Bands {
  // Each hash bit votes for (1) or against (0) its simhash bit; a bit is set when most voted for it.
  const ones = new Int32Array(64);
  let shingles = 0;
  for (let i = 0; i + SHINGLE <= Math.max(terms.length, SHINGLE); i++) {
    // The shingle is its terms joined by spaces, hashed as it is read: no string is built.
    const end = Math.min(i + SHINGLE, terms.length);
    let low = 0x811c9dc5;
    let high = 0x01000193;
    for (let t = i; t < end; t++) {
      if (t > i) {
        low = fnv1aStep(low, SPACE);
        high = fnv1aStep(high, SPACE);
      }
      const term = terms[t]!;
      for (let c = 0; c < term.length; c++) {
        low = fnv1aStep(low, term.charCodeAt(c));
        high = fnv1aStep(high, term.charCodeAt(c));
      }
    }
    countOnes(ones, 0, avalanche(low));
    countOnes(ones, 32, avalanche(high));
    shingles++;
  }
  const bands: Bands = [0, 0, 0, 0];
  for (let bit = 0; bit < 64; bit++) if (2 * ones[bit]! > shingles) bands[bit >> 4] = bands[bit >> 4]! | (1 << (bit & 15));
  return bands;
}

const SPACE = 0x20;

/** Counts the hash's set bits into ones[offset + bit], visiting only those. */
function countOnes(ones: Int32Array, offset: number, hash: number): void {
  for (let rest = hash >>> 0; rest !== 0; rest = (rest & (rest - 1)) >>> 0) {
    const bit = 31 - Math.clz32(rest & -rest);
    ones[offset + bit]!++;
  }
}

export function hammingDistance(a: readonly number[], b: readonly number[]): number {
  let distance = 0;
  for (let i = 0; i < 4; i++) {
    let x = (a[i]! ^ b[i]!) & 0xffff;
    while (x) {
      x &= x - 1;
      distance++;
    }
  }
  return distance;
}

/** FNV-1a over UTF-16 code units, one at a time. */
function fnv1aStep(hash: number, code: number): number {
  return Math.imul((hash ^ code) >>> 0, 0x01000193) >>> 0;
}

/** A final avalanche so that similar shingles do not share high bits. */
function avalanche(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  return hash >>> 0;
}
