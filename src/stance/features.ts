import { analyze, analyzeQuery } from '../text/analyze.js';
import { functionWordsFor } from '../text/stop-words.js';
import { causeStatements, type CauseStatement } from './causes.js';
import { alignedDirection, hedgesAny, negatesAny, scopesOf, type Scopes } from './cue-scopes.js';
import { cuesOf, lowered, polarity, quantityMatch, reportsOf, type Cues, type Reports } from './cues.js';
import { replacedByOpposite, replacedIdentifiers } from './opposites.js';
import { canonicalTerms } from './synonyms.js';
import { commonWording } from './wordings.js';

/** The weight of a claim term the index does not hold: rarer than anything it holds. */
const UNKNOWN_TERM_WEIGHT = 8;

/** A claim analysed once for all the sentences it is compared with. */
export interface AnalysedClaim {
  /** Distinct analysed terms with their weights (idf). */
  weights: Map<string, number>;
  total: number;
  /** Consecutive analysed terms, as "a b". */
  bigrams: Set<string>;
  cues: Cues;
  /** What its direction words move. */
  scopes: Scopes;
  /** The claim's terms but those of its direction words: what a sentence must hold to restate it, reversed or not. */
  content: { weights: Map<string, number>; total: number };
  /** The analysed terms of the names and figures it states (entities.ts's sense: capitalised words inside it, acronyms, numbers). */
  entities: Set<string>;
  /** Its content terms but its entities, each weighing as much: the frame in which an entity could be replaced. */
  frame: Set<string>;
  /** Its proper names, each as its analysed terms ("Mount Kilimanjaro", "Leonardo da Vinci"), a name that opens it included: namePhrases. */
  names: string[][];
  /** Its content terms but its names' and function words: what namesAnother reads as the statement made of them. */
  statement: Set<string>;
  /** The claim as written: saysOpposite reads its words and identifiers. */
  text: string;
  /** What it says causes what (causes.ts), each side as its analysed terms: namesAnotherCause compares them. */
  causes: { effect: Set<string>; cause: Set<string> }[];
}

/** `claim` is read in one wording for what it names (wordings.ts), as its sentences are. */
export function analyseClaim(said: string, language: string | null, termWeights: Readonly<Record<string, number>>): AnalysedClaim {
  const claim = commonWording(said, language);
  const terms = canonicalTerms(analyzeQuery(claim, language), language);
  const weights = new Map<string, number>();
  for (const term of terms) weights.set(term, termWeights[term] ?? UNKNOWN_TERM_WEIGHT);
  const cues = cuesOf(claim);
  const directionTerms = new Set(cues.directionWords.flatMap((word) => analyze(word, language)));
  const content = new Map([...weights].filter(([term]) => !directionTerms.has(term)));
  const entities = entityTerms(claim, language);
  const frame = new Set([...content.keys()].filter((term) => !entities.has(term)));
  const names = namePhrases(claim, language, 'proper');
  const named = new Set(names.flat());
  // Unstemmed, a claim too short for its language to be told keeps its function words: not part of what it states.
  const functionWords = functionWordsFor(language);
  return {
    weights, total: sum(weights), bigrams: bigramsOf(terms), cues, scopes: scopesOf(claim, language, 'claim'), content: { weights: content, total: sum(content) },
    entities, frame, names, statement: new Set([...content.keys()].filter((term) => !named.has(term) && !functionWords.has(term))),
    text: claim, causes: causeStatements(claim.toLowerCase()).map((c) => ({ effect: termSet(c.effect, language), cause: termSet(c.cause, language) })),
  };
}

/**
 * The analysed terms of the names a text states: words capitalised inside a sentence (not its
 * first word), words in capitals or with a digit ("NASA", "COVID-19", "IL-6"); numbers are left
 * to the quantities (cues.ts). What a passage about the same frame may state in another's place
 * ("Saturn" for "Jupiter").
 */
export function entityTerms(text: string, language: string | null): Set<string> {
  return new Set(namePhrases(text, language).flat());
}

/** Lower-case words inside one name: "Declaration of Independence", "Leonardo da Vinci", "Champ de Mars". */
const NAME_JOINERS = new Set(['of', 'da', 'de', 'di', 'del', 'della', 'van', 'von', 'der', 'den', 'du', 'la', 'le', 'bin', 'ibn', 'al']);

/** Languages that capitalise every noun, where proper nouns cannot be told by their spelling. */
const CAPITALISED_NOUNS = new Set(['de', 'lb']);

