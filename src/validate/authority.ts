import type { SourceCandidate } from '../../workers/pool/rank-sources.js';
import { withinDomain } from '../index/domain.js';
import { INSTITUTIONAL } from './primary.js';

/**
 * How far a source is to be trusted, 0..1: the configured authority list first (SEARCH_AUTHORITY,
 * a domain covering its subdomains), then the authority stored with the index document, then
 * the domain's class: 0.8 for government, academic and intergovernmental domains, 0.5 otherwise.
 */
export function authorityScore(candidate: Pick<SourceCandidate, 'domain' | 'authority'>, configured: readonly { domain: string; weight: number }[]): number {
  const domain = candidate.domain.toLowerCase();
  const listed = configured.find((a) => withinDomain(domain, a.domain));
  if (listed) return listed.weight;
  if (candidate.authority !== null) return candidate.authority;
  return INSTITUTIONAL.test(domain) ? 0.8 : 0.5;
}
