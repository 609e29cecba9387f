import { stemmerFor } from '../text/stemmers.js';

/**
 * The words a stance turns on, read off a sentence (English; other languages get none of these
 * cues and are judged on overlap alone): negation, the direction of an effect, hedging, and
 * the numbers it states. Each is a cheap pass over the lower-cased words.
 */

/**
 * Words that call a statement false, before it ("It is a myth that vaccines cause autism") or
 * after it ("The claim that vaccines cause autism has been debunked"): pages that correct a
 * popular belief state it in full and deny it with one of these. Only words that say nothing
 * else: "false" and "wrong" also name things ("false positives", "the wrong dose").
 */
const DENIALS = new Set([
  'myth', 'myths', 'misconception', 'misconceptions', 'misbelief', 'fallacy', 'hoax', 'debunk', 'debunks', 'debunked',
  'disprove', 'disproves', 'disproved', 'disproven', 'refute', 'refutes', 'refuted', 'untrue', 'unfounded', 'baseless',
  'discredited', 'falsely', 'mistakenly', 'erroneously',
]);

/** Words and contractions that negate what follows (or, for "lack", "fail", what they govern), and the denials. */
const NEGATIONS = new Set([
  ...DENIALS,
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
  'increase', 'increases', 'increased', 'increasing', 'rise', 'rises', 'rose', 'risen', 'raise', 'raises', 'raised', 'elevate',
  'elevates', 'elevated', 'higher', 'high', 'highest', 'more', 'greater', 'greatest', 'enhance', 'enhances', 'enhanced',
  'promote', 'promotes', 'promoted', 'induce', 'induces', 'induced', 'activate', 'activates', 'activated', 'upregulate',
  'upregulates', 'upregulated', 'upregulation', 'improve', 'improves', 'improved', 'accelerate', 'accelerates',
  'accelerated', 'stimulate', 'stimulates', 'stimulated', 'boost', 'boosts', 'augment', 'augments', 'augmented',
  'gain', 'gains', 'larger', 'longer', 'positive', 'positively', 'exacerbate', 'exacerbates', 'amplify', 'amplifies',
  'excess', 'overexpression', 'overexpressed', 'encourage', 'encourages', 'encouraged', 'exceed', 'exceeds', 'exceeded',
  'faster', 'heavier', 'prolong', 'prolongs', 'prolonged', 'strengthen', 'strengthens', 'strengthened', 'overestimate',
  'overestimates', 'overestimated', 'restore', 'restores', 'restored', 'facilitate', 'facilitates', 'facilitated',
  'potentiate', 'potentiates', 'potentiated', 'better', 'beneficial', 'benefit', 'benefits',
  // The pairs of the issue that are not about amounts: cause / prevent, safe / harmful,
  // effective / ineffective ("ineffective" is a negation), warmer / colder, grow / shrink.
  'cause', 'causes', 'caused', 'causing', 'safe', 'safer', 'safest', 'effective', 'efficacious', 'warmer', 'warming',
  'hotter', 'expand', 'expands', 'expanded', 'grow', 'grows', 'grew', 'growing',
  // Comparatives and verbs of popular writing ("boosts", "soars"): bigger / smaller …
  'bigger', 'thicker', 'wider', 'deeper', 'costlier', 'soar', 'soars', 'soared', 'surge', 'surges', 'surged',
  // Multiplying verbs, not the adjectives ("double-blind", "triple therapy").
  'doubles', 'doubled', 'doubling', 'triples', 'tripled', 'tripling', 'quadrupled',
  // Against a level only (givesNoDirection): "above the twentieth-century average".
  'above',
];
const DOWN = [
  'decrease', 'decreases', 'decreased', 'decreasing', 'reduce', 'reduces', 'reduced', 'reducing', 'reduction', 'lower',
  'lowers', 'lowered', 'low', 'lowest', 'less', 'fewer', 'decline', 'declines', 'declined', 'inhibit', 'inhibits',
  'inhibited', 'inhibition', 'suppress', 'suppresses', 'suppressed', 'suppression', 'attenuate', 'attenuates',
  'attenuated', 'downregulate', 'downregulates', 'downregulated', 'downregulation', 'impair', 'impairs', 'impaired',
  'diminish', 'diminishes', 'diminished', 'prevent', 'prevents', 'prevented', 'block', 'blocks', 'blocked', 'slow',
  'slows', 'slowed', 'loss', 'lose', 'loses', 'lost', 'smaller', 'shorter', 'negative', 'negatively', 'inverse',
  'inversely', 'drop', 'drops', 'dropped', 'fall', 'falls', 'fell', 'fallen', 'deficiency', 'deficient', 'depletion', 'depleted',
  'knockdown', 'knockout', 'worsen', 'worsens', 'worsened', 'worse', 'impede', 'impedes', 'impeded', 'deactivate',
  'deactivates', 'deactivated', 'disrupt', 'disrupts', 'disrupted', 'hinder', 'hinders', 'hindered', 'hamper', 'hampers',
  'hampered', 'abolish', 'abolishes', 'abolished', 'abrogate', 'abrogates', 'abrogated', 'eliminate', 'eliminates',
  'eliminated', 'weaken', 'weakens', 'weakened', 'underestimate', 'underestimates', 'underestimated', 'slower',
  'shorten', 'shortens', 'shortened', 'delay', 'delays', 'delayed', 'dampen', 'dampens', 'dampened', 'detrimental',
  'harm', 'harms', 'harmful', 'damage', 'damages', 'damaged', 'poor', 'poorly',
  'protect', 'protects', 'protected', 'protective', 'unsafe', 'dangerous', 'toxic', 'colder', 'cooler', 'cooling',
  'shrink', 'shrinks', 'shrank', 'shrunk', 'shrinking', 'cure', 'cures', 'cured',
  'thinner', 'narrower', 'shallower', 'cheaper', 'lighter', 'cut', 'cuts', 'slash', 'slashes', 'slashed', 'hurt', 'hurts',
  'plunge', 'plunges', 'plunged', 'plummet', 'plummets', 'plummeted', 'halved', 'halving',
  // Less of a harm, said of one ("relieves pain", "alleviates symptoms", "mitigates the damage").
  'relieve', 'relieves', 'relieved', 'relieving', 'alleviate', 'alleviates', 'alleviated', 'alleviating',
  'ameliorate', 'ameliorates', 'ameliorated', 'ameliorating', 'mitigate', 'mitigates', 'mitigated', 'mitigating',
  // Against a level only (givesNoDirection): "below average", as "above" is up.
  'below',
];
for (const word of UP) DIRECTIONS.set(word, 1);
for (const word of DOWN) DIRECTIONS.set(word, -1);

/**
 * The direction words' English stems, for the inflected forms the lists leave out ("rising",
 * "lowering", "boosted"): a word ending in -s, -ed or -ing whose stem is a listed word's takes
 * its sign. Only inflections: derived words share stems with words that give no direction
 * ("activity" and "activate", "promoter" and "promote"), and "positive" / "negative" share theirs
 * with "position" / "negation", so those two are left out.
 */
const STEM = stemmerFor('en')!;
const DIRECTION_STEMS = new Map<string, 1 | -1>();
for (const [word, sign] of DIRECTIONS) {
  if (word.startsWith('positiv') || word.startsWith('negativ')) continue;
  const stem = STEM(word);
  if (!DIRECTION_STEMS.has(stem)) DIRECTION_STEMS.set(stem, sign);
  else if (DIRECTION_STEMS.get(stem) !== sign) DIRECTION_STEMS.delete(stem);
}
const INFLECTED = /(?:s|ed|ing)$/;

/** The sign of a word, listed or an inflection of a listed one; undefined when it gives no direction. */
function signOf(word: string): 1 | -1 | undefined {
  const listed = DIRECTIONS.get(word);
  if (listed !== undefined || !INFLECTED.test(word) || word.length < 5) return listed;
  return DIRECTION_STEMS.get(STEM(word));
}

/** Words that say the evidence is unsettled: a statement of them is no finding either way. */
const UNCERTAIN = new Set([
  'unclear', 'uncertain', 'uncertainty', 'inconclusive', 'unknown', 'unproven', 'mixed', 'conflicting', 'controversial',
  'debated', 'disputed', 'contested', 'unsettled', 'undetermined', 'speculative', 'unresolved',
]);
/**
 * The same said in several words: "it is not known whether", "not yet clear", "more research is
 * needed", "the evidence is limited".
 */
const UNCERTAIN_PHRASES = [
  /\bnot (?:yet |fully |well )?(?:known|clear|certain|established|understood|proven)\b/,
  /\b(?:more|further|additional) (?:research|studies|study|trials|evidence) (?:is |are )?(?:needed|required)\b/,
  /\b(?:evidence|results|findings|data) (?:is |are |was |were |remains? )(?:still )?(?:limited|weak|mixed|inconsistent|insufficient|lacking|sparse)\b/,
];

/**
 * Degree words that, right after a direction word, say how much of it there was rather than a
 * direction of their own: "lost more weight" is a loss, "raised blood pressure less" a rise.
 */
const DEGREES = new Set(['more', 'less', 'fewer', 'greater', 'most', 'least']);

/**
 * Words after "more than", "less than" … (or before "or more" …) that make it a bound on a
 * quantity ("fell by more than 99 percent", "less than half", "four or more cups").
 */
const BOUNDED = /^(?:\d|half$|twice$|double$|triple$|a$|an$|one$|two$|three$|four$|five$|six$|seven$|eight$|nine$|ten$|dozen$|hundred$|thousand$|million$)/;

/**
 * Words before a degree word followed by "than" in which a direction word makes it that word's
 * degree: "reduced menstrual cramp pain more than placebo" is a reduction, larger than placebo's.
 */
const COMPARED_REACH = 4;

/** Prepositions that point up or down against a level only ("above average"), not in space or text ("the layer above", "see below", "above 50 years"). */
const AGAINST_LEVEL = new Set(['above', 'below']);
/** A level a quantity is said to be above or below, within LEVEL_REACH words after the preposition. */
const LEVELS = new Set(['average', 'averages', 'normal', 'mean', 'median', 'baseline', 'level', 'levels', 'expected', 'expectations',
  'threshold', 'target', 'targets', 'norm', 'trend', 'pre-industrial', 'preindustrial', 'forecast', 'forecasts']);
const LEVEL_REACH = 4;

/** Words that say how well an effect is had, not which way it goes, before "in" or "at" and the effect: "effective in preventing". */
const EFFICACIES = new Set(['effective', 'efficacious']);
/** Words after an efficacy word in which "in" or "at" and the effect may follow, after a comparison ("more effective than usual care in relieving"). */
const EFFICACY_REACH = 6;

/** Whether the efficacy word at words[i] is said of an effect after it ("effective [than placebo] in preventing"). */
function saysHowWell(words: readonly string[], i: number): boolean {
  for (let j = i + 1; j <= i + EFFICACY_REACH && j + 1 < words.length; j++) {
    if ((words[j] === 'in' || words[j] === 'at') && signOf(words[j + 1]!) !== undefined) return true;
    if (signOf(words[j]!) !== undefined) return false;
  }
  return false;
}

/**
 * Whether words[i], a direction word by its spelling, gives no direction where it stands: a
 * degree word right after a direction word (which then counts alone), or one before "than" a
 * few words after a direction word, which compares its effect with another's ("relieved pain
 * more than placebo"), or one that bounds a quantity ("by more than 99 percent", "fewer than
 * ten", "four or more cups a day"), which says how much, not which way; or "effective" said of
 * the effect after it ("effective in [preventing] pertussis" prevents it, and points no way of
 * its own against "prevented"; "more effective than usual care in relieving anxiety" relieves
 * it, and "more" is its degree); or "above" and "below" said of anything but a level ("above
 * average" is up, "above 50 years" no way).
 */
function givesNoDirection(words: readonly string[], i: number): boolean {
  if (AGAINST_LEVEL.has(words[i]!)) return !words.slice(i + 1, i + 1 + LEVEL_REACH).some((word) => LEVELS.has(word));
  if (EFFICACIES.has(words[i]!)) return saysHowWell(words, i);
  if (!DEGREES.has(words[i]!)) return false;
  if (EFFICACIES.has(words[i + 1] ?? '') && saysHowWell(words, i + 1)) return true;
  return (i > 0 && signOf(words[i - 1]!) !== undefined) || (words[i + 1] === 'than' && BOUNDED.test(words[i + 2] ?? ''))
    || (words[i + 1] === 'than' && words.slice(Math.max(0, i - COMPARED_REACH), i).some((word) => signOf(word) !== undefined))
    || (words[i - 1] === 'or' && BOUNDED.test(words[i - 2] ?? ''));
}

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
  /**
   * How the number is meant, when the words before it say: a lower bound ("more than 18
   * million", "at least", and the start of a period, "since 1900"), an upper one ("fewer than
   * ten", "up to"), or a round figure ("about", "nearly"); absent: as written.
   */
  bound?: 'min' | 'max' | 'about';
}

