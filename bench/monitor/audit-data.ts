/**
 * Synthetic audit traffic for bench/monitor/audit-scale.ts: the entries a deployment of many
 * accounts would have captured over some weeks, generated day by day from a seed, so the same
 * parameters give the same entries again (the bench rebuilds rollups from them without
 * rewriting request_log). Entries are what the capture middleware hands to the writers
 * (src/http/middleware/audit.ts); the bench rolls them up with the writer's own rollUp().
 *
 * The shape of the traffic:
 *  - accounts share the traffic by a Zipf-like law, the first ("big") one about 40 % of it;
 *    1.5 % is the master key's, 3 % no key was accepted for (public pages, missing or bad keys,
 *    scanners on unknown paths);
 *  - each account has live and sandbox keys and a set of clients: an address, a user agent, a key
 *    and the two or three endpoints that client calls (a client calls few endpoints);
 *  - endpoints have their own latency (log-normal), sizes, cache hits and errors; 400s name the
 *    parameter; a few incident hours carry timeouts and 5xx;
 *  - traffic follows the hour of the day (peak at 14:00 UTC), is lower at weekends and grows
 *    slightly over the period.
 */
import type { AuditEntry } from '../../src/monitor/audit-entry.js';
import { prng } from '../../test/helpers/prng.js';

export interface DataAccount {
  id: string;
  /** Keys of the account by mode: what principal_id holds for its requests. */
  live: string[];
  test: string[];
}

