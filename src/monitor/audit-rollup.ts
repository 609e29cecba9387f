import type { Mode } from '../mode.js';
import type { AuditEntry } from './audit-entry.js';
import { LATENCY_BUCKETS, latencyBucket } from './latency-buckets.js';

/**
 * What a batch of new audit entries adds to the hourly rollups. Rows without an account (a
 * request no key was accepted for) are kept under the empty account, so the operator's totals
 * include them; endpoint and other key parts are cut to their column widths.
 */
export interface HourlyRow {
  account_id: string;
  mode: string;
  hour: Date;
  key_id: string;
  endpoint: string;
  requests: number;
  errors: number;
  cache_hits: number;
  request_bytes: number;
  response_bytes: number;
  latency_ms_sum: number;
  latency: number[];
}

export interface ErrorRow {
  account_id: string;
  mode: string;
  hour: Date;
  endpoint: string;
  error_code: string;
  parameter: string;
  agent: string;
  errors: number;
  latency_ms_sum: number;
}

export interface IpRow {
  account_id: string;
  mode: string;
  at: Date;
  endpoint: string;
  failed: number;
  ip: string;
}

/**
 * `*` in an account, key or endpoint column of the totals, the hourly errors, the error facets
 * and the error hours: every value. Account `*` is the whole deployment, unattributed requests included; key `*`
 * marks the rows of an endpoint, endpoint `*` those of a key, and both the totals. No account,
 * key or endpoint is ever called `*` (ids are generated; endpoints start with a slash).
 */
export const ALL = '*';

/** Every mode a rollup row has: those of keys, and the empty mode of requests no key was accepted for. */
export const ROLLUP_MODES: readonly string[] = ['', 'live', 'test'] satisfies ('' | Mode)[];

/** Totals of an account (or the deployment) and mode in an hour or a day, of one endpoint, one key, or all. */
export interface TotalsRow {
  account_id: string;
  mode: string;
  at: Date;
  key_id: string;
  endpoint: string;
  requests: number;
  errors: number;
  cache_hits: number;
  request_bytes: number;
  response_bytes: number;
  latency_ms_sum: number;
  /** Latency of the failed requests, for the status filter's averages. */
  error_latency_ms_sum: number;
  latency: number[];
}

/** What the analysis of an error code needs of it: its errors by endpoint, by parameter and by client product. */
export type ErrorFacet = 'endpoint' | 'parameter' | 'agent';

/**
 * Errors of a code in a day with one value of one facet (an endpoint, a parameter, a client
 * product): the code's errors per endpoint, per parameter and per product, not per combination
 * of the three. Errors naming no parameter or product have no row of that facet.
 */
export interface ErrorFacetRow {
  account_id: string;
  mode: string;
  day: Date;
  error_code: string;
  facet: ErrorFacet;
  value: string;
  errors: number;
  latency_ms_sum: number;
}

/** Errors of a code in a day, per hour of the day (UTC): what peak times are read from. */
export interface ErrorHoursRow {
  account_id: string;
  mode: string;
  day: Date;
  error_code: string;
  hours: number[];
}

/** A client address of the deployment in a day, with the first and last time it was seen that day. */
export interface DeploymentIpRow {
  mode: string;
  day: Date;
  endpoint: string;
  failed: number;
  ip: string;
  first_seen: Date;
  last_seen: Date;
}