/** The words before a number that make it a bound or a round figure (see Quantity.bound). */
const BOUNDS: [RegExp, NonNullable<Quantity['bound']>][] = [
  [/(?:more than|over|at least|above|exceeding|in excess of|upwards of|since|since the)\s+$/u, 'min'],
  [/(?:less than|fewer than|under|at most|below|up to|no more than)\s+$/u, 'max'],
  [/(?:about|around|approximately|roughly|nearly|almost|some|estimated|circa|an estimated)\s+$/u, 'about'],
];

export interface Cues {
  /** Negation words, counted: an even number cancels out ("not without"). */
  negations: number;
  /** Sum of the direction words' signs, then reduced to its sign: −1, 0 or +1. */
  direction: number;
  /** The direction words themselves. */
  directionWords: string[];
  hedged: boolean;
  /** Whether it says the evidence is unsettled ("unclear", "inconclusive", "mixed"): no finding either way. */
  uncertain: boolean;
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

/** A text as the cues read it: lower-cased, ’ as ' (so that "don’t" negates as "don't" does). */
export function lowered(text: string): string {
  return text.toLowerCase().replace(/’/g, "'");
}

export function cuesOf(text: string): Cues {
  const quantities: Quantity[] = [];
  // Dates first, blanked out once read: their day is no count and their "May" no hedge.
  let lower = lowered(text);
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
  let uncertain = false;
  const directionWords: string[] = [];
  const words = wordsOf(lower);
  words.forEach((word, i) => {
    if (negates(word)) negations++;
    if (UNCERTAIN.has(word)) uncertain = true;
    const sign = directionAt(words, i);
    if (sign !== 0) {
      direction += sign;
      directionWords.push(word);
    }
    if (HEDGES.has(word)) hedged = true;
  });
  const spelled = spelledOut(lower);
  for (const match of spelled.matchAll(NUMBERS)) {
    let value = Number(`${match[1]!.replace(/,/g, '')}${match[2] ? `.${match[2]}` : ''}`);
    let word = match[4];
    let decimal = match[2] !== undefined;
    // "seven or more hours", "10 or fewer patients": the bound's words stand between the number and what it counts.
    if (word === 'or') word = /^\s+(?:more|fewer|less|so)\s+(\p{L}+)/u.exec(spelled.slice(match.index + match[0].length))?.[1];
    // "4.6 billion years" is 4,600,000,000 years: a scale word multiplies, and what follows it is the unit.
    const scale = word === undefined ? undefined : SCALES.get(word);
    if (scale !== undefined) {
      value *= scale;
      decimal = true;
      word = /^[ \t\u00a0-]+(\p{L}+)/u.exec(spelled.slice(match.index + match[0].length))?.[1];
    }
    if (Number.isFinite(value)) {
      const quantity: Quantity = { value, unit: unitOf(value, match[1]!, decimal, match[3], word, spelled.slice(Math.max(0, match.index - 12), match.index)) };
      const before = spelled.slice(Math.max(0, match.index - 16), match.index);
      const bound = BOUNDS.find(([words]) => words.test(before))?.[1];
      if (bound !== undefined) quantity.bound = bound;
      quantities.push(quantity);
    }
  }
  // "Most of the cars" is more than half of them, "a minority of" less: shares said in words
  // compare with shares in figures ("about 2 percent of all passenger cars").
  if (MAJORITY.test(lower)) quantities.push({ value: 50, unit: '%', bound: 'min' });
  if (MINORITY.test(lower)) quantities.push({ value: 50, unit: '%', bound: 'max' });
  if (!uncertain) uncertain = UNCERTAIN_PHRASES.some((phrase) => phrase.test(lower));
  return { negations, direction: Math.sign(direction), directionWords, hedged, uncertain, quantities };
}

/** A share said in words: more than half ("most of", "the majority of"), or less ("a minority of"). */
const MAJORITY = /(?<![\p{L}-])(?:most\s+of|(?:the|a)\s+(?:vast\s+|large\s+)?majority\s+of)(?![\p{L}-])/u;
const MINORITY = /(?<![\p{L}-])(?:a|the)\s+(?:small\s+)?minority\s+of(?![\p{L}-])/u;

/** Words that scale the number before them. */
const SCALES = new Map([['thousand', 1e3], ['million', 1e6], ['billion', 1e9], ['trillion', 1e12]]);

/** Numbers written as words, read as the digits would be ("eight minutes" as "8 minutes"). */
const NUMBER_WORDS = new Map(['two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'].map((word, n) => [word, n + 2] as const));
for (const [word, n] of [['thirty', 30], ['forty', 40], ['fifty', 50], ['sixty', 60], ['seventy', 70], ['eighty', 80], ['ninety', 90], ['hundred', 100]] as const) NUMBER_WORDS.set(word, n);
const NUMBER_WORD = new RegExp(`(?<![\\p{L}\\d])(${[...NUMBER_WORDS.keys()].join('|')})(?![\\p{L}\\d])`, 'gu');

/**
 * The text with numbers written as words in digits, so that the quantities read them alike.
 * "One" is left as a word: as often a pronoun ("one of them", "no one") as a count.
 */
function spelledOut(lower: string): string {
  return lower.replace(NUMBER_WORD, (word) => String(NUMBER_WORDS.get(word)));
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
    const sameUnit = q.unit === '' ? [] : sentence.filter((s) => s.unit === q.unit || sameDimension(q.unit, s.unit));
    if (sameUnit.length > 0) {
      if (!sameUnit.some((s) => sameAmount(q, s))) return 'conflict';
      agree = true;
    } else if (sentence.some((s) => s.value === q.value && (s.unit === '' || q.unit === ''))) {
      agree = true;
    }
  }
  return agree ? 'agree' : 'none';
}

