import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Principal } from '../auth/principal.js';
import type { Database } from '../storage/schema.js';
import { floorHour, type TimeRange } from './audit-range.js';
import { errorFacts, requestTotals, type CodeFacts } from './error-rollups.repository.js';
import { monitorScope, type ScopeQuery } from './monitor-scope.js';
import { recommend, type Recommendation } from './error-rules.js';

export type ErrorPeriod = 'hour' | 'day' | 'week' | 'month';

const HOURS: Record<ErrorPeriod, number> = { hour: 1, day: 24, week: 168, month: 720 };
const HOUR_MS = 3_600_000;
/** Trend dead band: the error rate must move by a fifth of itself and by half a point to count as a change. */
const RELATIVE_BAND = 0.2;
const ABSOLUTE_BAND = 0.005;
/** Fewer requests than this in either window say nothing about a trend. */
const MIN_REQUESTS_FOR_TREND = 20;
const PEAK_HOURS = 3;

/**
 * GET /v1/errors (section 2.11), from the hourly error rollups: the period is the last 1, 24,
 * 168 or 720 whole hours up to the current one (included), and the trend compares its error
 * rate with the same number of hours just before.
 */
export class ErrorAnalyticsService {
  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock) {}

  async analyse(actor: Principal, query: ScopeQuery & { period: ErrorPeriod }): Promise<Record<string, unknown>> {
    const scope = monitorScope(actor, query);
    const end = new Date(floorHour(this.clock.now()).getTime() + HOUR_MS);
    const span = HOURS[query.period] * HOUR_MS;
    const range: TimeRange = { start: new Date(end.getTime() - span), end };
    const before: TimeRange = { start: new Date(range.start.getTime() - span), end: range.start };
    const [facts, current, previous] = await Promise.all([
      errorFacts(this.db, scope, range), requestTotals(this.db, scope, range), requestTotals(this.db, scope, before),
    ]);

    const totalErrors = [...facts.values()].reduce((sum, c) => sum + c.errors, 0);
    const breakdown = [...facts.entries()]
      .map(([code, of]) => describeCode(code, of, totalErrors, current.requests))
      .sort((a, b) => b.entry.count - a.entry.count || (a.entry.error_code < b.entry.error_code ? -1 : 1));
    const recommendations = breakdown
      .map((b) => recommend(b.findings))
      .filter((r): r is Recommendation => r !== undefined)
      .sort((a, b) => RANK[a.priority] - RANK[b.priority]);

    return {
      period: { name: query.period, start: range.start.toISOString(), end: range.end.toISOString() },
      error_summary: {
        total_errors: totalErrors,
        error_rate: ratio(current.errors, current.requests),
        most_common_error: breakdown[0]?.entry.error_code ?? null,
        error_trend: trend(current, previous),
      },
      error_breakdown: breakdown.map((b) => b.entry),
      recommendations,
    };
  }
}

const RANK = { high: 0, medium: 1, low: 2 } as const;

function describeCode(code: string, facts: CodeFacts, totalErrors: number, requests: number) {
  const count = facts.errors;
  // Most errors first; equals in the order of their names (of the hour for peak times).
  const ranked = <K extends string | number>(entries: Iterable<readonly [K, number]>) =>
    [...entries].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const endpoints = ranked(facts.endpoints).map(([e]) => e);
  const parameters = ranked(facts.parameters);
  const agents = ranked(facts.agents);
  const hours = ranked(facts.hoursOfDay.map((n, hour) => [hour, n] as const)).slice(0, PEAK_HOURS);
  const topParameter = parameters[0] ? { name: String(parameters[0][0]), share: parameters[0][1] / count } : undefined;
  const topAgent = agents[0] ? { name: String(agents[0][0]), share: agents[0][1] / count } : undefined;

  const patterns: string[] = [];
  if (topParameter && topParameter.share >= 0.3) patterns.push(`parameter ${topParameter.name} in ${percent(topParameter.share)} of these errors`);
  if (topAgent && topAgent.share >= 0.5) patterns.push(`user agent ${topAgent.name} in ${percent(topAgent.share)} of these errors`);
  if (endpoints.length === 1) patterns.push(`all on ${endpoints[0]}`);

  return {
    entry: {
      error_code: code,
      count,
      percentage: Math.round((count / totalErrors) * 10_000) / 100,
      avg_response_time: Math.round(facts.latencyMsSum / count) / 1000,
      affected_endpoints: endpoints,
      peak_times: hours.map(([h]) => hourRange(Number(h))),
      common_patterns: patterns,
    },
    findings: { code, count, requests, topParameter, topAgent, endpoints },
  };
}

/** "14:00-15:00 UTC" */
function hourRange(hour: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(hour)}:00-${two((hour + 1) % 24)}:00 UTC`;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/**
 * increasing or decreasing when the period's error rate differs from the previous period's by
 * more than the dead band (a fifth of the earlier rate and half a percentage point); stable
 * inside it; insufficient_data when either period saw fewer than 20 requests.
 */
export function trend(current: { requests: number; errors: number }, previous: { requests: number; errors: number }): string {
  if (current.requests < MIN_REQUESTS_FOR_TREND || previous.requests < MIN_REQUESTS_FOR_TREND) return 'insufficient_data';
  const now = current.errors / current.requests;
  const then = previous.errors / previous.requests;
  const change = now - then;
  if (Math.abs(change) <= Math.max(ABSOLUTE_BAND, RELATIVE_BAND * then)) return 'stable';
  return change > 0 ? 'increasing' : 'decreasing';
}