export interface Rollup {
  hourly: HourlyRow[];
  errors: ErrorRow[];
  ipsHourly: IpRow[];
  ipsDaily: IpRow[];
  totalsHourly: TotalsRow[];
  totalsDaily: TotalsRow[];
  errorFacets: ErrorFacetRow[];
  errorHours: ErrorHoursRow[];
  ipsDeployment: DeploymentIpRow[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

export function dayStartOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** The endpoint as rollups key it: bounded to its column. */
export function rollupEndpoint(endpoint: string): string {
  return endpoint.slice(0, 128);
}

/**
 * The product token of a user agent ("python-requests/2.31.0" of "python-requests/2.31.0
 * CPython/3.11"): what names the client software, without the long tail that would make every
 * browser a pattern of its own.
 */
export function agentToken(userAgent: string | null): string {
  return (userAgent ?? '').trim().split(/\s+/, 1)[0]!.slice(0, 64);
}

/** An hourly row with the failed requests' latency, which the totals keep and the hourly table does not. */
interface HourlyTally extends HourlyRow {
  error_latency_ms_sum: number;
}

/** A client address's requests of one account, mode, hour, endpoint and outcome, with when it was first and last seen. */
interface IpTally extends IpRow {
  first_seen: Date;
  last_seen: Date;
}

/** Adds an hourly tally to the totals row of its key, made if missing. */
function addTotals(map: Map<string, TotalsRow>, account: string, mode: string, at: Date, keyId: string, endpoint: string, h: HourlyTally): void {
  const k = `${account}\0${mode}\0${at.getTime()}\0${keyId}\0${endpoint}`;
  let row = map.get(k);
  if (!row) {
    row = {
      account_id: account, mode, at, key_id: keyId, endpoint, requests: 0, errors: 0, cache_hits: 0, request_bytes: 0, response_bytes: 0,
      latency_ms_sum: 0, error_latency_ms_sum: 0, latency: new Array<number>(LATENCY_BUCKETS).fill(0),
    };
    map.set(k, row);
  }
  row.requests += h.requests;
  row.errors += h.errors;
  row.cache_hits += h.cache_hits;
  row.request_bytes += h.request_bytes;
  row.response_bytes += h.response_bytes;
  row.latency_ms_sum += h.latency_ms_sum;
  row.error_latency_ms_sum += h.error_latency_ms_sum;
  for (let i = 0; i < LATENCY_BUCKETS; i++) row.latency[i]! += h.latency[i]!;
}

/**
 * Each entry is tallied once, by account, mode, hour, key and endpoint (and once by its address);
 * the totals (each endpoint, each key, the account, the deployment; by hour and by day) and the
 * daily and deployment-wide address rows are sums of those tallies. A batch holds few distinct
 * tallies, so the rollups cost a map lookup per entry, not a dozen.
 */
export function rollUp(entries: readonly AuditEntry[]): Rollup {
  const hourly = new Map<string, HourlyTally>();
  const errors = new Map<string, ErrorRow>();
  const ips = new Map<string, IpTally>();
  const errorFacets = new Map<string, ErrorFacetRow>();
  const errorHours = new Map<string, ErrorHoursRow>();
  for (const e of entries) {
    const account = e.accountId ?? '';
    const mode = e.mode ?? '';
    const hourMs = Math.floor(e.occurredAt.getTime() / HOUR_MS) * HOUR_MS;
    const endpoint = rollupEndpoint(e.endpoint);
    const failed = e.status >= 400 ? 1 : 0;
    const keyId = (e.principalId ?? '').slice(0, 64);

    const hk = `${account}\0${mode}\0${hourMs}\0${keyId}\0${endpoint}`;
    let row = hourly.get(hk);
    if (!row) {
      row = {
        account_id: account, mode, hour: new Date(hourMs), key_id: keyId, endpoint, requests: 0, errors: 0, cache_hits: 0,
        request_bytes: 0, response_bytes: 0, latency_ms_sum: 0, error_latency_ms_sum: 0, latency: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      hourly.set(hk, row);
    }
    row.requests++;
    row.errors += failed;
    row.cache_hits += e.cacheHit ? 1 : 0;
    row.request_bytes += e.requestSize;
    row.response_bytes += e.responseSize;
    row.latency_ms_sum += e.responseTimeMs;
    row.error_latency_ms_sum += failed ? e.responseTimeMs : 0;
    row.latency[latencyBucket(e.responseTimeMs)]!++;

    if (failed) {
      const day = dayStartOf(e.occurredAt);
      const code = (e.errorCode ?? `HTTP_${e.status}`).slice(0, 40);
      const parameter = (e.errorParameter ?? '').slice(0, 64);
      const agent = agentToken(e.userAgent);
      for (const scope of [account, ALL]) {
        const ek = `${scope}\0${mode}\0${hourMs}\0${endpoint}\0${code}\0${parameter}\0${agent}`;
        const er = errors.get(ek) ?? { account_id: scope, mode, hour: row.hour, endpoint, error_code: code, parameter, agent, errors: 0, latency_ms_sum: 0 };
        er.errors++;
        er.latency_ms_sum += e.responseTimeMs;
        errors.set(ek, er);
        for (const [facet, value] of [['endpoint', endpoint], ['parameter', parameter], ['agent', agent]] as const) {
          if (value === '') continue;
          const fk = `${scope}\0${mode}\0${day.getTime()}\0${code}\0${facet}\0${value}`;
          const fr = errorFacets.get(fk) ?? { account_id: scope, mode, day, error_code: code, facet, value, errors: 0, latency_ms_sum: 0 };
          fr.errors++;
          fr.latency_ms_sum += e.responseTimeMs;
          errorFacets.set(fk, fr);
        }
        const codeKey = `${scope}\0${mode}\0${day.getTime()}\0${code}`;
        const hr = errorHours.get(codeKey) ?? { account_id: scope, mode, day, error_code: code, hours: new Array<number>(24).fill(0) };
        hr.hours[e.occurredAt.getUTCHours()]!++;
        errorHours.set(codeKey, hr);
      }
    }

    const ip = e.ipAddress.slice(0, 45);
    const ik = `${account}\0${mode}\0${hourMs}\0${endpoint}\0${failed}\0${ip}`;
    const seen = ips.get(ik);
    if (!seen) ips.set(ik, { account_id: account, mode, at: row.hour, endpoint, failed, ip, first_seen: e.occurredAt, last_seen: e.occurredAt });
    else {
      if (e.occurredAt < seen.first_seen) seen.first_seen = e.occurredAt;
      if (e.occurredAt > seen.last_seen) seen.last_seen = e.occurredAt;
    }
  }

  const totalsHourly = new Map<string, TotalsRow>();
  const totalsDaily = new Map<string, TotalsRow>();
  for (const h of hourly.values()) {
    const day = dayStartOf(h.hour);
    for (const scope of [h.account_id, ALL]) {
      for (const [k, ep] of [[ALL, h.endpoint], [h.key_id, ALL], [ALL, ALL]] as const) {
        addTotals(totalsHourly, scope, h.mode, h.hour, k, ep, h);
        addTotals(totalsDaily, scope, h.mode, day, k, ep, h);
      }
    }
  }
  const ipsHourly = new Map<string, IpRow>();
  const ipsDaily = new Map<string, IpRow>();
  const ipsDeployment = new Map<string, DeploymentIpRow>();
  for (const [hourKey, i] of ips) {
    const day = dayStartOf(i.at);
    ipsHourly.set(hourKey, { account_id: i.account_id, mode: i.mode, at: i.at, endpoint: i.endpoint, failed: i.failed, ip: i.ip });
    ipsDaily.set(`${i.account_id}\0${i.mode}\0${day.getTime()}\0${i.endpoint}\0${i.failed}\0${i.ip}`,
      { account_id: i.account_id, mode: i.mode, at: day, endpoint: i.endpoint, failed: i.failed, ip: i.ip });
    const dk = `${day.getTime()}\0${i.mode}\0${i.endpoint}\0${i.failed}\0${i.ip}`;
    const seen = ipsDeployment.get(dk);
    if (!seen) ipsDeployment.set(dk, { mode: i.mode, day, endpoint: i.endpoint, failed: i.failed, ip: i.ip, first_seen: i.first_seen, last_seen: i.last_seen });
    else {
      if (i.first_seen < seen.first_seen) seen.first_seen = i.first_seen;
      if (i.last_seen > seen.last_seen) seen.last_seen = i.last_seen;
    }
  }
  // Sorted by key, so concurrent writers lock rollup rows in the same order and rarely deadlock.
  const sorted = <T>(map: Map<string, T>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  return {
    hourly: sorted(hourly), errors: sorted(errors), ipsHourly: sorted(ipsHourly), ipsDaily: sorted(ipsDaily),
    totalsHourly: sorted(totalsHourly), totalsDaily: sorted(totalsDaily), errorFacets: sorted(errorFacets), errorHours: sorted(errorHours),
    ipsDeployment: sorted(ipsDeployment),
  };
}