/**
 * Units of measurement as the cues read them (the word after a number, a plural -s dropped),
 * with their dimension and size in that dimension's base unit, so that "8.3 minutes" is
 * compared with "8 seconds" and "1.6 km" with "1 mile": a quantity in another unit of the same
 * dimension agrees within UNIT_TOLERANCE (conversions are rounded in writing) and conflicts
 * beyond it.
 */
const UNITS = new Map<string, [string, number]>([
  ['second', ['time', 1]], ['sec', ['time', 1]], ['minute', ['time', 60]], ['min', ['time', 60]], ['hour', ['time', 3600]],
  ['day', ['time', 86_400]], ['week', ['time', 604_800]], ['month', ['time', 2_629_800]], ['year', ['time', 31_557_600]],
  ['decade', ['time', 315_576_000]], ['century', ['time', 3_155_760_000]], ['centurie', ['time', 3_155_760_000]],
  ['millimetre', ['length', 0.001]], ['millimeter', ['length', 0.001]], ['mm', ['length', 0.001]], ['centimetre', ['length', 0.01]],
  ['centimeter', ['length', 0.01]], ['cm', ['length', 0.01]], ['metre', ['length', 1]], ['meter', ['length', 1]], ['m', ['length', 1]],
  ['kilometre', ['length', 1000]], ['kilometer', ['length', 1000]], ['km', ['length', 1000]], ['inch', ['length', 0.0254]],
  ['inche', ['length', 0.0254]], ['foot', ['length', 0.3048]], ['feet', ['length', 0.3048]], ['ft', ['length', 0.3048]],
  ['yard', ['length', 0.9144]], ['mile', ['length', 1609.344]],
  ['microgram', ['mass', 1e-6]], ['mcg', ['mass', 1e-6]], ['µg', ['mass', 1e-6]], ['milligram', ['mass', 0.001]], ['mg', ['mass', 0.001]],
  ['gram', ['mass', 1]], ['g', ['mass', 1]], ['kilogram', ['mass', 1000]], ['kg', ['mass', 1000]], ['pound', ['mass', 453.592]],
  ['lb', ['mass', 453.592]], ['ounce', ['mass', 28.3495]], ['oz', ['mass', 28.3495]], ['tonne', ['mass', 1e6]], ['ton', ['mass', 1e6]],
]);
const UNIT_TOLERANCE = 0.1;

