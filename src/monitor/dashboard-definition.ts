/**
 * What a dashboard is made of (spec 2.12) and the rules of its definition that the request
 * schema cannot state: periods in whole hours within the rollups' retention, a percentile for
 * response_time only, usage_percentage only where there is a quota, alerts on metrics the
 * dashboard shows. Plain values in, a normalised definition or a catalogued 400 out.
 */
import { compare, type Comparator } from '../alerts/condition.js';
import { ApiError } from '../errors/catalogue.js';
import { isTimeSpan, timeSpanMs } from '../schema/formats.js';
import type { Mode } from '../mode.js';

export const METRIC_TYPES = [
  'requests', 'requests_per_hour', 'success_rate', 'error_rate', 'response_time', 'cache_hit_rate', 'usage_percentage',
] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export const CONDITIONS = ['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'equal_to', 'not_equal_to'] as const;
export type Condition = (typeof CONDITIONS)[number];

export const DEFAULT_PERIOD = '24h';
/** Periods up to a week have a point per hour; longer ones a point per UTC day. */
export const HOURLY_SERIES_MAX_HOURS = 7 * 24;

export interface DashboardMetric {
  type: MetricType;
  /** Absent for usage_percentage, which covers the quota month. */
  period?: string;
  /** response_time only: this percentile instead of the mean. */
  percentile?: number;
}

export interface DashboardAlert {
  metric: MetricType;
  threshold: number;
  condition: Condition;
}

/** The body of POST and PUT /v1/dashboards as the schema has validated it. */
export interface DashboardRequest {
  name: string;
  account_id?: string;
  mode?: Mode;
  metrics: { type: MetricType; period?: string; percentile?: number }[];
  alerts?: DashboardAlert[];
}

/** What is stored of a dashboard besides its name and scope. */
export interface DashboardDefinition {
  metrics: DashboardMetric[];
  alerts: DashboardAlert[];
}

const HOUR_MS = 3_600_000;

/** Hours of a time span ('24h', '7d', '120m'); undefined when it is not one, or not a whole number of hours. */
export function periodHours(span: string): number | undefined {
  if (!isTimeSpan(span)) return undefined;
  const ms = timeSpanMs(span);
  return ms % HOUR_MS === 0 ? ms / HOUR_MS : undefined;
}

function invalid(parameter: string, reason: string, provided: unknown): ApiError {
  return new ApiError('INVALID_PARAMETER', { parameter, reason, provided }, `${parameter} ${reason}`);
}

export interface DefinitionLimits {
  /** The longest period, in days: the hourly rollups' retention (AUDIT_ROLLUP_RETENTION_DAYS). */
  maxPeriodDays: number;
  /** false for a master dashboard over the whole deployment, which has no quota. */
  hasAccount: boolean;
}

/** The definition of a request, defaults filled in; INVALID_PARAMETER naming the first field that breaks a rule. */
export function checkDefinition(request: DashboardRequest, limits: DefinitionLimits): DashboardDefinition {
  const maxHours = limits.maxPeriodDays * 24;
  const metrics = request.metrics.map((metric, i): DashboardMetric => {
    const at = `metrics[${i}]`;
    if (metric.percentile !== undefined && metric.type !== 'response_time') {
      throw invalid(`${at}.percentile`, 'applies to response_time only', metric.percentile);
    }
    if (metric.type === 'usage_percentage') {
      if (metric.period !== undefined) {
        throw invalid(`${at}.period`, 'does not apply to usage_percentage, which always covers the quota month', metric.period);
      }
      if (!limits.hasAccount) {
        throw invalid(`${at}.type`, 'usage_percentage needs an account: the whole deployment has no quota (name account_id)', metric.type);
      }
      return { type: metric.type };
    }
    const period = metric.period ?? DEFAULT_PERIOD;
    const hours = periodHours(period);
    if (hours === undefined || hours > maxHours) {
      throw invalid(`${at}.period`, `must be a whole number of hours from 1h to ${limits.maxPeriodDays}d (the rollups' retention), such as 24h or 7d`, period);
    }
    return { type: metric.type, period, ...(metric.percentile !== undefined ? { percentile: metric.percentile } : {}) };
  });
  const shown = [...new Set(metrics.map((m) => m.type))];
  const alerts = (request.alerts ?? []).map((alert, i): DashboardAlert => {
    if (!shown.includes(alert.metric)) {
      throw invalid(`alerts[${i}].metric`, `must be one of the dashboard's metrics: ${shown.join(', ')}`, alert.metric);
    }
    return { metric: alert.metric, threshold: alert.threshold, condition: alert.condition };
  });
  return { metrics, alerts };
}

/** The comparison each named condition of a dashboard's alert makes (the alert grammar's comparators). */
const COMPARATORS: Readonly<Record<Condition, Comparator>> = {
  greater_than: '>', greater_than_or_equal: '>=', less_than: '<', less_than_or_equal: '<=', equal_to: '==', not_equal_to: '!=',
};

/** Whether `value` meets an alert's condition; never for a value that is undefined (null). */
export function meets(value: number | null, condition: Condition, threshold: number): boolean {
  return value !== null && compare(COMPARATORS[condition], value, threshold);
}
