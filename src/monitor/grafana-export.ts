/**
 * A dashboard as an importable Grafana dashboard (JSON model, schemaVersion 39, as the shipped
 * ones in grafana/dashboards): one panel per metric, whose PromQL reads the service's own
 * Prometheus metrics (src/metrics), and the dashboard's alerts as panel thresholds.
 *
 * Whose figures: an account's dashboard selects the sev_tenant_* series of its account and mode;
 * a deployment-wide one in one mode the sev_tenant_* series of every account in that mode; a
 * deployment-wide one over both modes the sev_http_* series (probes and /metrics left out, as the
 * audit log leaves them out). The mapping of every metric type is METRIC_QUERIES, nowhere else.
 */
import { meets, periodHours, type DashboardAlert, type DashboardMetric, type MetricType } from './dashboard-definition.js';

export interface GrafanaSource {
  id: string;
  name: string;
  accountId: string | null;
  mode: string | null;
  metrics: readonly DashboardMetric[];
  alerts: readonly DashboardAlert[];
}

type Json = Record<string, unknown>;

/** Which series a dashboard's panels read. */
type Source =
  /** sev_tenant_*: requests, errors and latency of authenticated routes, by account and mode. */
  | { kind: 'tenant'; matchers: string }
  /** sev_http_*: every request the service answered. */
  | { kind: 'http'; matchers: string };

/** Routes the audit log (and so the rollups) leave out. */
const NOT_AUDITED = 'route!~"/livez|/readyz|/metrics"';
const RATE = '[$__rate_interval]';

interface Query {
  expr: string;
  /** Grafana unit. */
  unit: string;
  panel: 'timeseries' | 'stat' | 'gauge';
  title: string;
  description: string;
  min?: number;
  max?: number;
}

function label(value: string): string {
  return JSON.stringify(value);
}

function sourceOf(dashboard: Pick<GrafanaSource, 'accountId' | 'mode'>): Source {
  if (dashboard.accountId !== null) {
    return { kind: 'tenant', matchers: `account=${label(dashboard.accountId)}, mode=${label(dashboard.mode ?? 'live')}` };
  }
  if (dashboard.mode !== null) return { kind: 'tenant', matchers: `mode=${label(dashboard.mode)}` };
  return { kind: 'http', matchers: NOT_AUDITED };
}

/** `name{matchers, extra}`. */
function select(name: string, matchers: string, extra?: string): string {
  return `${name}{${[matchers, extra].filter(Boolean).join(', ')}}`;
}

function requestsRate(source: Source, outcome?: 'success' | 'error'): string {
  if (source.kind === 'tenant') {
    return `sum(rate(${select('sev_tenant_requests_total', source.matchers, outcome && `outcome="${outcome}"`)}${RATE}))`;
  }
  const status = outcome === undefined ? undefined : outcome === 'error' ? 'status=~"[45].."' : 'status!~"[45].."';
  return `sum(rate(${select('sev_http_requests_total', source.matchers, status)}${RATE}))`;
}

const CACHE_RATIO = `sum(rate(sev_cache_requests_total{outcome="hit"}${RATE})) / sum(rate(sev_cache_requests_total${RATE}))`;

