import { ApiError } from '../errors/catalogue.js';
import { analyzeQuery } from '../text/analyze.js';
import { analysisLanguage } from '../text/analysis-language.js';
import { functionWordsFor } from '../text/stop-words.js';

/** Distinct content terms a checkable claim has at least. */
export const MIN_CLAIM_TERMS = 2;

/**
 * Whether a claim says too little to be checked (CLAIM_TOO_VAGUE): fewer than MIN_CLAIM_TERMS
 * distinct terms once stop words are dropped, as the index analyses text. "It is true." and
 * "This is it!" have one or none; "Aspirin thins blood." has three. The rule counts words, not
 * meaning: "Things happen." has two and passes.
 */
function isTooVague(claim: string): boolean {
  const language = analysisLanguage(claim, null);
  const stop = functionWordsFor(language);
  const terms = new Set(analyzeQuery(claim, language).filter((term) => !stop.has(term)));
  return terms.size < MIN_CLAIM_TERMS;
}

/** CLAIM_TOO_VAGUE for a claim with nothing to check: the request is refused before any work. */
export function refuseVagueClaim(claim: string): void {
  if (isTooVague(claim)) {
    throw new ApiError('CLAIM_TOO_VAGUE', {}, 'The claim needs at least two content words (stop words do not count) to be checked.');
  }
}
