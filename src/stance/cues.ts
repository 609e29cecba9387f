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
  // Adjectives that deny their stem: "ineffective" says what "not effective" says.
  'ineffective', 'ineffectual', 'inaccurate', 'inadequate', 'insufficient', 'incapable', 'unreliable', 'unnecessary',
  'unsuccessful', 'undetectable', 'irrelevant', 'impossible', 'nonsignificant', 'unaltered',
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
  'excess', 'overexpression', 'overexpressed', 'encourage', 'encourages', 'encouraged', 'exceed', 'exceeds', 'exceeded',
  'faster', 'heavier', 'prolong', 'prolongs', 'prolonged', 'strengthen', 'strengthens', 'strengthened', 'overestimate',
  'overestimates', 'overestimated', 'restore', 'restores', 'restored', 'facilitate', 'facilitates', 'facilitated',
  'potentiate', 'potentiates', 'potentiated', 'better', 'beneficial', 'benefit', 'benefits',
];
const DOWN = [
  'decrease', 'decreases', 'decreased', 'decreasing', 'reduce', 'reduces', 'reduced', 'reducing', 'reduction', 'lower',
  'lowers', 'lowered', 'low', 'lowest', 'less', 'fewer', 'decline', 'declines', 'declined', 'inhibit', 'inhibits',
  'inhibited', 'inhibition', 'suppress', 'suppresses', 'suppressed', 'suppression', 'attenuate', 'attenuates',
  'attenuated', 'downregulate', 'downregulates', 'downregulated', 'downregulation', 'impair', 'impairs', 'impaired',
  'diminish', 'diminishes', 'diminished', 'prevent', 'prevents', 'prevented', 'block', 'blocks', 'blocked', 'slow',
  'slows', 'slowed', 'loss', 'lose', 'loses', 'lost', 'smaller', 'shorter', 'negative', 'negatively', 'drop', 'drops',
  'dropped', 'fall', 'falls', 'fell', 'deficiency', 'deficient', 'depletion', 'depleted',
  'knockdown', 'knockout', 'worsen', 'worsens', 'worsened', 'worse', 'impede', 'impedes', 'impeded', 'deactivate',
  'deactivates', 'deactivated', 'disrupt', 'disrupts', 'disrupted', 'hinder', 'hinders', 'hindered', 'hamper', 'hampers',
  'hampered', 'abolish', 'abolishes', 'abolished', 'abrogate', 'abrogates', 'abrogated', 'eliminate', 'eliminates',
  'eliminated', 'weaken', 'weakens', 'weakened', 'underestimate', 'underestimates', 'underestimated', 'slower',
  'shorten', 'shortens', 'shortened', 'delay', 'delays', 'delayed', 'dampen', 'dampens', 'dampened', 'detrimental',
  'harm', 'harms', 'harmful', 'damage', 'damages', 'damaged', 'poor', 'poorly',
];
for (const word of UP) DIRECTIONS.set(word, 1);
for (const word of DOWN) DIRECTIONS.set(word, -1);

/** Words that weaken a statement to a possibility. */
const HEDGES = new Set([
  'may', 'might', 'could', 'possibly', 'possible', 'perhaps', 'suggest', 'suggests', 'suggested', 'likely', 'unlikely',
  'appear', 'appears', 'appeared', 'potential', 'potentially', 'putative', 'hypothesize', 'hypothesized', 'speculate',
]);

