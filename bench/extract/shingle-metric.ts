/**
 * scrapinghub's article-extraction-benchmark metric (its evaluate.py), as pure functions:
 * texts become multisets of 4-token shingles, tokens being `\w+` runs. Python's Unicode `\w`
 * is letters, digits and the underscore, which `[\p{L}\p{N}_]` matches; combining marks are
 * not word characters in either. Tokens keep their case, as in the original.
 */
const TOKEN = /[\p{L}\p{N}_]+/gu;
/** Joins a shingle's tokens into a map key; it cannot occur inside a token. */
const SEPARATOR = ' ';

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface Scores {
  precision: number;
  recall: number;
  f1: number;
}

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * The multiset of n-token shingles. Like the original, a text shorter than n tokens yields one
 * shorter shingle (all its tokens), and an empty text none.
 */
export function shingles(text: string, n = 4): Map<string, number> {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last && i < tokens.length; i++) {
    const key = tokens.slice(i, i + n).join(SEPARATOR);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** One page: tp/fp/fn over the union of both multisets, normalised by their sum (so every page weighs the same). */
export function matchShingles(expected: string, predicted: string, n = 4): Counts {
  const truth = shingles(expected, n);
  const guess = shingles(predicted, n);
  let tp = 0;
  let fn = 0;
  for (const [key, count] of truth) {
    const hit = Math.min(count, guess.get(key) ?? 0);
    tp += hit;
    fn += count - hit;
  }
  let fp = 0;
  for (const [key, count] of guess) fp += Math.max(0, count - (truth.get(key) ?? 0));
  const sum = tp + fp + fn;
  return sum > 0 ? { tp: tp / sum, fp: fp / sum, fn: fn / sum } : { tp, fp, fn };
}

export function precision({ tp, fp, fn }: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  return tp + fp === 0 ? 0 : tp / (tp + fp);
}

export function recall({ tp, fp, fn }: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  return tp + fn === 0 ? 0 : tp / (tp + fn);
}

/** The page's own F1, for ranking pages (the benchmark's F1 is computed from the averages instead). */
export function pageF1(counts: Counts): number {
  const p = precision(counts);
  const r = recall(counts);
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

/**
 * The benchmark figures over pages: precision averaged over pages that predicted something
 * (tp+fp > 0), recall over pages that expect something (tp+fn > 0), F1 from the two averages.
 */
export function aggregate(pages: readonly Counts[]): Scores {
  const p = mean(pages.filter((c) => c.tp + c.fp > 0).map(precision));
  const r = mean(pages.filter((c) => c.tp + c.fn > 0).map(recall));
  return { precision: p, recall: r, f1: p + r === 0 ? 0 : (2 * p * r) / (p + r) };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
