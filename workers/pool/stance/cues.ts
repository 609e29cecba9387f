/**
 * The words a stance turns on, read off a sentence (English; other languages get none of these
 * cues and are judged on overlap alone): negation, the direction of an effect, hedging, and
 * the numbers it states. Each is a cheap pass over the lower-cased words.
 */

/** Words and contractions that negate what follows (or, for "lack", "fail", what they govern). */
const NEGATIONS = new Set([
  'not', 'no', 'never', 'none', 'nor', 'neither', 'without', 'cannot', "can't", "don't", "doesn't", "didn't", "isn't",
  "aren't", "wasn't", "weren't", "won't", "wouldn't", "shouldn't", "couldn't", "hasn't", "haven't", "hadn't",
  'lack', 'lacks', 'lacked', 'lacking', 'absence', 'absent', 'fail', 'fails', 'failed', 'unable', 'nothing',
  'unrelated', 'independent', 'insignificant', 'unaffected', 'unchanged',
]);

/**
 * Words that say which way something goes: +1 up, more, better-for-the-subject; −1 down, less,
 * against. An antonym pair (increases / decreases, higher / lower) has opposite signs, so a
 * claim and a sentence that agree on everything but the direction disagree.
 */
const DIRECTIONS = new Map<string, 1 | -1>();
const UP = [
  'increase', 'increases', 'increased', 'increasing', 'rise', 'rises', 'rose', 'raise', 'raises', 'raised', 'elevate',
  'elevates', 'elevated', 'higher', 'high', 'highest', 'more', 'greater', 'greatest', 'enhance', 'enhances', 'enhanced',
  'promote', 'promotes', 'promoted', 'induce', 'induces', 'induced', 'activate', 'activates', 'activated', 'upregulate',
  'upregulates', 'upregulated', 'upregulation', 'improve', 'improves', 'improved', 'accelerate', 'accelerates',
  'accelerated', 'stimulate', 'stimulates', 'stimulated', 'boost', 'boosts', 'augment', 'augments', 'augmented',
  'gain', 'gains', 'larger', 'longer', 'positive', 'positively', 'exacerbate', 'exacerbates', 'amplify', 'amplifies',
  'excess', 'overexpression', 'overexpressed',
];
const DOWN = [
  'decrease', 'decreases', 'decreased', 'decreasing', 'reduce', 'reduces', 'reduced', 'reducing', 'reduction', 'lower',
  'lowers', 'lowered', 'low', 'lowest', 'less', 'fewer', 'decline', 'declines', 'declined', 'inhibit', 'inhibits',
  'inhibited', 'inhibition', 'suppress', 'suppresses', 'suppressed', 'suppression', 'attenuate', 'attenuates',
  'attenuated', 'downregulate', 'downregulates', 'downregulated', 'downregulation', 'impair', 'impairs', 'impaired',
  'diminish', 'diminishes', 'diminished', 'prevent', 'prevents', 'prevented', 'block', 'blocks', 'blocked', 'slow',
  'slows', 'slowed', 'loss', 'lose', 'loses', 'lost', 'smaller', 'shorter', 'negative', 'negatively', 'drop', 'drops',
  'dropped', 'fall', 'falls', 'fell', 'deficiency', 'deficient', 'depletion', 'depleted',
  'knockdown', 'knockout',
];
for (const word of UP) DIRECTIONS.set(word, 1);
for (const word of DOWN) DIRECTIONS.set(word, -1);

/** Words that weaken a statement to a possibility. */
const HEDGES = new Set([
  'may', 'might', 'could', 'possibly', 'possible', 'perhaps', 'suggest', 'suggests', 'suggested', 'likely', 'unlikely',
  'appear', 'appears', 'appeared', 'potential', 'potentially', 'putative', 'hypothesize', 'hypothesized', 'speculate',
]);

const WORDS = /[\p{L}\p{N}][\p{L}\p{N}'’]*/gu;
/** A number as written: digits with decimal point or thousands separators, optionally a percent sign. */
const NUMBERS = /(?<![\p{L}\d.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*(%|percent\b)?/gu;

export interface Cues {
  /** Negation words, counted: an even number cancels out ("not without"). */
  negations: number;
  /** Sum of the direction words' signs, then reduced to its sign: −1, 0 or +1. */
  direction: number;
  hedged: boolean;
  /** The numbers stated, as values (percentages keep their value: "12%" is 12). */
  numbers: number[];
}

export function cuesOf(text: string): Cues {
  const lower = text.toLowerCase().replace(/’/g, "'");
  let negations = 0;
  let direction = 0;
  let hedged = false;
  for (const match of lower.matchAll(WORDS)) {
    const word = match[0];
    if (NEGATIONS.has(word) || word.endsWith("n't")) negations++;
    direction += DIRECTIONS.get(word) ?? 0;
    if (HEDGES.has(word)) hedged = true;
  }
  const numbers: number[] = [];
  for (const match of lower.matchAll(NUMBERS)) {
    const value = Number(`${match[1]!.replace(/,/g, '')}${match[2] ? `.${match[2]}` : ''}`);
    if (Number.isFinite(value)) numbers.push(value);
  }
  return { negations, direction: Math.sign(direction), hedged, numbers };
}

/** +1 or −1: the way a statement points once its negations are applied ("does not increase" points down). */
export function polarity(cues: Cues): number {
  const negated = cues.negations % 2 === 1;
  if (cues.direction === 0) return negated ? -1 : 1;
  return negated ? -cues.direction : cues.direction;
}