export interface DataPlan {
  seed: number;
  rows: number;
  /** Epoch ms: the first entry is at or after start, the last before end. */
  start: number;
  end: number;
  accounts: DataAccount[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface Endpoint {
  method: string;
  path: string;
  /** Share of keyed traffic. */
  weight: number;
  /** Median latency (ms) and log-normal spread. */
  medianMs: number;
  sigma: number;
  requestBytes: number;
  responseBytes: number;
  /** Probability of a cache hit, and the latency of one. */
  cacheHit?: number;
  /** Errors this endpoint gives besides the common ones: code, status, parameter, weight. */
  errors: [string, number, string | null, number][];
  extra?: 'search' | 'extract' | 'validate' | 'key';
}

const COMMON_ERRORS: [string, number, string | null, number][] = [
  ['RATE_LIMITED', 429, null, 3],
  ['INVALID_PARAMETER', 400, 'options', 1],
  ['EXPIRED_API_KEY', 401, null, 0.5],
  ['IP_NOT_ALLOWED', 403, null, 0.3],
];

const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/v1/search', weight: 34, medianMs: 420, sigma: 0.6, requestBytes: 180, responseBytes: 6200, cacheHit: 0.3, extra: 'search',
    errors: [['INVALID_MAX_RESULTS', 400, 'max_results', 4], ['QUERY_TOO_SHORT', 400, null, 2], ['SEARCH_TIMEOUT', 422, null, 1], ['NO_RESULTS_FOUND', 422, null, 2], ['MONTHLY_LIMIT_EXCEEDED', 429, null, 1]] },
  { method: 'POST', path: '/v1/extract', weight: 20, medianMs: 850, sigma: 0.8, requestBytes: 140, responseBytes: 9800, extra: 'extract',
    errors: [['URL_UNREACHABLE', 422, null, 5], ['EXTRACTION_FAILED', 422, null, 2], ['EXTRACT_TIMEOUT', 422, null, 1], ['URL_INVALID', 422, null, 1], ['INVALID_FORMAT', 400, 'format', 1]] },
  { method: 'POST', path: '/v1/validate', weight: 8, medianMs: 1400, sigma: 0.7, requestBytes: 260, responseBytes: 4100, extra: 'validate',
    errors: [['CLAIM_TOO_VAGUE', 422, null, 3], ['INSUFFICIENT_SOURCES', 422, null, 2], ['VALIDATION_TIMEOUT', 422, null, 1], ['INVALID_PARAMETER', 400, 'sources', 1]] },
  { method: 'GET', path: '/v1/cache/query', weight: 9, medianMs: 6, sigma: 0.5, requestBytes: 0, responseBytes: 5200, cacheHit: 0.8,
    errors: [['INVALID_PARAMETER', 400, 'q', 1]] },
  { method: 'POST', path: '/v1/cache/store', weight: 3, medianMs: 9, sigma: 0.5, requestBytes: 5400, responseBytes: 220,
    errors: [['CONTENT_TOO_LARGE', 400, null, 1]] },
  { method: 'POST', path: '/v1/index/documents', weight: 3, medianMs: 120, sigma: 0.9, requestBytes: 48_000, responseBytes: 300,
    errors: [['INVALID_PARAMETER', 400, 'documents', 2], ['INVALID_JSON', 400, null, 1]] },
  { method: 'GET', path: '/v1/index/jobs/:id', weight: 2, medianMs: 5, sigma: 0.4, requestBytes: 0, responseBytes: 400,
    errors: [['NOT_FOUND', 404, null, 1]] },
  { method: 'POST', path: '/v1/crawl', weight: 1, medianMs: 15, sigma: 0.5, requestBytes: 200, responseBytes: 350,
    errors: [['TOO_MANY_CRAWLS', 429, null, 2], ['URL_INVALID', 422, null, 1]] },
  { method: 'GET', path: '/v1/crawl/:id', weight: 2, medianMs: 6, sigma: 0.4, requestBytes: 0, responseBytes: 900,
    errors: [['NOT_FOUND', 404, null, 1]] },
  { method: 'GET', path: '/v1/usage', weight: 2, medianMs: 25, sigma: 0.5, requestBytes: 0, responseBytes: 3500,
    errors: [['INVALID_PARAMETER', 400, 'breakdown', 1]] },
  { method: 'GET', path: '/v1/audit', weight: 2, medianMs: 35, sigma: 0.6, requestBytes: 0, responseBytes: 24_000,
    errors: [['INVALID_PARAMETER', 400, 'start_date', 1]] },
  { method: 'GET', path: '/v1/errors', weight: 0.5, medianMs: 20, sigma: 0.5, requestBytes: 0, responseBytes: 2100, errors: [] },
  { method: 'GET', path: '/v1/health', weight: 3, medianMs: 12, sigma: 0.4, requestBytes: 0, responseBytes: 1800, errors: [] },
  { method: 'GET', path: '/v1/metrics/live', weight: 1, medianMs: 8, sigma: 0.4, requestBytes: 0, responseBytes: 1500, errors: [] },
  { method: 'GET', path: '/v1/auth/whoami', weight: 3, medianMs: 2, sigma: 0.4, requestBytes: 0, responseBytes: 420, errors: [] },
  { method: 'GET', path: '/v1/auth/keys', weight: 1, medianMs: 6, sigma: 0.4, requestBytes: 0, responseBytes: 2400, errors: [] },
  { method: 'POST', path: '/v1/auth/keys', weight: 0.2, medianMs: 12, sigma: 0.4, requestBytes: 120, responseBytes: 600, extra: 'key',
    errors: [['FEATURE_NOT_AVAILABLE', 403, null, 1]] },
  { method: 'GET', path: '/v1/auth/keys/:id/usage', weight: 0.5, medianMs: 9, sigma: 0.4, requestBytes: 0, responseBytes: 700,
    errors: [['NOT_FOUND', 404, null, 1]] },
];

const PUBLIC = [['GET', '/v1/plans', 40], ['GET', '/v1/openapi.json', 15], ['GET', '/docs/errors', 5]] as const;
const SCANNED = ['/wp-login.php', '/.env', '/admin', '/robots.txt', '/favicon.ico', '/api/v1/search', '/v2/search', '/.git/config', '/phpmyadmin/', '/server-status'];
const AGENTS = [
  'python-requests/2.31.0', 'python-requests/2.32.3 CPython/3.12.1', 'node-fetch/3.3.2', 'axios/1.6.7', 'undici', 'curl/8.4.0',
  'Go-http-client/2.0', 'sev-sdk-python/1.2.0 (Linux; x86_64)', 'sev-sdk-node/0.9.1 node/20.11.0', 'PostmanRuntime/7.36.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', 'okhttp/4.12.0',
];
const SCANNER_AGENTS = ['Mozilla/5.0 zgrab/0.x', 'masscan/1.3', 'Mozilla/5.0 (compatible; Nmap Scripting Engine)', null];
const REGIONS = ['eu-west', 'eu-west', 'eu-west', 'us-east', 'us-east', 'ap-south'];
const SCANNER_IPS = 4000;

