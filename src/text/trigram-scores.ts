/**
 * franc-min's francAll, the same scores from the same models, computed without its per-call
 * costs. francAll looks every trigram of the sample up in each candidate language's model in
 * turn (a property lookup in an object of 300 keys, 35 languages × about 1,000 trigrams per
 * 2,000-character sample) and builds, counts and sorts arrays of strings on the way: the
 * largest share of an extraction's language detection. Here the models are read once into one
 * table, trigram → its weight in every candidate language, so each trigram of a sample is
 * looked up once; the distances are the same integers summed in another order, sorted and
 * normalised as franc does, so the output is francAll's to the bit (test/trigram-scores.test.ts
 * compares them).
 */
import { data } from 'franc-min/data.js';
import { expressions } from 'franc-min/expressions.js';

/** franc's constants: sample cut, shortest sample judged, the distance of a trigram a model lacks. */
const MAX_LENGTH = 2048;
const MIN_LENGTH = 10;
const MAX_DIFFERENCE = 300;

/** A language and its score (1 the best), as francAll answers. */
export type TrigramScore = [string, number];

interface ScriptModels {
  /** The candidate languages of the script, in franc's order (its data's). */
  languages: string[];
  /**
   * Trigram → the languages whose models have it, with its weight (rank) there, packed as
   * language << 16 | weight: most trigrams are in a few models only.
   */
  weights: Map<string, Int32Array>;
}

const UNDETERMINED: TrigramScore[] = [['und', 1]];

/**
 * francAll(value, { only }) as a function of the value, for a fixed list of languages (the
 * tables are built once, here).
 */
export function trigramScorer(only: readonly string[]): (value: string) => TrigramScore[] {
  const scripts = new Map<string, ScriptModels>();
  for (const [script, models] of Object.entries(data)) {
    const languages = Object.keys(models).filter((language) => only.length === 0 || only.includes(language));
    const entries = new Map<string, Map<number, number>>();
    languages.forEach((language, l) => {
      const model = models[language]!.split('|');
      // franc gives a trigram its first position in the model (later repeats are overwritten).
      for (let weight = model.length - 1; weight >= 0; weight--) {
        let row = entries.get(model[weight]!);
        if (!row) entries.set(model[weight]!, row = new Map());
        row.set(l, weight);
      }
    });
    const weights = new Map<string, Int32Array>();
    for (const [trigram, row] of entries) weights.set(trigram, Int32Array.from(row, ([l, weight]) => (l << 16) | weight));
    scripts.set(script, { languages, weights });
  }
  const allowed = (language: string) => only.length === 0 || only.includes(language);

  return (input) => {
    if (!input || input.length < MIN_LENGTH) return UNDETERMINED.map(([l, s]) => [l, s]);
    const value = input.slice(0, MAX_LENGTH);
    const [script, count] = topScript(value);
    const models = script === undefined ? undefined : scripts.get(script);
    if (!models) {
      if (script === undefined || count === 0 || !allowed(script)) return [['und', 1]];
      return [[script, 1]];
    }
    if (models.languages.length === 0) return [['und', 1]];
    const distances = distancesOf(trigramCounts(value), models);
    const ranked: TrigramScore[] = models.languages.map((language, l) => [language, distances[l]!]);
    ranked.sort((a, b) => a[1] - b[1]);
    const min = ranked[0]![1];
    const max = value.length * MAX_DIFFERENCE - min;
    for (const entry of ranked) entry[1] = 1 - (entry[1] - min) / max || 0;
    return ranked;
  };
}

/** franc's script of the value: the expression that matches most characters, the first on a tie. */
function topScript(value: string): [string | undefined, number] {
  let top: string | undefined;
  let topCount = -1;
  for (const [script, expression] of Object.entries(expressions)) {
    const count = value.match(expression)?.length ?? 0;
    if (count > topCount) {
      topCount = count;
      top = script;
    }
  }
  return [top, topCount];
}

/**
 * The value's trigrams and how often each occurs, as trigram-utils counts them: ASCII
 * punctuation and digits become spaces, whitespace runs one space, trimmed, lower case, padded
 * with a space at both ends.
 */
function trigramCounts(value: string): Map<string, number> {
  const cleaned = ` ${value.replace(/[\u0021-\u0040]+/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase()} `;
  const counts = new Map<string, number>();
  for (let i = 0; i + 3 <= cleaned.length; i++) {
    const trigram = cleaned.slice(i, i + 3);
    counts.set(trigram, (counts.get(trigram) ?? 0) + 1);
  }
  return counts;
}

/**
 * franc's distance of the counts to each model: |count − weight − 1| per trigram it knows,
 * MAX_DIFFERENCE per one it lacks; counted as MAX_DIFFERENCE for every trigram, corrected where
 * a model has it.
 */
function distancesOf(counts: ReadonlyMap<string, number>, models: ScriptModels): Float64Array {
  const n = models.languages.length;
  const distances = new Float64Array(n).fill(counts.size * MAX_DIFFERENCE);
  for (const [trigram, count] of counts) {
    const row = models.weights.get(trigram);
    if (!row) continue;
    for (let e = 0; e < row.length; e++) {
      const l = row[e]! >> 16;
      distances[l] = distances[l]! + Math.abs(count - (row[e]! & 0xffff) - 1) - MAX_DIFFERENCE;
    }
  }
  return distances;
}
