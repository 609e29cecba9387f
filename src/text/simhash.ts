/**
 * A 64-bit simhash over 3-term shingles (Charikar; Manku et al. for near-duplicate web pages),
 * returned as four 16-bit bands: two texts within Hamming distance 3 share at least one band
 * exactly, which is what lets the database find candidates by equality.
 */
const SHINGLE = 3;

export type Bands = [number, number, number, number];

export function simhashBands(terms: readonly string[]): Bands {
  const votes = new Int32Array(64);
  for (let i = 0; i + SHINGLE <= Math.max(terms.length, SHINGLE); i++) {
    const shingle = terms.slice(i, i + SHINGLE).join(' ');
    const halves = [fnv1a(shingle, 0x811c9dc5), fnv1a(shingle, 0x01000193)];
    for (let bit = 0; bit < 64; bit++) {
      const half = halves[bit >> 5]!;
      votes[bit]! += (half >>> (bit & 31)) & 1 ? 1 : -1;
    }
  }
  const bands: Bands = [0, 0, 0, 0];
  for (let bit = 0; bit < 64; bit++) if (votes[bit]! > 0) bands[bit >> 4] = bands[bit >> 4]! | (1 << (bit & 15));
  return bands;
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

function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // A final avalanche so that similar shingles do not share high bits.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  return hash >>> 0;
}