interface Client {
  account: string;
  mode: 'live' | 'test';
  key: string;
  ip: string;
  agent: string;
  endpoints: Endpoint[];
  endpointCdf: number[];
  region: string;
}

interface Population {
  clients: Client[];
  /** Cumulative request share of each client, ascending to 1 (attributed traffic only). */
  clientCdf: number[];
  errorRate: Map<string, number>;
}

/** Index of the first cumulative weight above u. */
function pick(cdf: readonly number[], u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! > u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function cdfOf(weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => (sum += w / total));
}

function ipv4(r: () => number): string {
  return `${1 + Math.floor(r() * 222)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
}

function ipv6(r: () => number): string {
  const group = () => Math.floor(r() * 65536).toString(16);
  return `2a02:${group()}:${group()}:${group()}::${group()}`;
}

/** Accounts' clients, drawn from the seed: the same plan gives the same clients. */
function population(plan: DataPlan): Population {
  const r = prng(plan.seed);
  const clients: Client[] = [];
  const weights: number[] = [];
  const errorRate = new Map<string, number>();
  // The big account takes about 40 % of all traffic; the rest follow a Zipf-like law.
  const others = plan.accounts.length - 1;
  const zipf = Array.from({ length: others }, (_, i) => 1 / (i + 1) ** 0.8);
  const zipfSum = zipf.reduce((a, b) => a + b, 0);
  const shares = [0.4 / 0.955, ...zipf.map((z) => (0.555 / 0.955) * (z / zipfSum))];
  const endpointCdf = cdfOf(ENDPOINTS.map((e) => e.weight));
  plan.accounts.forEach((account, a) => {
    errorRate.set(account.id, a === 0 ? 0.035 : 0.01 + r() * 0.07);
    const count = a === 0 ? 150 : 2 + Math.floor(r() * 14);
    const clientWeights = Array.from({ length: count }, (_, i) => 1 / (i + 1) ** 0.7);
    const clientSum = clientWeights.reduce((x, y) => x + y, 0);
    for (let c = 0; c < count; c++) {
      // About one request in six of an account is in the sandbox.
      const mode = account.test.length > 0 && r() < 0.17 ? 'test' : 'live';
      const keys = mode === 'test' ? account.test : account.live;
      const picked = new Set<Endpoint>();
      const wanted = 1 + Math.floor(r() * 3);
      while (picked.size < wanted) picked.add(ENDPOINTS[pick(endpointCdf, r())]!);
      // Monitoring and key reads come along with most clients.
      if (r() < 0.5) picked.add(ENDPOINTS.find((e) => e.path === '/v1/auth/whoami')!);
      const endpoints = [...picked];
      clients.push({
        account: account.id, mode, key: keys[Math.floor(r() * keys.length)]!,
        ip: r() < 0.15 ? ipv6(r) : ipv4(r),
        agent: AGENTS[Math.floor(r() * AGENTS.length)]!,
        endpoints, endpointCdf: cdfOf(endpoints.map((e) => e.weight)),
        region: REGIONS[Math.floor(r() * REGIONS.length)]!,
      });
      weights.push(shares[a]! * (clientWeights[c]! / clientSum));
    }
  });
  return { clients, clientCdf: cdfOf(weights), errorRate };
}

/** Relative traffic of the hour starting at `at`: time of day, weekday, growth over the period. */
function hourWeight(at: number, plan: DataPlan): number {
  const date = new Date(at);
  const hour = date.getUTCHours();
  const daily = 0.35 + 0.65 * Math.exp(-(((hour - 14) / 5) ** 2));
  const weekday = date.getUTCDay() === 0 || date.getUTCDay() === 6 ? 0.6 : 1;
  const growth = 1 + 0.3 * ((at - plan.start) / (plan.end - plan.start));
  return daily * weekday * growth;
}

/** Entries per hour, summing exactly to plan.rows (largest remainders), keyed by the hour's start. */
export function hourlyCounts(plan: DataPlan): Map<number, number> {
  const first = Math.floor(plan.start / HOUR_MS) * HOUR_MS;
  const hours: { at: number; weight: number }[] = [];
  for (let at = first; at < plan.end; at += HOUR_MS) {
    const covered = (Math.min(at + HOUR_MS, plan.end) - Math.max(at, plan.start)) / HOUR_MS;
    hours.push({ at, weight: hourWeight(at, plan) * covered });
  }
  const total = hours.reduce((s, h) => s + h.weight, 0);
  const exact = hours.map((h) => (h.weight / total) * plan.rows);
  const counts = exact.map(Math.floor);
  let left = plan.rows - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (let i = 0; left > 0; i++, left--) counts[order[i]![1]]!++;
  return new Map(hours.map((h, i) => [h.at, counts[i]!]));
}

/** The UTC days (start, epoch ms) the plan's entries fall on, in order. */
export function daysOf(plan: DataPlan): number[] {
  const days: number[] = [];
  for (let at = Math.floor(plan.start / DAY_MS) * DAY_MS; at < plan.end; at += DAY_MS) days.push(at);
  return days;
}

const HEX = '0123456789abcdef';

function hex(r: () => number, digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) out += HEX[Math.floor(r() * 16)];
  return out;
}

function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

export class TrafficGenerator {
  private readonly people: Population;
  private readonly counts: Map<number, number>;
  private readonly publicCdf = cdfOf(PUBLIC.map((p) => p[2]));
  private readonly anyEndpointCdf = cdfOf(ENDPOINTS.map((e) => e.weight));

  constructor(private readonly plan: DataPlan) {
    this.people = population(plan);
    this.counts = hourlyCounts(plan);
  }

  /** Every entry of the UTC day starting at `day`, in time order. */
  day(day: number): AuditEntry[] {
    const entries: AuditEntry[] = [];
    for (let hour = day; hour < day + DAY_MS; hour += HOUR_MS) {
      const count = this.counts.get(hour) ?? 0;
      if (count === 0) continue;
      const r = prng((this.plan.seed * 7919 + hour / HOUR_MS) >>> 0);
      // About one hour in forty is an incident: timeouts and server errors on one endpoint.
      const incident = r() < 0.025 ? ENDPOINTS[Math.floor(r() * 3)]! : undefined;
      const from = Math.max(hour, this.plan.start);
      const span = Math.min(hour + HOUR_MS, this.plan.end) - from;
      const times = Array.from({ length: count }, () => from + Math.floor(r() * span)).sort((a, b) => a - b);
      for (const at of times) entries.push(this.entry(r, at, incident));
    }
    return entries;
  }

  private entry(r: () => number, at: number, incident: Endpoint | undefined): AuditEntry {
    const id = `req_${at.toString(16).padStart(12, '0')}${hex(r, 20)}`;
    const u = r();
    if (u < 0.03) return this.unattributed(r, at, id);
    if (u < 0.045) return this.keyed(r, at, id, undefined, incident);
    const client = this.people.clients[pick(this.people.clientCdf, r())]!;
    return this.keyed(r, at, id, client, incident);
  }

  /** A request of a client of an account, or of the master key (no client). */
  private keyed(r: () => number, at: number, id: string, client: Client | undefined, incident: Endpoint | undefined): AuditEntry {
    const endpoint = client ? client.endpoints[pick(client.endpointCdf, r())]! : ENDPOINTS[pick(this.anyEndpointCdf, r())]!;
    let status = 200;
    let errorCode: string | null = null;
    let parameter: string | null = null;
    let latency = endpoint.medianMs * Math.exp(endpoint.sigma * normal(r));
    let cacheHit = false;
    const errorRate = client ? this.people.errorRate.get(client.account)! : 0.01;
    if (incident === endpoint && r() < 0.3) {
      const [code, s] = r() < 0.6 ? [endpoint.path === '/v1/search' ? 'SEARCH_TIMEOUT' : endpoint.path === '/v1/extract' ? 'EXTRACT_TIMEOUT' : 'VALIDATION_TIMEOUT', 422]
        : r() < 0.7 ? ['UPSTREAM_ERROR', 502] : ['INTERNAL_SERVER_ERROR', 500];
      errorCode = code;
      status = s;
      latency = s === 422 ? 30_000 + r() * 200 : latency * 0.3;
    } else if (r() < errorRate) {
      const choices = [...endpoint.errors, ...COMMON_ERRORS];
      const [code, s, p] = choices[pick(cdfOf(choices.map((c) => c[3])), r())]!;
      errorCode = code;
      status = s;
      parameter = p;
      latency = code.endsWith('_TIMEOUT') ? 10_000 + r() * 20_000 : s < 422 ? 1 + r() * 6 : latency;
    } else if (endpoint.cacheHit !== undefined && r() < endpoint.cacheHit) {
      cacheHit = true;
      latency = 2 + r() * 8;
    }
    const responseTimeMs = Math.max(0, Math.round(latency));
    const requestSize = endpoint.requestBytes === 0 ? 0 : Math.round(endpoint.requestBytes * (0.5 + r()));
    const responseSize = status >= 400 ? 300 + Math.floor(r() * 200) : Math.round(endpoint.responseBytes * (0.4 + r() * 1.2));
    const clientRequestId = r() < 0.01;
    return {
      entryId: id,
      requestId: clientRequestId ? `trace-${hex(r, 16)}` : id,
      occurredAt: new Date(at),
      principalId: client ? client.key : 'master',
      accountId: client ? client.account : null,
      mode: client ? client.mode : 'live',
      method: endpoint.method,
      endpoint: endpoint.path,
      status,
      responseTimeMs,
      ipAddress: client ? client.ip : '10.0.0.2',
      userAgent: client ? client.agent : 'curl/8.4.0',
      requestSize,
      responseSize,
      cacheHit,
      region: client ? client.region : 'eu-west',
      errorCode,
      errorParameter: parameter,
      extra: status >= 400 ? null : this.extra(r, endpoint),
    };
  }

  /** A request no key was accepted for: a public page, a missing or bad key, a scanner. */
  private unattributed(r: () => number, at: number, id: string): AuditEntry {
    const n = Math.floor(r() * SCANNER_IPS);
    const ip = `203.${n >> 8}.${n & 255}.9`;
    const u = r();
    let method = 'GET';
    let endpoint: string;
    let status: number;
    let errorCode: string | null;
    if (u < 0.4) {
      const [m, path] = PUBLIC[pick(this.publicCdf, r())]!;
      [method, endpoint, status, errorCode] = [m, path, 200, null];
    } else if (u < 0.75) {
      const e = ENDPOINTS[pick(this.anyEndpointCdf, r())]!;
      [method, endpoint, status, errorCode] = [e.method, e.path, 401, r() < 0.6 ? 'MISSING_API_KEY' : 'INVALID_API_KEY'];
    } else {
      [endpoint, status, errorCode] = [SCANNED[Math.floor(r() * SCANNED.length)]!, 404, 'NOT_FOUND'];
    }
    return {
      entryId: id, requestId: id, occurredAt: new Date(at), principalId: null, accountId: null, mode: null, method, endpoint, status,
      responseTimeMs: Math.round(1 + r() * (status === 200 ? 15 : 4)), ipAddress: ip,
      userAgent: status === 404 ? SCANNER_AGENTS[Math.floor(r() * SCANNER_AGENTS.length)]! : AGENTS[Math.floor(r() * AGENTS.length)]!,
      requestSize: 0, responseSize: status === 200 ? 2000 + Math.floor(r() * 30_000) : 310, cacheHit: false,
      region: REGIONS[Math.floor(r() * REGIONS.length)]!, errorCode, errorParameter: null, extra: null,
    };
  }

  private extra(r: () => number, endpoint: Endpoint): Record<string, unknown> | null {
    switch (endpoint.extra) {
      case 'search':
        return { query_hash: `sha256:${hex(r, 64)}`, sources_analyzed: 3 + Math.floor(r() * 12), confidence_score: Math.round(r() * 100) / 100 };
      case 'extract':
        return { url: `https://site${Math.floor(r() * 5000)}.example.com/articles/${hex(r, 8)}`, word_count: 200 + Math.floor(r() * 3000) };
      case 'validate': {
        const results = ['VERIFIED', 'LIKELY_TRUE', 'DISPUTED', 'LIKELY_FALSE', 'FALSE', 'UNVERIFIED'];
        return {
          claim_hash: `sha256:${hex(r, 64)}`, validation_result: results[Math.floor(r() * results.length)], consensus_level: Math.round(r() * 100) / 100,
          confidence_score: Math.round(r() * 100) / 100, sources_checked: 2 + Math.floor(r() * 8),
        };
      }
      case 'key':
        return { target_key_id: `key_${hex(r, 16)}` };
      default:
        return null;
    }
  }
}
