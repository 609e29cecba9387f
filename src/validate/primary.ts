import type { SourceCandidate } from '../ranking/rank-sources.js';
import { listedAuthority } from '../ranking/authority-list.js';

/** Host labels that name no one: prefixes, public suffixes and generic site words. */
const GENERIC_LABELS = new Set(['www', 'm', 'en', 'com', 'org', 'net', 'gov', 'edu', 'int', 'mil', 'co', 'ac', 'blog', 'news', 'info', 'example']);

/** Top-level and second-level domains only public bodies and academia can register. */
export const INSTITUTIONAL = /\.(gov|edu|int|mil)(\.[a-z]{2})?$|\.(gov|ac|edu)\.[a-z]{2}$/;

/**
 * Whether a source is a primary source for a claim (options.require_primary_sources):
 *  - the claim is about its publisher: a label of its host name is named in the claim (labels of
 *    up to four letters only in capitals, as acronyms are written: "NASA" for nasa.gov, "WHO" for
 *    who.int, so that "people who smoke" names no one; longer ones in any case: "Pfizer");
 *  - it is an official or academic publisher (government, intergovernmental, military and
 *    academic domains), where statistics and original publications come from;
 *  - the authority lists give it 0.9 or more (SEARCH_AUTHORITY, the subject's publishers; the
 *    most specific entry decides, as for its authority score).
 */
export function isPrimarySource(claim: string, candidate: Pick<SourceCandidate, 'domain'>, configured: readonly { domain: string; weight: number }[]): boolean {
  const domain = candidate.domain.toLowerCase();
  if (INSTITUTIONAL.test(domain)) return true;
  if ((listedAuthority(domain, configured) ?? 0) >= 0.9) return true;
  const words = new Set(claim.match(/[\p{L}\p{N}]+/gu) ?? []);
  const lowerWords = new Set([...words].map((w) => w.toLowerCase()));
  return domain.split('.').filter((label) => label.length >= 3 && !GENERIC_LABELS.has(label))
    .some((label) => (label.length <= 4 ? words.has(label.toUpperCase()) : lowerWords.has(label)));
}