const WORDS = /[\p{L}\p{N}][\p{L}\p{N}'’]*/gu;
/**
 * A number as written (digits with decimal point or thousands separators), then what it counts:
 * a percent sign, or the word that follows ("400 women", "330 metres").
 */
const NUMBERS = /(?<![\p{L}\d.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s*(%|percent\b)|[ \t\u00a0-]+(\p{L}+))?/gu;
/** Words after a number that say nothing of what it counts ("in 1889 and", "400 of them", "10 may relapse"). */
const NOT_UNITS = new Set(['and', 'or', 'per', 'than', 'vs', 'versus', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'from', 'with', 'the', 'a', 'an', 'was', 'were', 'is', 'are', 'when', 'as',
  'may', 'might', 'can', 'could', 'will', 'would', 'should', 'must', 'had', 'has', 'have', 'did', 'do', 'does']);

/**
 * A number with what it counts: "%", the word after it with a plural -s dropped ("metres" →
 * "metre"), a calendar unit ("calendar year", "calendar month", "calendar day", "calendar
 * date": two words, so that no counted word such as "3 years" is taken for one), or "" when unknown.
 */
export interface Quantity {
  value: number;
  unit: string;
}

export interface Cues {
  /** Negation words, counted: an even number cancels out ("not without"). */
  negations: number;
  /** Sum of the direction words' signs, then reduced to its sign: −1, 0 or +1. */
  direction: number;
  /** The direction words themselves. */
  directionWords: string[];
  hedged: boolean;
  /** The numbers stated with what they count (percentages keep their value: "12%" is 12 "%"). */
  quantities: Quantity[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?';
/** Year, month (number or name), day, as a date pattern's groups give them. */
type DateParts = [string | undefined, string | undefined, string | undefined];
/**
 * Dates as written in English: "14 July 1789", "July 14, 1789", "July 1789", "July 14", "14 July"
 * and ISO "1789-07-14". A month name needs a day or a year beside it, and May its year, so that
 * the verb "may" is no date ("of these, 10 may relapse").
 */
const DATES = [
  { pattern: /(?<![\p{L}\d])(\d{4})-(\d{2})-(\d{2})(?!\d)/gu, parts: (m: RegExpMatchArray): DateParts => [m[1], m[2], m[3]] },
  { pattern: new RegExp(`(?<![\\p{L}\\d])(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${MONTH}(?:,? (\\d{4}))?(?![\\p{L}\\d])`, 'gu'), parts: (m: RegExpMatchArray): DateParts => [m[3], m[2], m[1]] },
  { pattern: new RegExp(`(?<![\\p{L}])${MONTH} (\\d{1,2})(?:st|nd|rd|th)?(?:,? (\\d{4}))?(?![\\d])`, 'gu'), parts: (m: RegExpMatchArray): DateParts => [m[3], m[1], m[2]] },
  { pattern: new RegExp(`(?<![\\p{L}])${MONTH},? (\\d{4})(?!\\d)`, 'gu'), parts: (m: RegExpMatchArray): DateParts => [m[2], m[1], undefined] },
];

/**
 * The quantities a date states, from the most to the least precise, each of which a sentence
 * can agree or conflict on: the date (YYYYMMDD), the month of the year (YYYYMM), the day of
 * the month (MMDD: "July 14" without a year) and the year.
 */
function dateQuantities(year: string | undefined, month: string | undefined, day: string | undefined): Quantity[] {
  const y = year === undefined ? undefined : Number(year);
  const m = month === undefined ? undefined : /^\d+$/.test(month) ? Number(month) : MONTHS.indexOf(month.slice(0, 3)) + 1;
  const d = day === undefined ? undefined : Number(day);
  if (m === undefined || m < 1 || m > 12 || (d !== undefined && (d < 1 || d > 31))) return [];
  // "10 may develop": May is a date only with its year.
  if (month === 'may' && y === undefined) return [];
  const quantities: Quantity[] = [];
  if (y !== undefined && d !== undefined) quantities.push({ value: y * 10_000 + m * 100 + d, unit: 'calendar date' });
  if (y !== undefined) quantities.push({ value: y * 100 + m, unit: 'calendar month' });
  if (d !== undefined) quantities.push({ value: m * 100 + d, unit: 'calendar day' });
  if (y !== undefined) quantities.push({ value: y, unit: 'calendar year' });
  return quantities;
}

export function cuesOf(text: string): Cues {
  const quantities: Quantity[] = [];
  // Dates first, blanked out once read: their day is no count and their "May" no hedge.
  let lower = text.toLowerCase().replace(/’/g, "'");
  for (const { pattern, parts } of DATES) {
    for (const match of lower.matchAll(pattern)) {
      const found = dateQuantities(...parts(match));
      if (found.length === 0) continue;
      quantities.push(...found);
      lower = `${lower.slice(0, match.index)}${' '.repeat(match[0].length)}${lower.slice(match.index + match[0].length)}`;
    }
  }
  let negations = 0;
  let direction = 0;
  let hedged = false;
  const directionWords: string[] = [];
  for (const word of wordsOf(lower)) {
    if (negates(word)) negations++;
    const sign = DIRECTIONS.get(word);
    if (sign !== undefined) {
      direction += sign;
      directionWords.push(word);
    }
    if (HEDGES.has(word)) hedged = true;
  }
  for (const match of lower.matchAll(NUMBERS)) {
    const value = Number(`${match[1]!.replace(/,/g, '')}${match[2] ? `.${match[2]}` : ''}`);
    if (Number.isFinite(value)) {
      quantities.push({ value, unit: unitOf(value, match[1]!, match[2] !== undefined, match[3], match[4], lower.slice(Math.max(0, match.index - 12), match.index)) });
    }
  }
  return { negations, direction: Math.sign(direction), directionWords, hedged, quantities };
}

/** Words after which a number is a point in time ("in", "since", "until" … 2021), at the end of the text before it. */
const TIME_WORDS = /\b(?:in|since|until|till|during|before|after|circa)\s+$/;

function unitOf(value: number, written: string, decimal: boolean, percent: string | undefined, word: string | undefined, before: string): string {
  if (percent) return '%';
  // A whole number from 1500 to 2100 without separators is a year: after a word of time ("in
  // 2021 the census counted"), or with no counted word after it ("completed in 1889.").
  const year = !decimal && !written.includes(',') && value >= 1500 && value <= 2100;
  if (year && TIME_WORDS.test(before)) return 'calendar year';
  if (word && !NOT_UNITS.has(word)) return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
  return year ? 'calendar year' : '';
}

/**
 * How the numbers of a sentence bear on a claim's: `conflict` when it states one of the claim's
 * kinds of quantity (same known unit) only with other values ("9.58 seconds" against "9.69
 * seconds", even if "100 metres" agrees), else `agree` when it states one of the claim's values.
 */
export function quantityMatch(claim: readonly Quantity[], sentence: readonly Quantity[]): 'agree' | 'conflict' | 'none' {
  let agree = false;
  for (const q of claim) {
    const sameUnit = q.unit === '' ? [] : sentence.filter((s) => s.unit === q.unit);
    if (sameUnit.length > 0) {
      if (!sameUnit.some((s) => s.value === q.value)) return 'conflict';
      agree = true;
    } else if (sentence.some((s) => s.value === q.value && (s.unit === '' || q.unit === ''))) {
      agree = true;
    }
  }
  return agree ? 'agree' : 'none';
}

/**
 * Whether a sentence states a claim's figures: every quantity of the claim that is not a
 * calendar one ("4.1 %", "400 women"; the dates when it has nothing else) with the same value,
 * in the same unit where both know it. What a statistical claim needs to be supported; a claim
 * without quantities needs nothing.
 */
export function statesFigures(claim: readonly Quantity[], sentence: readonly Quantity[]): boolean {
  const figures = claim.filter((q) => !q.unit.startsWith('calendar '));
  return (figures.length > 0 ? figures : claim).every((q) => sentence.some((s) => s.value === q.value && (s.unit === q.unit || s.unit === '' || q.unit === '')));
}

/**
 * Whether a sentence that restates a claim (nearly the same words) says the same: no quantity
 * of the claim's kind with another value, and the same way. Where each uses direction words the
 * other does not ("decreases" against "increases"), those decide, each turned by its own
 * negations ("does not increase" says what "decreases" says); otherwise the polarity does, so
 * that "is not visible" denies "is visible".
 */
export function restates(claim: Cues, sentence: Cues): boolean {
  if (quantityMatch(claim.quantities, sentence.quantities) === 'conflict') return false;
  const own = (a: Cues, b: Cues) => Math.sign(a.directionWords.filter((w) => !b.directionWords.includes(w)).reduce((sum, w) => sum + DIRECTIONS.get(w)!, 0))
    * (a.negations % 2 === 1 ? -1 : 1);
  const claimOwn = own(claim, sentence);
  const sentenceOwn = own(sentence, claim);
  if (claimOwn !== 0 && sentenceOwn !== 0) return claimOwn === sentenceOwn;
  return polarity(claim) === polarity(sentence);
}

/** The words of a lower-cased text (’ as '), as the cues read them. */
export function wordsOf(lower: string): string[] {
  return [...lower.matchAll(WORDS)].map((match) => match[0]);
}

/** A word's direction: +1, −1, or 0 for a word that gives none. */
export function directionOf(word: string): number {
  return DIRECTIONS.get(word) ?? 0;
}

/** Whether a word negates what follows. */
export function negates(word: string): boolean {
  return NEGATIONS.has(word) || word.endsWith("n't");
}

/** +1 or −1: the way a statement points once its negations are applied ("does not increase" points down). */
export function polarity(cues: Cues): number {
  const negated = cues.negations % 2 === 1;
  if (cues.direction === 0) return negated ? -1 : 1;
  return negated ? -cues.direction : cues.direction;
}
