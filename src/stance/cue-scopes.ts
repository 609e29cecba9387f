import { analyze } from '../text/analyze.js';
import { stemmerFor } from '../text/stemmers.js';
import { functionWordsFor } from '../text/stop-words.js';
import { ceasesAt, denies, directionAt, directionOf, hedges, lowered, negates, reportsOf, wordsOf, type Reports } from './cues.js';
import { canonicalTerms } from './synonyms.js';
import { namesHarm, ofWorth } from './valence.js';

/** Direction words are English (cues.ts). */
const STEM = stemmerFor('en')!;
/** The direction words' irregular past forms, by their present's (the stemmer keeps "grew" and "grow" apart). */
const IRREGULAR = new Map([['rose', 'rise'], ['risen', 'rise'], ['grew', 'grow'], ['grown', 'grow'], ['fell', 'fall'], ['fallen', 'fall'],
  ['shrank', 'shrink'], ['shrunk', 'shrink'], ['lost', 'lose']]);

/** A direction word as one word whatever its inflection. */
function directionStem(word: string): string {
  return STEM(IRREGULAR.get(word) ?? word);
}

/**
 * What the direction words and negations of a text bear on: the analysed terms near each. A
 * sentence of an abstract often has several clauses ("PDS increases telomere fragility,
 * suggesting that G4 formation drives instability"), and its direction words summed (cues.ts)
 * may point anywhere; the one beside the claim's own terms is the one that answers it.
 */
export interface Scopes {
  /**
   * Each direction word (its stem: "cause" and "causes" are one word), its sign, turned by a
   * negation just before it, and the terms within its reach; whether it is a word of worth
   * ("improves") rather than amount ("reduces"), and whether those terms name a harm (valence.ts).
   */
  directed: { stem: string; sign: number; terms: Set<string>; worth: boolean; harm: boolean }[];
  /** The terms within reach after a negation ("did not lower [blood pressure]"). */
  negated: Set<string>;
  /** The terms within reach after a hedge ("may lower [blood pressure]"). */
  hedged: Set<string>;
}

/**
 * Words after a claim's direction word that name what it moves ("reduces [blood pressure]"):
 * claims are short and name it there; or, when nothing follows, as many before it, of which a
 * predicative word speaks ("[e-cigarettes] are harmful").
 */
const OBJECT_WORDS = 4;
/**
 * Words that open an adjunct: right after a claim's direction word they say when, where or in
 * whom it moves ("has been growing [since the Montreal Protocol]", "rose [in the 20th
 * century]"), so the claim says it of what comes before, as of a direction word that ends it.
 */
const ADJUNCTS = new Set(['in', 'at', 'since', 'during', 'after', 'over', 'until', 'among', 'across', 'while', 'when', 'throughout']);
/** Words either side of a sentence's direction word, or after a negation, that it may bear on (active and passive voice). */
const REACH = 5;
/** Words before a direction word in which a negation turns it ("does not increase"). */
const NEGATION_REACH = 3;
/**
 * Words that may stand between a negation and the direction word it turns, however many: verbs
 * that only bring the effect about and words of degree or significance ("did not [result in a
 * significantly] lower risk", "did not [lead to any] reduction"). Another word between them
 * ("who did not smoke had a lower risk") ends the negation's reach at NEGATION_REACH.
 */
const LIGHT = new Set([
  'result', 'results', 'resulted', 'lead', 'leads', 'led', 'produce', 'produced', 'yield', 'yielded', 'cause', 'caused',
  'show', 'shows', 'showed', 'have', 'has', 'had', 'in', 'to', 'a', 'an', 'any', 'the', 'significantly', 'significant',
  'statistically', 'clinically', 'meaningfully', 'meaningful', 'substantially', 'substantial', 'appreciably', 'appreciable',
  'materially', 'measurably', 'detectably', 'relevant', 'important', 'having', 'resulting', 'leading', 'showing',
]);
/** At most this many light words between a negation and its direction word. */
const LIGHT_REACH = 6;

/** A word in -ing that is no direction word: a gerund or participle a negation before it belongs to ("not [smoking] lowers"). */
const GERUND = /^\p{L}{2,}ing$/u;

/**
 * The negations within NEGATION_REACH before words[i] that bear on it: not one with a gerund
 * between them ("Not smoking lowers blood pressure": the negation is of the smoking, and the
 * claim says that something lowers it).
 */