/** The PromQL of every metric type, for one source. */
const METRIC_QUERIES: Readonly<Record<MetricType, (source: Source, metric: DashboardMetric) => Query>> = {
  requests: (source) => ({
    expr: source.kind === 'tenant'
      ? `sum(increase(${select('sev_tenant_requests_total', source.matchers)}[$__range]))`
      : `sum(increase(${select('sev_http_requests_total', source.matchers)}[$__range]))`,
    unit: 'short', panel: 'stat', title: 'Requests',
    description: 'Requests answered in the panel\'s time range (its period).',
  }),
  requests_per_hour: (source) => ({
    expr: `${requestsRate(source)} * 3600`,
    unit: 'suffix: req/h', panel: 'timeseries', title: 'Requests per hour',
    description: 'Request rate, per hour.',
  }),
  success_rate: (source) => ({
    expr: `(${requestsRate(source, 'success')} or vector(0)) / ${requestsRate(source)}`,
    unit: 'percentunit', panel: 'timeseries', title: 'Success rate', min: 0, max: 1,
    description: 'Share of requests answered with a status below 400.',
  }),
  error_rate: (source) => ({
    expr: `(${requestsRate(source, 'error')} or vector(0)) / ${requestsRate(source)}`,
    unit: 'percentunit', panel: 'timeseries', title: 'Error rate', min: 0, max: 1,
    description: 'Share of requests answered with a status of 400 or more.',
  }),
  response_time: (source, metric) => {
    const [histogram, sum, count] = source.kind === 'tenant'
      ? ['sev_tenant_request_duration_seconds_bucket', 'sev_tenant_request_seconds_total', 'sev_tenant_requests_total']
      : ['sev_http_request_duration_seconds_bucket', 'sev_http_request_duration_seconds_sum', 'sev_http_request_duration_seconds_count'];
    if (metric.percentile !== undefined) {
      return {
        expr: `histogram_quantile(${metric.percentile / 100}, sum by (le) (rate(${select(histogram, source.matchers)}${RATE})))`,
        unit: 's', panel: 'timeseries', title: `Response time p${metric.percentile}`,
        description: `The ${metric.percentile}th percentile of response times, from the duration histogram.`,
      };
    }
    return {
      expr: `sum(rate(${select(sum, source.matchers)}${RATE})) / sum(rate(${select(count, source.matchers)}${RATE}))`,
      unit: 's', panel: 'timeseries', title: 'Response time (mean)',
      description: 'Mean response time.',
    };
  },
  cache_hit_rate: () => ({
    expr: CACHE_RATIO,
    unit: 'percentunit', panel: 'timeseries', title: 'Cache hit rate', min: 0, max: 1,
    description: 'Share of result-cache reads that found a live entry, over the whole deployment: the service exports no cache metric per account.',
  }),
  usage_percentage: (source) => ({
    expr: `max(${select('sev_tenant_quota_used_ratio', source.matchers)}) * 100`,
    unit: 'percent', panel: 'gauge', title: 'Monthly quota used', min: 0, max: 100,
    description: 'Share of the account\'s monthly quota used this month (the highest any API process reports).',
  }),
};

/** The PromQL of one metric of a dashboard. */
export function metricQuery(dashboard: Pick<GrafanaSource, 'accountId' | 'mode'>, metric: DashboardMetric): Query {
  return METRIC_QUERIES[metric.type](sourceOf(dashboard), metric);
}

/**
 * Grafana threshold steps for the alerts on one panel: red where an alert fires, green where none
 * does. Grafana colours ranges from each step's value upwards, so there is a step at every
 * threshold, coloured by what holds between it and the next (and, before the first, below it);
 * an equal_to or not_equal_to alert shows as the line of its step rather than as a range.
 */
export function thresholdSteps(alerts: readonly DashboardAlert[]): Json[] {
  if (alerts.length === 0) return [{ color: 'green', value: null }];
  const color = (value: number) => (alerts.some((a) => meets(value, a.condition, a.threshold)) ? 'red' : 'green');
  const values = [...new Set(alerts.map((a) => a.threshold))].sort((a, b) => a - b);
  const away = (value: number) => Math.max(1, Math.abs(value));
  const steps: Json[] = [{ color: color(values[0]! - away(values[0]!)), value: null }];
  values.forEach((value, i) => {
    const next = values[i + 1];
    steps.push({ color: color(next === undefined ? value + away(value) : (value + next) / 2), value });
  });
  return steps;
}

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