/** The words title case leaves in lower case (articles, conjunctions, short prepositions). */
const TITLE_CASE_LOWER = new Set(['a', 'an', 'the', 'and', 'but', 'or', 'nor', 'for', 'so', 'yet', 'as', 'at', 'by', 'in', 'of', 'off', 'on', 'per', 'to', 'up', 'via', 'vs']);

/**
 * A proper noun's spelling: a capital, then lower-case letters, parts joined by hyphens each so
 * ("Rome", "Kilimanjaro", "Jean-Paul", "Alzheimer's"). Symbols of the sciences spelt otherwise
 * ("NF-κB", "C-type", "Rac1", "N-oxide") are no proper nouns here.
 */
const PROPER_WORD = /^\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)*(?:['’]s?)?$/u;

/**
 * The names a text states, each as the analysed terms of its words: named words next to each
 * other, with nothing but spaces or a joiner between them, are one name ("Great Barrier Reef",
 * "Leonardo da Vinci"; "Queensland, Australia" are two). Names whose words analysis drops
 * entirely are left out.
 *
 * - `entities`: entityTerms' words (capitalised inside a sentence, in capitals, with a digit).
 * - `proper`: proper nouns only (PROPER_WORD), and a capitalised word opening a sentence joins
 *   the proper noun right after it ("Neil Armstrong", "Mount Kilimanjaro"), unless it is a
 *   function word ("The Eiffel Tower"). Acronyms and symbols ("BRCA1", "IL-6", "CKD") are left
 *   out: they come in spelling variants and abbreviations ("BRCA 1", "mtDNA", "H. pylori") that
 *   would read as other names. German capitalises every noun: no proper names are read there.
 */
export function namePhrases(text: string, language: string | null, kind: 'entities' | 'proper' = 'entities'): string[][] {
  const phrases: string[][] = [];
  if (kind === 'proper' && CAPITALISED_NOUNS.has(language ?? '')) return phrases;
  const words = [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)];
  // A headline in title case capitalises every word: there only capitals and digits name. Read
  // for proper nouns, title case leaves only the short words of its style in lower case, so a
  // sentence of names ("The Taj Mahal is in Pakistan") is no headline.
  const titleCase = kind === 'proper'
    ? words.length > 3 && words.every((m) => /^\P{Ll}/u.test(m[0]) || TITLE_CASE_LOWER.has(m[0]))
    : words.filter((m) => /^\p{Lu}/u.test(m[0])).length > 0.6 * words.length && words.length > 3;
  // "The", "In", "Of" open sentences, never names.
  const functionWords = functionWordsFor(language);
  const termsOf = (word: string) => canonicalTerms(analyze(word, language), language).filter((term) => !/^\p{N}/u.test(term));
  let current: string[] | null = null;
  /** Whether `current` is among the phrases yet: a sentence's capitalised first word waits for a named word to join. */
  let listed = false;
  /** Where the last word of `current` (or a joiner after it) ended: the next named word continues it only from there. */
  let joinedAt = -1;
  words.forEach((match, i) => {
    const word = match[0];
    const end = match.index + word.length;
    const before = text.slice(0, match.index).trimEnd();
    // A structured abstract's heading ("BACKGROUND Taxing sugar-sweetened beverages…") opens a sentence too.
    const first = i === 0 || /[.!?:;]$/.test(before) || (kind === 'proper' && /^\p{Lu}{3,}$/u.test(words[i - 1]![0]));
    const capitalised = !first && !titleCase && /^\p{Lu}/u.test(word);
    const named = kind === 'proper' ? capitalised && PROPER_WORD.test(word)
      : capitalised || /\p{N}/u.test(word) || (word.length > 1 && word === word.toUpperCase() && /\p{Lu}/u.test(word));
    const adjacent = current !== null && /^\s*$/.test(text.slice(joinedAt, match.index));
    if (named) {
      if (!adjacent) current = [];
      if (!adjacent || !listed) phrases.push(current!);
      listed = true;
      current!.push(...termsOf(word));
      joinedAt = end;
    } else if (adjacent && NAME_JOINERS.has(word)) {
      joinedAt = end;
    } else if (kind === 'proper' && first && !titleCase && PROPER_WORD.test(word) && !functionWords.has(word.toLowerCase())) {
      current = termsOf(word);
      listed = false;
      joinedAt = end;
    } else {
      current = null;
    }
  });
  return phrases.filter((phrase) => phrase.length > 0);
}

/**
 * Whether a sentence says the claim of another person, place or thing: it leaves one of the
 * claim's names out (none of its words there) or changes one ("Mount Everest" for "Mount
 * Kilimanjaro", "North Atlantic Ocean" for "Pacific Ocean"), names something the claim does not,
 * and holds at least half of what the claim states of its names (`statement`: a claim that is
 * all names, "The Taj Mahal is in Pakistan", states nothing more). A name shortened is the same
 * name ("Leonardo" for "Leonardo da Vinci"), and so is one lengthened ("the People's Republic of
 * China" for "China"). `analysed`: the sentence's analysed terms.
 */
export function namesAnother(claim: AnalysedClaim, sentence: string, analysed: readonly string[], language: string | null): boolean {
  // Most claims name nothing: their sentences are not read again.
  if (claim.names.length === 0) return false;
  const present = new Set(canonicalTerms(analysed, language));
  const { statement } = claim;
  const held = statement.size > 0 ? [...statement].filter((term) => present.has(term)).length / statement.size : 1;
  if (held < NAMES_ANOTHER_STATEMENT) return false;
  const another = namePhrases(sentence, language, 'proper').filter((name) => name.some((term) => !claim.weights.has(term)));
  if (another.length === 0) return false;
  return claim.names.some((name) => {
    const found = name.filter((term) => present.has(term)).length;
    if (found === name.length) return false;
    return found === 0 || another.some((theirs) => theirs.some((term) => name.includes(term)));
  });
}

/**
 * Whether a sentence restates the claim with one of its words replaced by a word that excludes it
 * (opposites.ts: "warm-blooded" for "cold-blooded", "non-renewable" for "renewable", "vitamin C"
 * for "vitamin D"): the rest of the claim's content held at least at `restCoverage` of its
 * weight. `analysed`: the sentence's analysed terms.
 */
export function saysOpposite(claim: AnalysedClaim, sentence: string, analysed: readonly string[], language: string | null, restCoverage: number): boolean {
  const replaced = [...replacedByOpposite(claim.text.toLowerCase(), sentence.toLowerCase()), ...replacedIdentifiers(claim.text, sentence)];
  if (replaced.length === 0) return false;
  const excluded = new Set(canonicalTerms(replaced.flatMap((word) => analyze(word, language)), language));
  const rest = new Map([...claim.content.weights].filter(([term]) => !excluded.has(term)));
  return rest.size > 0 && coverageOf({ weights: rest, total: sum(rest) }, new Set(canonicalTerms(analysed, language))) >= restCoverage;
}

/**
 * Whether a sentence names another cause of what the claim says is caused (causes.ts: "Most
 * stomach ulcers are caused by infection with Helicobacter pylori" against "…are caused by
 * stress"): a cause statement whose effect holds at least `effectCoverage` of the claim's
 * effect (by the claim's weights), in a sentence that holds less than half of the claim's cause,
 * and whose cause names something the claim does not. `stated`: the sentence's cause statements
 * (causes.ts, read once by the caller); `analysed`: its analysed terms.
 */
export function namesAnotherCause(claim: AnalysedClaim, stated: readonly CauseStatement[], analysed: readonly string[], language: string | null, effectCoverage: number): boolean {
  if (claim.causes.length === 0 || stated.length === 0) return false;
  const everything = new Set(canonicalTerms(analysed, language));
  return claim.causes.some(({ effect, cause }) => {
    if (effect.size === 0 || cause.size === 0 || coverageOf(weighedAs(claim, cause), everything) >= ANOTHER_CAUSE_HELD) return false;
    return stated.some((theirs) => coverageOf(weighedAs(claim, effect), termSet(theirs.effect, language)) >= effectCoverage
      && [...termSet(theirs.cause, language)].some((term) => !claim.weights.has(term)));
  });
}

/**
 * Whether a sentence says what causes the claim's cause rather than what that cause does ("The
 * ozone hole over Antarctica was caused mainly by chlorofluorocarbons" against "The ozone hole
 * is the main cause of global warming"): its cause statement's effect holds the claim's cause
 * (`held` of it, by the claim's weights) and its cause holds too little of the claim's effect.
 * The words are the claim's, the roles the other way round: it supports nothing the claim says.
 * `stated`: the sentence's cause statements, as namesAnotherCause takes them.
 */
export function answersAnotherCause(claim: AnalysedClaim, stated: readonly CauseStatement[], language: string | null, held: number): boolean {
  if (claim.causes.length === 0 || stated.length === 0) return false;
  return claim.causes.some(({ effect, cause }) => effect.size > 0 && cause.size > 0 && stated.some((theirs) =>
    coverageOf(weighedAs(claim, cause), termSet(theirs.effect, language)) >= held
    && coverageOf(weighedAs(claim, effect), termSet(theirs.cause, language)) < ANOTHER_CAUSE_HELD));
}

/** Terms weighed as the claim weighs them, for coverageOf. */
function weighedAs(claim: AnalysedClaim, terms: ReadonlySet<string>): { weights: Map<string, number>; total: number } {
  const weights = new Map([...terms].map((term) => [term, claim.weights.get(term) ?? UNKNOWN_TERM_WEIGHT] as const));
  return { weights, total: sum(weights) };
}

/** The analysed terms of a text, synonyms as one (synonyms.ts). */
function termSet(text: string, language: string | null): Set<string> {
  return new Set(canonicalTerms(analyze(text, language), language));
}

/** The share of the claim's cause a sentence may hold and still name another cause. */
const ANOTHER_CAUSE_HELD = 0.5;

/** The share of the claim's statement a sentence that names another thing must hold to say the claim of it. */
const NAMES_ANOTHER_STATEMENT = 0.5;

/** How much of the claim's content (its terms but those of direction words, by weight) a sentence's analysed terms hold, synonyms as one. */
export function contentCoverage(claim: AnalysedClaim, terms: readonly string[], language: string | null): number {
  return coverageOf(claim.content, new Set(canonicalTerms(terms, language)));
}

function sum(weights: Map<string, number>): number {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  return total;
}

/** The names of pairFeatures' entries, in order (the model's weights follow them). */
export const FEATURES = [
  'bias', 'coverage', 'coverage squared', 'bigrams', 'negation mismatch', 'direction mismatch', 'direction agreement',
  'polarity mismatch', 'number conflict', 'number shared', 'sentence hedged', 'sentence negated', 'claim negated',
  'coverage added by the previous sentence', 'direction mismatch after the previous sentence', 'polarity mismatch after the previous sentence',
  'direction mismatch beside claim terms', 'direction agreement beside claim terms', 'negation mismatch beside claim terms',
  'plain coverage', 'entity coverage', 'entity replaced', 'sentence about the claim', 'hedge beside claim terms', 'claim hedged',
  'source coverage',
] as const;

/**
 * What decides a sentence's stance on a claim, as numbers: how much of the claim it speaks of
 * (term coverage weighted by idf, and adjacent term pairs), and, scaled by that coverage, the
 * cues on which a sentence about the claim agrees or disagrees with it: negation, direction
 * words, the polarity they make together, and the quantities stated (a number of the same unit
 * with another value conflicts). And what the previous sentence of its passage adds to the
 * coverage, with the disagreements scaled by that: a finding often names its subject one
 * sentence earlier ("Mice were fed X. Their weight fell."). And the same disagreements read only
 * where they bear on the claim's terms (cue-scopes.ts): the direction words beside what the
 * claim's move, the negations before its terms. And how much of the claim the sentence's whole
 * source states (`sourceCoverage`, of every sentence of the source). `analysed`: the sentence's
 * analysed terms, when the caller has them; `previousAnalysed`: the previous sentence's, if any;
 * `cues`: the sentence's cues, when the caller has them; `reports`: the beliefs it reports, read
 * with the next sentence of its passage, which may answer one ("Many believe that… However, …").
 */
export function pairFeatures(
  claim: AnalysedClaim, sentence: string, language: string | null, sourceCoverage: number,
  analysed = analyze(sentence, language), previousAnalysed: readonly string[] = [], cues = cuesOf(sentence),
  reports: Reports = reportsOf(lowered(sentence)),
): number[] {
  const terms = canonicalTerms(analysed, language);
  const previous = canonicalTerms(previousAnalysed, language);
  const present = new Set(terms);
  const coverage = coverageOf(claim, present);
  const added = previous.length > 0 ? coverageOf(claim, new Set([...terms, ...previous])) - coverage : 0;
  const alignment = alignmentOf(claim, sentence, language, present);
  let sharedBigrams = 0;
  if (claim.bigrams.size > 0) {
    const bigrams = bigramsOf(terms);
    for (const bigram of claim.bigrams) if (bigrams.has(bigram)) sharedBigrams++;
  }
  const claimNegated = claim.cues.negations % 2;
  const sentenceNegated = cues.negations % 2;
  const quantities = quantityMatch(claim.cues.quantities, cues.quantities);
  const scopes = scopesOf(sentence, language, 'sentence', reports);
  const aligned = alignedDirection(claim.scopes, scopes);
  const claimWay = asWorth(claim.cues, claim.scopes, scopes);
  const sentenceWay = asWorth(cues, scopes, claim.scopes);
  const directions = claimWay.direction * sentenceWay.direction;
  return [
    1,
    coverage,
    coverage * coverage,
    claim.bigrams.size > 0 ? sharedBigrams / claim.bigrams.size : 0,
    claimNegated !== sentenceNegated ? coverage : 0,
    directions < 0 ? coverage : 0,
    directions > 0 ? coverage : 0,
    polarity(claimWay) !== polarity(sentenceWay) ? coverage : 0,
    quantities === 'conflict' ? coverage : 0,
    quantities === 'agree' ? 1 : 0,
    cues.hedged ? 1 : 0,
    sentenceNegated * coverage,
    claimNegated,
    added,
    directions < 0 ? added : 0,
    polarity(claimWay) !== polarity(sentenceWay) ? added : 0,
    aligned < 0 ? coverage : 0,
    aligned > 0 ? coverage : 0,
    negatesAny(scopes, claim.content.weights) !== (claimNegated === 1) ? coverage : 0,
    alignment.plain,
    alignment.entities,
    alignment.replaced,
    alignment.precision,
    hedgesAny(scopes, claim.content.weights) ? coverage : 0,
    claim.cues.hedged ? 1 : 0,
    sourceCoverage,
  ];
}

/**
 * A text's cues with their summed direction read as worth (valence.ts) when the other text speaks
 * of worth ("improves depression") and this one of amount only, most of its direction words said
 * of a harm ("a reduction in depressive symptoms"; "more frequent exacerbations and more severe
 * symptoms"): less of a harm is better, so the direction turns.
 */
function asWorth(cues: Cues, own: Scopes, other: Scopes): Cues {
  const speaksOfWorth = (scopes: Scopes) => scopes.directed.some((d) => d.worth);
  if (speaksOfWorth(own) || !speaksOfWorth(other)) return cues;
  const harms = own.directed.filter((d) => d.harm).length;
  return harms > own.directed.length - harms ? { ...cues, direction: -cues.direction } : cues;
}

/**
 * How much of the claim (by weight, synonyms as one) its source states anywhere, every sentence
 * together: a finding whose subject the source names in another sentence is about the claim, and
 * a source that states one of the claim's key terms nowhere is about something else, however
 * well one of its sentences matches the rest.
 */
export function sourceCoverage(claim: AnalysedClaim, sentences: readonly (readonly string[])[], language: string | null): number {
  const present = new Set<string>();
  for (const terms of sentences) for (const term of canonicalTerms(terms, language)) present.add(term);
  return coverageOf(claim, present);
}

/**
 * How the claim's content lines up with a sentence, weighing each term alike (an index that
 * knows none of the claim's terms weighs them all alike too): the share of its content terms
 * present; the share of its entities present (1 when it names none); an entity replaced, when the
 * sentence holds most of the claim's frame (its content but its entities), misses one of its
 * entities and names another: the same statement about another body, person or thing, scaled
 * by the frame's share; and how much of what the sentence says is about the claim (the share of
 * its own content terms the claim holds): a short passage that restates the claim is all about
 * it, a long sentence of an abstract mostly about other things.
 */
function alignmentOf(claim: AnalysedClaim, sentence: string, language: string | null, present: ReadonlySet<string>) {
  const content = [...claim.content.weights.keys()];
  const plain = content.length > 0 ? content.filter((term) => present.has(term)).length / content.length : 0;
  const entities = claim.entities.size > 0 ? [...claim.entities].filter((term) => present.has(term)).length / claim.entities.size : 1;
  const frame = claim.frame.size > 0 ? [...claim.frame].filter((term) => present.has(term)).length / claim.frame.size : 0;
  let replaced = 0;
  if (entities < 1 && frame >= 0.5) {
    const own = [...entityTerms(sentence, language)].filter((term) => !claim.weights.has(term));
    if (own.length > 0) replaced = frame;
  }
  const precision = present.size > 0 ? [...present].filter((term) => claim.weights.has(term)).length / present.size : 0;
  return { plain, entities, replaced, precision };
}

/** The share of the claim's term weight found among `present`. */
function coverageOf(claim: Pick<AnalysedClaim, 'weights' | 'total'>, present: ReadonlySet<string>): number {
  let covered = 0;
  for (const [term, weight] of claim.weights) if (present.has(term)) covered += weight;
  return claim.total > 0 ? covered / claim.total : 0;
}

function bigramsOf(terms: readonly string[]): Set<string> {
  const bigrams = new Set<string>();
  for (let i = 1; i < terms.length; i++) bigrams.add(`${terms[i - 1]} ${terms[i]}`);
  return bigrams;
}