function negationsBefore(words: readonly string[], i: number): number {
  let count = 0;
  for (let j = Math.max(0, i - NEGATION_REACH); j < i; j++) {
    if (negates(words[j]!) && !words.slice(j + 1, i).some((w) => GERUND.test(w) && !LIGHT.has(w) && directionOf(w) === 0)) count++;
  }
  return count;
}

/** Whether a negation further before words[i] than NEGATION_REACH reaches it through LIGHT words only. */
function negatedThroughLight(words: readonly string[], i: number): boolean {
  for (let j = i - 1; j >= Math.max(0, i - 1 - LIGHT_REACH); j--) {
    if (negates(words[j]!)) return j < i - NEGATION_REACH;
    if (!LIGHT.has(words[j]!)) return false;
  }
  return false;
}
/** Words after a comparative standing before what it qualifies ("fewer [kidney stones]"). */
const ATTRIBUTE_REACH = 3;
/** Comparatives by their spelling: "more", "fewer", "less" and the like, and "-er" and "-est" forms ("lower", "cooler", "highest"). */
const COMPARATIVE = /^(?:more|less|fewer|most|least|\p{L}+(?:er|est))$/u;

/**
 * Whether a sentence's direction word at words[i] is a comparative standing before the words it
 * qualifies ("drank more water developed fewer kidney stones": "more" is said of the water,
 * "fewer" of the stones), so that it bears on those words only. A comparative followed by a
 * function word or "than" stands after what it is said of ("blood pressure was lower than",
 * "were cooler in summer"), and reaches either side as other direction words do.
 */
function attributive(words: readonly string[], i: number, functionWords: ReadonlySet<string>): boolean {
  const next = words[i + 1];
  return COMPARATIVE.test(words[i]!) && next !== undefined && next !== 'than' && !functionWords.has(next) && directionOf(next) === 0;
}

/**
 * Who had a finding, named by their condition ("in patients hospitalized with Covid-19", "among
 * adults who have asthma"): the condition is what every finding of worth in the sentence is said
 * of, however far from its direction word ("Hydroxychloroquine did not improve clinical status
 * at 15 days in patients hospitalized with Covid-19" answers "Hydroxychloroquine cures
 * Covid-19"). Up to two words may stand between the people and "with" ("hospitalized", "newly
 * diagnosed"); the condition is the words after it, up to a clause's end.
 */
const CONDITION_OF_PEOPLE = /\b(?:patients|people|persons|adults|children|women|men|subjects|participants|individuals|infants|adolescents|those)(?:\s+[\p{L}-]+){0,2}?\s+(?:with|who\s+have|who\s+had|having|suffering\s+from)\s+([^,;:.()]+)/gu;
/** Words of the condition read after "with" (the claim names its object in as many). */
const CONDITION_WORDS = OBJECT_WORDS;

/**
 * `reports`: for a sentence, the beliefs it reports (cues.ts, reportsOf), when the caller has read
 * them with the next sentence of its passage, which may answer one; a claim reports none.
 */
