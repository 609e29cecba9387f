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

export interface Rollup {
  hourly: HourlyRow[];
  errors: ErrorRow[];
  ipsHourly: IpRow[];
  ipsDaily: IpRow[];
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

export function rollUp(entries: readonly AuditEntry[]): Rollup {
  const hourly = new Map<string, HourlyRow>();
  const errors = new Map<string, ErrorRow>();
  const ipsHourly = new Map<string, IpRow>();
  const ipsDaily = new Map<string, IpRow>();
  for (const e of entries) {
    const account = e.accountId ?? '';
    const mode = e.mode ?? '';
    const hour = hourOf(e.occurredAt);
    const endpoint = rollupEndpoint(e.endpoint);
    const failed = e.status >= 400 ? 1 : 0;
    const keyId = (e.principalId ?? '').slice(0, 64);

    const hk = `${account}\0${mode}\0${hour.getTime()}\0${keyId}\0${endpoint}`;
    let row = hourly.get(hk);
    if (!row) {
      row = {
        account_id: account, mode, hour, key_id: keyId, endpoint, requests: 0, errors: 0, cache_hits: 0,
        request_bytes: 0, response_bytes: 0, latency_ms_sum: 0, latency: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      hourly.set(hk, row);
    }
    row.requests++;
    row.errors += failed;
    row.cache_hits += e.cacheHit ? 1 : 0;
    row.request_bytes += e.requestSize;
    row.response_bytes += e.responseSize;
    row.latency_ms_sum += e.responseTimeMs;
    row.latency[latencyBucket(e.responseTimeMs)]!++;

    if (failed) {
      const code = (e.errorCode ?? `HTTP_${e.status}`).slice(0, 40);
      const parameter = (e.errorParameter ?? '').slice(0, 64);
      const agent = agentToken(e.userAgent);
      const ek = `${account}\0${mode}\0${hour.getTime()}\0${endpoint}\0${code}\0${parameter}\0${agent}`;
      const er = errors.get(ek) ?? { account_id: account, mode, hour, endpoint, error_code: code, parameter, agent, errors: 0, latency_ms_sum: 0 };
      er.errors++;
      er.latency_ms_sum += e.responseTimeMs;
      errors.set(ek, er);
    }

    const ip = e.ipAddress.slice(0, 45);
    const day = dayStartOf(e.occurredAt);
    ipsHourly.set(`${account}\0${mode}\0${hour.getTime()}\0${endpoint}\0${failed}\0${ip}`, { account_id: account, mode, at: hour, endpoint, failed, ip });
    ipsDaily.set(`${account}\0${mode}\0${day.getTime()}\0${endpoint}\0${failed}\0${ip}`, { account_id: account, mode, at: day, endpoint, failed, ip });
  }
  // Sorted by key, so concurrent writers lock rollup rows in the same order and rarely deadlock.
  const sorted = <T>(map: Map<string, T>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  return { hourly: sorted(hourly), errors: sorted(errors), ipsHourly: sorted(ipsHourly), ipsDaily: sorted(ipsDaily) };
}
