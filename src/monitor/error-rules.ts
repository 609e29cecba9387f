/**
 * Recommendations from observed errors. Each rule reads what was counted in the period (a code's
 * share of all requests, the parameter or client that produces most of it) and names it; a rule
 * that finds nothing to say says nothing. The rules, in order:
 *
 *  - rate limiting (RATE_LIMITED, TOO_MANY_CRAWLS): client-side backoff honouring Retry-After, and
 *    a plan with a higher limit when the share is high;
 *  - quota (MONTHLY_LIMIT_EXCEEDED): a plan with a larger monthly quota;
 *  - invalid input (400s that name a parameter): the parameter and what the catalogue says of it;
 *  - credentials (401s, IP_NOT_ALLOWED): the client that still sends them;
 *  - time-outs (*_TIMEOUT): a longer options.timeout, the cache, fewer sources;
 *  - unreachable or unreadable pages (URL_*, EXTRACTION_FAILED): check the URLs that client sends;
 *  - server faults (5xx): the operator's health page and logs, by request id;
 *  - any other code above 1 % of requests: the catalogue's advice for it.
 *
 * Priority follows the code's share of all requests: high from 5 %, medium from 1 %, else low.
 */
import { ERROR_CATALOGUE, isErrorCode, suggestionFor } from '../errors/catalogue.js';

export interface CodeFindings {
  code: string;
  count: number;
  /** All requests of the period (successes included). */
  requests: number;
  topParameter: { name: string; share: number } | undefined;
  topAgent: { name: string; share: number } | undefined;
  endpoints: string[];
}

export interface Recommendation {
  issue: string;
  suggestion: string;
  priority: 'high' | 'medium' | 'low';
}

const RATE = new Set(['RATE_LIMITED', 'TOO_MANY_CRAWLS']);
const CREDENTIALS = new Set(['INVALID_API_KEY', 'EXPIRED_API_KEY', 'MISSING_API_KEY', 'KEY_NOT_ACTIVE', 'IP_NOT_ALLOWED']);
const PAGES = new Set(['URL_INVALID', 'URL_UNREACHABLE', 'EXTRACTION_FAILED']);

function priority(share: number): Recommendation['priority'] {
  return share >= 0.05 ? 'high' : share >= 0.01 ? 'medium' : 'low';
}

function pct(share: number): string {
  return `${Math.round(share * 1000) / 10} %`;
}

function spec(code: string): { status: number; message: string; suggestion?: string } | undefined {
  if (!isErrorCode(code)) return undefined;
  const { status, message } = ERROR_CATALOGUE[code];
  const suggestion = suggestionFor(code);
  return { status, message, ...(suggestion !== undefined ? { suggestion } : {}) };
}

export function recommend(f: CodeFindings): Recommendation | undefined {
  const share = f.requests === 0 ? 0 : f.count / f.requests;
  const where = f.endpoints.slice(0, 3).join(', ');
  const issue = `${f.count} ${f.code} (${pct(share)} of requests) on ${where}`;
  const client = f.topAgent && f.topAgent.name !== '' && f.topAgent.share >= 0.5 ? ` Most come from ${f.topAgent.name} (${pct(f.topAgent.share)}).` : '';
  const catalogue = spec(f.code);

  if (RATE.has(f.code)) {
    return {
      issue, priority: priority(share),
      suggestion: `Back off on 429: wait the Retry-After seconds (X-RateLimit-Reset says when the window opens) and spread requests over the minute.${client}`
        + (share >= 0.05 ? ' At this share, a plan with a higher rate limit (GET /v1/plans) fits the traffic better.' : ''),
    };
  }
  if (f.code === 'MONTHLY_LIMIT_EXCEEDED') {
    return { issue, priority: 'high', suggestion: 'The monthly quota ran out: move to a plan with a larger quota (GET /v1/plans), or cache answers (options.enable_cache) to spend fewer requests.' };
  }
  if (catalogue?.status === 400 && f.topParameter && f.topParameter.name !== '') {
    return {
      issue: `${issue}, ${pct(f.topParameter.share)} of them on parameter ${f.topParameter.name}`,
      priority: priority(share),
      suggestion: `Check ${f.topParameter.name} before sending: ${catalogue.message}${catalogue.suggestion ? ` ${catalogue.suggestion}` : ''}${client}`,
    };
  }
  if (CREDENTIALS.has(f.code)) {
    return {
      issue, priority: priority(share),
      suggestion: `Requests keep arriving with a key that is refused (${catalogue?.message ?? f.code}). Update the key in that client or rotate it (POST /v1/auth/keys/{id}/rotate).${client}`,
    };
  }
  if (f.code.endsWith('_TIMEOUT')) {
    return {
      issue, priority: priority(share),
      suggestion: `Requests ran out of time: raise options.timeout, keep options.enable_cache on, or ask for fewer sources (max_results).${client}`,
    };
  }
  if (PAGES.has(f.code)) {
    return {
      issue, priority: priority(share),
      suggestion: `Pages could not be fetched or read: check the URLs this client sends (public http(s) addresses that answer with HTML, text or PDF).${client}`,
    };
  }
  if ((catalogue?.status ?? 500) >= 500) {
    return {
      issue, priority: share >= 0.01 ? 'high' : 'medium',
      suggestion: 'Server-side failures: see GET /v1/health for a component that is down, and the service logs under the request ids of GET /v1/audit?status=error.',
    };
  }
  if (share >= 0.01) {
    return { issue, priority: priority(share), suggestion: `${catalogue?.suggestion ?? catalogue?.message ?? 'See the error catalogue.'}${client}` };
  }
  return undefined;
}