function scopeText(dashboard: GrafanaSource): string {
  if (dashboard.accountId !== null) return `account ${dashboard.accountId}, ${dashboard.mode ?? 'live'} mode (sev_tenant_* metrics)`;
  if (dashboard.mode !== null) return `every account, ${dashboard.mode} mode (sev_tenant_* metrics)`;
  return 'the whole deployment (sev_http_* metrics)';
}

/** The Grafana dashboard JSON model of a dashboard. */
export function grafanaDashboard(dashboard: GrafanaSource): Json {
  // An alert belongs to the first metric of its type, as when the dashboard is read.
  const firstOfType = new Map<MetricType, number>();
  dashboard.metrics.forEach((metric, i) => { if (!firstOfType.has(metric.type)) firstOfType.set(metric.type, i); });
  const scope = scopeText(dashboard);
  const panels = dashboard.metrics.map((metric, i) => {
    const query = metricQuery(dashboard, metric);
    const alerts = firstOfType.get(metric.type) === i ? dashboard.alerts.filter((a) => a.metric === metric.type) : [];
    const period = metric.period;
    const custom = query.panel === 'timeseries'
      ? { custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: 10, showPoints: 'never', spanNulls: false, thresholdsStyle: { mode: alerts.length > 0 ? 'line+area' : 'off' } } }
      : {};
    return {
      id: i + 1,
      type: query.panel,
      title: period ? `${query.title} (${period})` : query.title,
      description: `${query.description} Scope: ${scope}.`,
      datasource: DATASOURCE,
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      ...(period ? { timeFrom: period } : {}),
      fieldConfig: {
        defaults: {
          ...custom,
          color: { mode: query.panel === 'timeseries' ? 'palette-classic' : 'thresholds' },
          unit: query.unit,
          ...(query.min !== undefined ? { min: query.min } : {}),
          ...(query.max !== undefined ? { max: query.max } : {}),
          mappings: [],
          thresholds: { mode: 'absolute', steps: thresholdSteps(alerts) },
        },
        overrides: [],
      },
      options: query.panel === 'timeseries'
        ? { legend: { displayMode: 'list', placement: 'bottom', showLegend: false }, tooltip: { mode: 'single', sort: 'none' } }
        : {
          reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
          ...(query.panel === 'gauge' ? { showThresholdLabels: false, showThresholdMarkers: true } : { colorMode: 'value', graphMode: 'none', textMode: 'auto' }),
        },
      targets: [{
        datasource: DATASOURCE,
        editorMode: 'code',
        expr: query.expr,
        legendFormat: query.title,
        range: true,
        instant: false,
        refId: 'A',
      }],
    };
  });
  const longest = Math.max(24, ...dashboard.metrics.map((m) => (m.period ? periodHours(m.period) ?? 0 : 0)));
  return {
    annotations: { list: [{ builtIn: 1, datasource: { type: 'grafana', uid: '-- Grafana --' }, enable: true, hide: true, iconColor: 'rgba(0, 211, 255, 1)', name: 'Annotations & Alerts', type: 'dashboard' }] },
    description: `SEV dashboard ${dashboard.id}: ${scope}. Exported by GET /v1/dashboards/${dashboard.id}/grafana.`,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [],
    panels,
    refresh: '1m',
    schemaVersion: 39,
    tags: ['sev', 'sev-dashboard'],
    templating: {
      list: [{
        current: { selected: false, text: 'Prometheus', value: 'prometheus' },
        hide: 0,
        includeAll: false,
        label: 'Datasource',
        multi: false,
        name: 'datasource',
        options: [],
        query: 'prometheus',
        refresh: 1,
        regex: '',
        skipUrlSync: false,
        type: 'datasource',
      }],
    },
    time: { from: `now-${longest % 24 === 0 ? `${longest / 24}d` : `${longest}h`}`, to: 'now' },
    timepicker: {},
    timezone: 'utc',
    title: dashboard.name,
    uid: `sev-${dashboard.id}`.slice(0, 40),
    version: 1,
    weekStart: '',
  };
}