function sameDimension(a: string, b: string): boolean {
  const x = UNITS.get(a);
  const y = UNITS.get(b);
  return x !== undefined && y !== undefined && x[0] === y[0];
}

/**
 * Whether two quantities of one kind can be the same amount: equal as written; within
 * UNIT_TOLERANCE when in different units (conversions are rounded) or when either is a round
 * figure ("about 20 centimetres"); and a bound holds any amount on its side of it ("more than 18
 * million hectares" and "18.6 million hectares", "more than 3,000" and "at least 2,500").
 */
function sameAmount(a: Quantity, b: Quantity): boolean {
  const x = a.value * (a.unit === b.unit ? 1 : UNITS.get(a.unit)![1]);
  const y = b.value * (a.unit === b.unit ? 1 : UNITS.get(b.unit)![1]);
  const close = Math.abs(x - y) <= UNIT_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
  if (a.bound === 'min' || a.bound === 'max' || b.bound === 'min' || b.bound === 'max') {
    return holds(a.bound, x, y, b.bound) && holds(b.bound, y, x, a.bound);
  }
  return a.unit !== b.unit || a.bound === 'about' || b.bound === 'about' ? close : x === y;
}

/** Whether `other` (bounded by `otherBound`) can lie on the side of `value` its bound says. */
function holds(bound: Quantity['bound'], value: number, other: number, otherBound: Quantity['bound']): boolean {
  if (bound === 'min') return other >= value || otherBound === 'min';
  if (bound === 'max') return other <= value || otherBound === 'max';
  return true;
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
 * negations ("does not increase" says what "decreases" says); where neither does, the polarity
 * does, so that "is not visible" denies "is visible". Where only one does, undefined: the other
 * says nothing of that direction ("deficiency can cause anemia" against "deficiency leads to
 * anemia", "coffee is harmful" against "coffee is drunk worldwide"), and until 2026-11-29 the
 * polarity, summed over the words both share too, read such a pair as a contradiction.
 */
export function restates(claim: Cues, sentence: Cues): boolean | undefined {
  if (quantityMatch(claim.quantities, sentence.quantities) === 'conflict') return false;
  const own = (a: Cues, b: Cues) => Math.sign(a.directionWords.filter((w) => !b.directionWords.includes(w)).reduce((sum, w) => sum + signOf(w)!, 0))
    * (a.negations % 2 === 1 ? -1 : 1);
  const claimOwn = own(claim, sentence);
  const sentenceOwn = own(sentence, claim);
  if (claimOwn !== 0 && sentenceOwn !== 0) return claimOwn === sentenceOwn;
  if (claimOwn !== 0 || sentenceOwn !== 0) return undefined;
  return polarity(claim) === polarity(sentence);
}

/**
 * Words that report a belief without holding it ("many people believe that…", "it was long
 * thought that…", "the alleged link"): a page that corrects a belief reports it in full and
 * then answers it ("…, but large studies have found no link").
 */
const REPORTS = new Set([
  'believe', 'believes', 'believed', 'belief', 'beliefs', 'think', 'thinks', 'thought', 'convinced', 'assume', 'assumes',
  'assumed', 'assumption', 'suppose', 'supposed', 'supposedly', 'claim', 'claims', 'claimed', 'allege', 'alleges',
  'alleged', 'allegedly', 'suspect', 'suspected', 'feared', 'rumoured', 'rumored',
]);
/** Words that set what follows against the clause before ("…, but studies found no link"). */
const CONTRASTS = new Set(['but', 'however', 'yet']);
/** Words that open a clause conceded before the main one ("Although many think…, studies…"). */
const CONCESSIVES = new Set(['although', 'though', 'while', 'whereas', 'despite']);

/** Words after a report that hold it true ("…, and trials confirmed that it does"). */
const CONFIRMATIONS = new Set(['confirm', 'confirms', 'confirmed', 'confirming', 'proved', 'proven', 'shown', 'showed', 'indeed', 'correctly', 'rightly']);
/** Words in an answer that say what is not known rather than what is not so ("…, but how is unclear"). */
const IGNORANCE = new Set(['unknown', 'unclear', 'uncertain', 'elusive', 'obscure']);
/** Words that, a word or two after a negation, say the same ("…, but how is not fully understood"). */
const NOT_KNOWN = new Set(['known', 'understood', 'clear', 'elucidated', 'determined']);

/** Whether an answer says what is not known rather than what is not so. */
function ignorant(answer: readonly string[]): boolean {
  return answer.some((word, k) => IGNORANCE.has(word) || (negates(word) && answer.slice(k + 1, k + 3).some((w) => NOT_KNOWN.has(w))));
}

/** How a sentence that answers the one before opens: "However, …", "In fact, …". */
const ANSWER_OPENING = /^\W*(?:however|but|yet|actually|in fact|in reality|in truth)\b/;

/** The longest sentence, in words, whose reports are read: longer ones cost more than they could tell. */
const REPORT_MAX_WORDS = 150;

/** Spans of words (start inclusive, end exclusive, as wordsOf gives them) that report a belief. */
export interface Reports {
  /** Beliefs the sentence answers: it sets a clause against them, so it denies them. */
  denied: [number, number][];
  /** Beliefs it reports and neither answers nor confirms: it holds them no more than a hedge would. */
  unanswered: [number, number][];
}

/**
 * The beliefs a sentence reports, from the word after the report (or, for "X is believed to…",
 * from its clause's start) to its answer or the sentence's end. The answer is the clause after
 * a contrast ("Some believe that vaccines cause autism, but studies have found no link"; "Some
 * claim that temperatures stopped rising, but the next decade was the warmest on record") or,
 * when the report stands in a conceded clause, the clause after its comma ("Although many think
 * that cracking knuckles causes arthritis, studies have found no such association"), or the next
 * sentence when it opens as an answer (`next`, lower-cased: "However, studies have found no
 * link"). An answer that says what is not known ("…, but how is not understood") leaves the
 * report as it stands; one that confirms it ("…, and trials confirmed it") holds it.
 */
export function reportsOf(lower: string, next = ''): Reports {
  const matches: RegExpMatchArray[] = [];
  for (const match of lower.matchAll(WORDS)) {
    // A run of words this long is a list or a table, not a sentence that reports and answers.
    if (matches.length === REPORT_MAX_WORDS) return { denied: [], unanswered: [] };
    matches.push(match);
  }
  const words = matches.map((match) => match[0]);
  /** Whether a comma or semicolon stands between word i and the next. */
  const clauseEndsAfter = (i: number) => i + 1 < matches.length
    && /[,;]/.test(lower.slice(matches[i]!.index! + words[i]!.length, matches[i + 1]!.index));
  /**
   * "Bats were once believed to be blind": a report followed by "to" reports what it says of the
   * words before it, from its clause's start; undefined for any other report.
   */
  const passiveStart = (i: number): number | undefined => {
    if (words[i + 1] !== 'to') return undefined;
    let start = i;
    while (start > 0 && !clauseEndsAfter(start - 1) && !CONTRASTS.has(words[start - 1]!) && !CONCESSIVES.has(words[start - 1]!)) start--;
    return start;
  };
  const reports: Reports = { denied: [], unanswered: [] };
  for (let i = 0; i < words.length; i++) {
    if (!REPORTS.has(words[i]!)) continue;
    let answer = words.findIndex((word, j) => j > i && CONTRASTS.has(word));
    if (answer < 0 && words.slice(0, i).some((word) => CONCESSIVES.has(word))) {
      const end = words.findIndex((_, j) => j >= i && clauseEndsAfter(j));
      if (end >= 0) answer = end + 1;
    }
    // A report that ends its sentence may be answered by the next: "Many believe that… However, studies…".
    const answeredNext = answer < 0 && ANSWER_OPENING.test(next);
    if (answeredNext) answer = words.length;
    const rest = answeredNext ? wordsOf(next) : answer < 0 ? words.slice(i + 1) : words.slice(answer);
    // Confirmed, or called false by a word that turns it itself ("the claim that… has been debunked").
    if (rest.some((word) => CONFIRMATIONS.has(word) || DENIALS.has(word))) continue;
    if (answer < 0) {
      reports.unanswered.push([i + 1, words.length]);
      break;
    }
    if (!ignorant(rest)) reports.denied.push([passiveStart(i) ?? i + 1, answer]);
    i = answer - 1;
  }
  return reports;
}

/** The text of each belief a sentence (`lower`) reports and answers (its reportsOf's `denied`), as words. */
export function deniedBeliefs(lower: string, reports: Reports): string[] {
  if (reports.denied.length === 0) return [];
  const words = wordsOf(lower);
  return reports.denied.map(([start, end]) => words.slice(start, end).join(' '));
}

/** Words from the sentence's start within which a report makes all of it reported ("It is widely believed that…"). */
const REPORT_OPENING = 6;

/**
 * Whether all a sentence asserts is that a belief is held (from its reportsOf): a report among
 * its first words that it neither answers nor confirms ("It is widely believed that goldfish
 * have a three-second memory", "Many people think that…"). Such a sentence says nothing of
 * whether the belief is so.
 */
export function onlyReports(reports: Reports): boolean {
  return reports.unanswered.some(([start]) => start <= REPORT_OPENING);
}

/** The words of a lower-cased text (’ as '), as the cues read them. */
export function wordsOf(lower: string): string[] {
  return [...lower.matchAll(WORDS)].map((match) => match[0]);
}

/** A word's direction: +1, −1, or 0 for a word that gives none. */
export function directionOf(word: string): number {
  return signOf(word) ?? 0;
}

/**
 * The direction of words[i] where it stands: none where it gives none (givesNoDirection), down
 * for an efficacy word said against something ("effective against malaria" lessens malaria, as
 * "protects against" does), else its own.
 */
export function directionAt(words: readonly string[], i: number): number {
  if (givesNoDirection(words, i)) return 0;
  if (EFFICACIES.has(words[i]!) && words[i + 1] === 'against') return -1;
  return directionOf(words[i]!);
}

/** Whether a word weakens what follows to a possibility. */
export function hedges(word: string): boolean {
  return HEDGES.has(word);
}

/** Whether a word negates what follows. */
export function negates(word: string): boolean {
  return NEGATIONS.has(word) || word.endsWith("n't");
}

/**
 * Words that end the process a direction word names, said beside it: "stopped rising", "ceased
 * to grow", "warming stalled" say that it no longer goes that way. Not negations elsewhere:
 * "stopping statins increased the risk" stops something else.
 */
const CESSATIONS = new Set(['stop', 'stops', 'stopped', 'halt', 'halts', 'halted', 'cease', 'ceases', 'ceased', 'stall', 'stalls', 'stalled']);

/** Whether the direction word at words[i] is said to have stopped: a cessation just before it ("to" between allowed) or just after it. */
export function ceasesAt(words: readonly string[], i: number): boolean {
  const before = words[i - 1] === 'to' ? words[i - 2] : words[i - 1];
  return CESSATIONS.has(before ?? '') || CESSATIONS.has(words[i + 1] ?? '');
}

/** Whether a word calls a statement false (DENIALS): said after the statement, it turns it too. */
export function denies(word: string): boolean {
  return DENIALS.has(word);
}

/** +1 or −1: the way a statement points once its negations are applied ("does not increase" points down). */
export function polarity(cues: Cues): number {
  const negated = cues.negations % 2 === 1;
  if (cues.direction === 0) return negated ? -1 : 1;
  return negated ? -cues.direction : cues.direction;
}