export function scopesOf(text: string, language: string | null, role: 'claim' | 'sentence', reports?: Reports): Scopes {
  const lower = lowered(text);
  const words = wordsOf(lower);
  // A belief the sentence reports and then answers is denied: its terms negated, its directions
  // turned; one it only reports is hedged.
  const read = role === 'sentence' ? reports ?? reportsOf(lower) : { denied: [], unanswered: [] };
  const within = (spans: [number, number][], i: number) => spans.some(([start, end]) => i >= start && i < end);
  const denied = (i: number) => within(read.denied, i);
  const analysed = new Map<string, string[]>();
  // A number is no thing a direction moves: "19" of "Covid-19" beside "high concentrations".
  const termsOf = (span: readonly string[]) => span.filter((word) => directionOf(word) === 0).flatMap((word) => {
    if (!analysed.has(word)) analysed.set(word, canonicalTerms(analyze(word, language), language).filter((term) => !/^\p{N}+$/u.test(term)));
    return analysed.get(word)!;
  });
  const scopes: Scopes = { directed: [], negated: new Set(), hedged: new Set() };
  const functionWords = functionWordsFor(language);
  const condition = role === 'sentence'
    ? [...lower.matchAll(CONDITION_OF_PEOPLE)].flatMap((match) => termsOf(wordsOf(match[1]!).slice(0, CONDITION_WORDS))) : [];
  words.forEach((word, i) => {
    if (negates(word)) for (const term of termsOf(words.slice(i + 1, i + 1 + REACH))) scopes.negated.add(term);
    // A denial after a statement bears on all of it: "the idea that [humans use 10 percent of their brains] is a myth".
    if (denies(word)) for (const term of termsOf(words.slice(0, i))) scopes.negated.add(term);
    if (hedges(word)) for (const term of termsOf(words.slice(i + 1, i + 1 + REACH))) scopes.hedged.add(term);
    if (denied(i)) for (const term of termsOf([word])) scopes.negated.add(term);
    if (within(read.unanswered, i)) for (const term of termsOf([word])) scopes.hedged.add(term);
    const sign = directionAt(words, i);
    if (sign === 0) return;
    // A negation just before turns it, and so does a denial anywhere after it ("the claim that
    // vaccines [cause] autism has been debunked"; a denial before it is one of the negations), a
    // belief reported and answered, and a word that says it stopped ("stopped [rising]").
    const turned = (negationsBefore(words, i) + (negatedThroughLight(words, i) ? 1 : 0)
      + words.slice(i + 1).filter(denies).length + (denied(i) ? 1 : 0) + (ceasesAt(words, i) ? 1 : 0)) % 2 === 1;
    const span = role === 'claim' ? words.slice(i + 1, i + 1 + OBJECT_WORDS)
      : attributive(words, i, functionWords) ? words.slice(i + 1, i + 1 + ATTRIBUTE_REACH)
      : [...words.slice(Math.max(0, i - REACH), i), ...words.slice(i + 1, i + 1 + REACH)];
    let terms = new Set(termsOf(span));
    // A claim that ends on its direction word, or goes on with an adjunct, says it of what comes
    // before: "vaccines are [safe]", "[the ozone hole] has been growing since…".
    if (role === 'claim' && (terms.size === 0 || ADJUNCTS.has(words[i + 1] ?? ''))) terms = new Set(termsOf(words.slice(Math.max(0, i - OBJECT_WORDS), i)));
    // Whether it names a harm is read on what it moves, not on who had the finding. The
    // condition of those who had it bears on a finding that says better or worse (a word of
    // worth, or less or more of a harm), not on one whose worth is unknown ("shortened the time").
    const harm = namesHarm(terms);
    const worth = ofWorth(word);
    if (worth || harm) for (const term of condition) terms.add(term);
    if (terms.size > 0) scopes.directed.push({ stem: directionStem(word), sign: turned ? -sign : sign, terms, worth, harm });
  });
  return scopes;
}

/**
 * How the sentence's direction words that bear on what the claim's move compare with them: −1
 * when one points the other way, +1 when all that bear point the same way, 0 when none bears.
 * Any one the other way decides, not the one nearest in words: across SciFact's training claims
 * that reads as well as keeping each to its clause and letting the one beside most of the
 * claim's object answer (cross-validated, 0.553 against 0.542–0.546), and is simpler. A
 * sentence's direction word that is one of the claim's own answers that one only: in
 * "deficiency leads to anemia" against "deficiency can cause anemia", the sentence's
 * "deficiency" is the claim's, not an answer to its "cause"; inflections are one word ("causes"
 * in the claim, "cause" in the sentence).
 */
export function alignedDirection(claim: Scopes, sentence: Scopes): number {
  const claimWords = new Set(claim.directed.map((c) => c.stem));
  let agree = false;
  for (const c of claim.directed) {
    for (const s of sentence.directed) {
      if (s.stem !== c.stem && claimWords.has(s.stem)) continue;
      if (![...c.terms].some((term) => s.terms.has(term))) continue;
      if (worthOf(s, c) !== worthOf(c, s)) return -1;
      agree = true;
    }
  }
  return agree ? 1 : 0;
}

/**
 * A direction word's sign as compared with another's: as it stands, unless one is of worth and the
 * other of amount, when less of a harm is better ("reduces depressive symptoms" improves depression).
 */
function worthOf(direction: Scopes['directed'][number], other: Scopes['directed'][number]): number {
  return direction.worth !== other.worth && !direction.worth && direction.harm ? -direction.sign : direction.sign;
}

/** Whether a negation of the text bears on one of `terms`. */
export function negatesAny(scopes: Scopes, terms: ReadonlyMap<string, number>): boolean {
  for (const term of scopes.negated) if (terms.has(term)) return true;
  return false;
}

/** Whether a hedge of the text bears on one of `terms` ("may [lower] blood pressure"). */
export function hedgesAny(scopes: Scopes, terms: ReadonlyMap<string, number>): boolean {
  for (const term of scopes.hedged) if (terms.has(term)) return true;
  return false;
}
