import { analyze, analyzeQuery } from '../text/analyze.js';
import { alignedDirection, negatesAny, scopesOf, type Scopes } from './cue-scopes.js';
import { cuesOf, polarity, quantityMatch, type Cues } from './cues.js';

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
}

export function analyseClaim(claim: string, language: string | null, termWeights: Readonly<Record<string, number>>): AnalysedClaim {
  const terms = analyzeQuery(claim, language);
  const weights = new Map<string, number>();
  for (const term of terms) weights.set(term, termWeights[term] ?? UNKNOWN_TERM_WEIGHT);
  const cues = cuesOf(claim);
  const directionTerms = new Set(cues.directionWords.flatMap((word) => analyze(word, language)));
  const content = new Map([...weights].filter(([term]) => !directionTerms.has(term)));
  return { weights, total: sum(weights), bigrams: bigramsOf(terms), cues, scopes: scopesOf(claim, language, 'claim'), content: { weights: content, total: sum(content) } };
}

/** How much of the claim's content (its terms but those of direction words, by weight) a sentence's terms hold. */
export function contentCoverage(claim: AnalysedClaim, terms: readonly string[]): number {
  return coverageOf(claim.content, new Set(terms));
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
 * claim's move, the negations before its terms. `terms`: the sentence's analysed
 * terms, when the caller has them; `previous`: the previous sentence's, if any; `cues`: the
 * sentence's cues, when the caller has them.
 */
export function pairFeatures(claim: AnalysedClaim, sentence: string, language: string | null, terms = analyze(sentence, language), previous: readonly string[] = [], cues = cuesOf(sentence)): number[] {
  const coverage = coverageOf(claim, new Set(terms));
  const added = previous.length > 0 ? coverageOf(claim, new Set([...terms, ...previous])) - coverage : 0;
  let sharedBigrams = 0;
  if (claim.bigrams.size > 0) {
    const bigrams = bigramsOf(terms);
    for (const bigram of claim.bigrams) if (bigrams.has(bigram)) sharedBigrams++;
  }
  const claimNegated = claim.cues.negations % 2;
  const sentenceNegated = cues.negations % 2;
  const directions = claim.cues.direction * cues.direction;
  const quantities = quantityMatch(claim.cues.quantities, cues.quantities);
  const scopes = scopesOf(sentence, language, 'sentence');
  const aligned = alignedDirection(claim.scopes, scopes);
  return [
    1,
    coverage,
    coverage * coverage,
    claim.bigrams.size > 0 ? sharedBigrams / claim.bigrams.size : 0,
    claimNegated !== sentenceNegated ? coverage : 0,
    directions < 0 ? coverage : 0,
    directions > 0 ? coverage : 0,
    polarity(claim.cues) !== polarity(cues) ? coverage : 0,
    quantities === 'conflict' ? coverage : 0,
    quantities === 'agree' ? 1 : 0,
    cues.hedged ? 1 : 0,
    sentenceNegated * coverage,
    claimNegated,
    added,
    directions < 0 ? added : 0,
    polarity(claim.cues) !== polarity(cues) ? added : 0,
    aligned < 0 ? coverage : 0,
    aligned > 0 ? coverage : 0,
    negatesAny(scopes, claim.content.weights) !== (claimNegated === 1) ? coverage : 0,
  ];
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
