import type { SourceCandidate } from '../ranking/rank-sources.js';
import { listedAuthority } from '../ranking/authority-list.js';
import { INSTITUTIONAL } from './primary.js';

/**
 * How far a source is to be trusted, 0..1: the authority lists first (SEARCH_AUTHORITY and the
 * subject's publishers; the most specific entry covering the domain, as search ranks), then the
 * authority stored with the index document, then the domain's class: 0.8 for government,
 * academic and intergovernmental domains, 0.5 otherwise.
 */
export function authorityScore(candidate: Pick<SourceCandidate, 'domain' | 'authority'>, configured: readonly { domain: string; weight: number }[]): number {
  const listed = listedAuthority(candidate.domain, configured);
  if (listed !== undefined) return listed;
  if (candidate.authority !== null) return candidate.authority;
  return INSTITUTIONAL.test(candidate.domain.toLowerCase()) ? 0.8 : 0.5;
}
